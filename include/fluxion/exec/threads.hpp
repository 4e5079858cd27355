#pragma once
// fx::host::threads: how many host threads a batch call (evaluations,
// integrations, log-densities) spreads its instances over, and the least
// work each thread is given.
//
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx), fx::host::threads(8));
//
// The ranges are handed out by exec/detail/for_ranges.hpp; the thread type
// itself is defined by <fluxion/exec/host_threads.hpp>.
#include <cstddef>

#include <fluxion/config/macros.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN

// How many threads a batch call uses (1: the calling thread only). Starting
// a thread costs tens of microseconds, so each one is given at least
// `min_values` values to read and write (instances times the values each
// reads and writes); smaller batches use fewer threads.
struct threads {
  static constexpr std::size_t default_min_values = std::size_t(1) << 18;
  unsigned count = 1;
  std::size_t min_values = default_min_values;
  // Ensembles (solve/host.hpp): trajectories of explicit methods several at a
  // time in SIMD lanes; false: one trajectory at a time.
  bool simd_lanes = true;
  constexpr threads() = default;
  constexpr explicit threads(unsigned n, std::size_t min_values_per_thread = default_min_values)
      : count(n > 0 ? n : 1), min_values(min_values_per_thread) {}
};

FLUXION_HOST_ABI_END
}  // namespace fluxion::host
