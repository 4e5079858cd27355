#pragma once
// Outputs of an ensemble integration in buffers the caller owns, the same
// for the host (fluxion::host::integrate) and the GPU (fluxion::cuda::
// integrate; there device memory): saved states [save][state][trajectory],
// final states [state][trajectory], one status and (optionally: an empty
// span records none) one statistics record per trajectory, and (optionally)
// the time each crossing event first fired, [crossing][trajectory] (NaN:
// never). Each is checked
// for its size and apart from the inputs and the other outputs before any
// work (fluxion::layout_error).
//
//   fx::ensemble_buffers<double> out{saved, final_state, status, stats};
#include <cstddef>
#include <span>

#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct ensemble_buffers {
  std::span<T> saved;                       // save_times.size() * n_states * count values
  std::span<T> final_state;                 // n_states * count values
  std::span<solve_status> status;           // count values
  std::span<solve_statistics> stats = {};   // count values, or empty
  std::span<T> crossing_times = {};         // [crossing][trajectory], crossings.size() * count values, or empty
};

namespace detail {

// An integration's buffers, checked (exec/check.hpp says how bundles work).
template <class T>
struct checked_ensemble {
  checked_buffer<const T> x0, p;
  checked_buffer<T> saved, final_state;
  checked_buffer<solve_status> status;
  checked_buffer<solve_statistics> stats;  // no bytes when none are recorded
  bool with_stats;
  checked_buffer<T> crossing_times;  // no bytes when none are recorded

  template <class F>
  void each(F&& f) const {
    if (with_stats) f("statistics", stats);
    if (crossing_times.data) f("crossing times", crossing_times);
    f("initial state", x0);
    f("parameter", p);
    f("saved states", saved);
    f("final state", final_state);
    f("status", status);
  }
};

// The inputs of `count` trajectories of n states and n_params parameters and
// the outputs for n_save save times, each checked, the outputs apart from
// the inputs and from each other (absent statistics overlap nothing).
template <class T>
checked_ensemble<T> check_ensemble(std::size_t n, std::size_t n_params, std::size_t n_save, std::size_t count,
                                   const batch<const T>& x0, const batch<const T>& p, const ensemble_buffers<T>& out,
                                   std::size_t n_crossings = 0) {
  const bool with_stats = !out.stats.empty();
  const bool with_crossings = !out.crossing_times.empty();
  checked_ensemble<T> c{
      check_buffer("initial state", x0, n, count, false),
      check_buffer("parameter", p, n_params, count, false),
      check_buffer("saved states", batch<T>{out.saved, batch_order::soa}, n_save * n, count, true),
      check_buffer("final state", batch<T>{out.final_state, batch_order::soa}, n, count, true),
      check_buffer("status", batch<solve_status>{out.status, batch_order::soa}, 1, count, true),
      with_stats ? check_buffer("statistics", batch<solve_statistics>{out.stats, batch_order::soa}, 1, count, true)
                 : checked_buffer<solve_statistics>{nullptr, 1, 1, 0, 0},
      with_stats,
      with_crossings
          ? check_buffer("crossing times", batch<T>{out.crossing_times, batch_order::soa}, n_crossings, count, true)
          : checked_buffer<T>{nullptr, 1, 1, 0, 0}};
  check_outputs_apart({{"initial state", c.x0}, {"parameter", c.p}},
                      {{"statistics", c.stats}, {"status", c.status}, {"saved states", c.saved},
                       {"final state", c.final_state}, {"crossing times", c.crossing_times}});
  return c;
}

}  // namespace detail

}  // namespace fluxion
