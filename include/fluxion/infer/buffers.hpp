#pragma once
// Outputs of a log-density in buffers the caller owns, the same for the host
// (fluxion::host::log_density) and the GPU (fluxion::cuda::log_density;
// there device memory): value[b]; gradients [column][trajectory] (the
// parameters, then the initial states; an empty span asks for the value
// alone); status[b]; optionally (an empty span records none) statistics,
// each series' log-likelihood [series][trajectory] (its terms summed, no
// priors) and each observation's term [observation][trajectory], the
// observations in the order of the data: series 0's values, then series
// 1's (with a value per save time each: [series][save time][trajectory]);
// 0 where the mask says missing. A trajectory that fails has -inf in all of
// them, as in its value. Each is checked for its size and apart from the
// inputs and the other outputs before any work (fluxion::layout_error).
//
//   fx::log_density_buffers<double> out{value, gradients, status};
//   fx::log_density_buffers<double> out{.value = v, .gradients = g, .status = st, .series_values = per_series};
#include <cstddef>
#include <span>

#include <fluxion/config/macros.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/math/scalar.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct log_density_buffers {
  std::span<T> value;                      // count values
  std::span<T> gradients;                  // (n_params + n_states) * count values, or empty: value only
  std::span<solve_status> status;          // count values
  std::span<solve_statistics> stats = {};  // count values, or empty
  std::span<T> series_values = {};         // n_series * count values, or empty
  std::span<T> observation_values = {};    // (every series' values) * count values, or empty
};

// Where a trajectory's terms go, when asked: series k at series[k stride],
// the observation at `place` among all series' (series_view::first_term
// plus its data index) at observations[place stride]; null: not asked.
template <class T>
struct term_outputs {
  T* series = nullptr;
  T* observations = nullptr;
  std::ptrdiff_t stride = 0;
  std::size_t n_terms = 0;  // observations of all series

  // Trajectory b's.
  FLUXION_HOST_DEVICE term_outputs at(std::size_t b) const {
    return {series ? series + b : nullptr, observations ? observations + b : nullptr, stride, n_terms};
  }
  // The term of series k at its place: into its series' sum and its place.
  FLUXION_HOST_DEVICE void add(std::size_t k, std::size_t place, T term) const {
    if (series) series[std::ptrdiff_t(k) * stride] += term;
    observation(place, term);
  }
  // Its place alone (a missing value's is 0).
  FLUXION_HOST_DEVICE void observation(std::size_t place, T term) const {
    if (observations) observations[std::ptrdiff_t(place) * stride] = term;
  }
  // The n_series series' sums set to 0, before the terms.
  FLUXION_HOST_DEVICE void clear_series(std::size_t n_series) const {
    if (series)
      for (std::size_t k = 0; k < n_series; ++k) series[std::ptrdiff_t(k) * stride] = T(0);
  }
  // Every value set to -inf: a trajectory that failed.
  FLUXION_HOST_DEVICE void fail(std::size_t n_series) const {
    const T v = -math::special::infinity<T>();
    for (std::size_t k = 0; k < n_series; ++k)
      if (series) series[std::ptrdiff_t(k) * stride] = v;
    for (std::size_t place = 0; place < n_terms; ++place) observation(place, v);
  }
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
  checked_buffer<T> series, observations;  // no bytes (a null data) when not asked for
  std::size_t n_terms = 0;

  // The terms' outputs (null where not asked for); element strides: the
  // trajectories' count, both in the soa order.
  term_outputs<T> terms() const {
    return {series.data, observations.data, series.data ? series.element_stride : observations.element_stride,
            n_terms};
  }

  template <class F>
  void each(F&& f) const {
    if (gradient) f("gradient", gradients);
    if (with_stats) f("statistics", stats);
    if (series.data) f("series values", series);
    if (observations.data) f("observation values", observations);
    f("initial state", x0);
    f("parameter", p);
    f("log-density", value);
    f("status", status);
  }
};

// The inputs of `count` trajectories of n states and n_params parameters and
// the outputs (the gradient's n_params + n_states columns when asked for;
// the sums of n_series series and n_terms observations' terms), each checked, the
// outputs apart from the inputs and from each other (absent ones overlap
// nothing).
template <class T>
checked_log_density<T> check_log_density_buffers(std::size_t n, std::size_t n_params, std::size_t count,
                                                 const batch<const T>& x0, const batch<const T>& p,
                                                 const log_density_buffers<T>& out, std::size_t n_series = 0,
                                                 std::size_t n_terms = 0) {
  const bool gradient = !out.gradients.empty(), with_stats = !out.stats.empty();
  const auto optional = [&](const char* name, std::span<T> buffer, std::size_t per_trajectory) {
    if (buffer.empty() || per_trajectory == 0) return checked_buffer<T>{nullptr, 1, 1, 0, 0};
    checked_buffer<T> b = check_buffer(name, batch<T>{buffer, batch_order::soa}, per_trajectory, count, true);
    if (count == 0) b.data = nullptr;  // nothing to write
    return b;
  };
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
      with_stats,
      optional("series values", out.series_values, n_series),
      optional("observation values", out.observation_values, n_terms),
      n_terms};
  check_outputs_apart({{"initial state", c.x0}, {"parameter", c.p}},
                      {{"statistics", c.stats}, {"status", c.status}, {"log-density", c.value},
                       {"gradient", c.gradients}, {"series values", c.series},
                       {"observation values", c.observations}});
  return c;
}

}  // namespace detail

}  // namespace fluxion
