#pragma once
// Outputs of a log-density in buffers the caller owns, the same for the host
// (fluxion::host::log_density) and the GPU (fluxion::cuda::log_density;
// there device memory): value[b]; gradients [column][trajectory] (the
// parameters, then the initial states; an empty span asks for the value
// alone); status[b]; optionally (an empty span records none) statistics.
// Each is checked for its size and apart from the inputs and the other
// outputs before any work (fluxion::layout_error).
//
//   fx::log_density_buffers<double> out{value, gradients, status};
#include <cstddef>
#include <span>

#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct log_density_buffers {
  std::span<T> value;                      // count values
  std::span<T> gradients;                  // (n_params + n_states) * count values, or empty: value only
  std::span<solve_status> status;          // count values
  std::span<solve_statistics> stats = {};  // count values, or empty
};

namespace detail {

// A log-density's buffers, checked (exec/check.hpp says how bundles work).
template <class T>
struct checked_log_density {
  checked_buffer<const T> x0, p;
  checked_buffer<T> value, gradients;  // gradients: no bytes for the value alone
  checked_buffer<solve_status> status;
  checked_buffer<solve_statistics> stats;  // no bytes when none are recorded
  bool gradient, with_stats;

  template <class F>
  void each(F&& f) const {
    if (gradient) f("gradient", gradients);
    if (with_stats) f("statistics", stats);
    f("initial state", x0);
    f("parameter", p);
    f("log-density", value);
    f("status", status);
  }
};

// The inputs of `count` trajectories of n states and n_params parameters and
// the outputs (the gradient's n_params + n_states columns when asked for),
// each checked, the outputs apart from the inputs and from each other
// (absent ones overlap nothing).
template <class T>
checked_log_density<T> check_log_density_buffers(std::size_t n, std::size_t n_params, std::size_t count,
                                                 const batch<const T>& x0, const batch<const T>& p,
                                                 const log_density_buffers<T>& out) {
  const bool gradient = !out.gradients.empty(), with_stats = !out.stats.empty();
  checked_log_density<T> c{
      check_buffer("initial state", x0, n, count, false),
      check_buffer("parameter", p, n_params, count, false),
      check_buffer("log-density", batch<T>{out.value, batch_order::soa}, 1, count, true),
      gradient ? check_buffer("gradient", batch<T>{out.gradients, batch_order::soa}, n_params + n, count, true)
               : checked_buffer<T>{nullptr, 1, 1, 0, 0},
      check_buffer("status", batch<solve_status>{out.status, batch_order::soa}, 1, count, true),
      with_stats ? check_buffer("statistics", batch<solve_statistics>{out.stats, batch_order::soa}, 1, count, true)
                 : checked_buffer<solve_statistics>{nullptr, 1, 1, 0, 0},
      gradient,
      with_stats};
  check_outputs_apart({{"initial state", c.x0}, {"parameter", c.p}},
                      {{"statistics", c.stats}, {"status", c.status}, {"log-density", c.value},
                       {"gradient", c.gradients}});
  return c;
}

}  // namespace detail

}  // namespace fluxion
