#pragma once
// Ensembles integrated on the host: every trajectory with its own initial
// state, parameters and steps, spread over threads.
//
//   fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = 1e-6, .atol = 1e-6};
//   auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(x0), fx::soa(p));
//   r.saved(s, i, b);       // state i of trajectory b at save time s
//   r.status[b], r.stats[b], r.final_state[i * B + b]
//
// The result's layout is documented and fixed: saved states as save time x
// state x trajectory (trajectory fastest), final states as state x
// trajectory. The same results go into buffers the caller owns, in that
// layout, with an fx::ensemble_buffers (solve/buffers.hpp) after p:
//
//   fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(x0), fx::soa(p),
//                       fx::ensemble_buffers<double>{saved, final_state, status, stats});
//
// Inputs and outputs are checked (fluxion::layout_error) and the problem too
// (fluxion::problem_error) before any work; inputs are never modified.
//
// Trajectories run several at a time in the host's SIMD lanes, each with its
// own steps (solve/host_lanes.hpp: explicit pairs and the Rosenbrock
// methods), and ranges of trajectories across threads; an exec whose
// simd_lanes is false (fx::host::threads exec(n); exec.simd_lanes = false;)
// integrates one trajectory at a time instead.
#include <cstddef>
#if !defined(__CUDACC__)
#  include <memory>  // the lanes' ensemble (not built by nvcc: see integrate)
#endif
#include <span>
#include <type_traits>
#include <vector>

#include <fluxion/exec/host.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/buffers.hpp>
#include <fluxion/solve/concepts.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#if !defined(__CUDACC__)
#  include <fluxion/solve/host_lanes.hpp>
#endif
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/solve/tsit5.hpp>
#include <fluxion/solve/vern7.hpp>

namespace fluxion {

template <class T>
struct ensemble_result {
  std::size_t trajectories = 0;
  std::size_t states = 0;
  std::size_t save_count = 0;
  std::vector<T> saved_states;  // [save][state][trajectory]
  std::vector<T> final_state;   // [state][trajectory]
  std::vector<solve_status> status;
  std::vector<solve_statistics> stats;
  std::vector<T> crossing_times;  // [crossing][trajectory]: the first time each fired, NaN: never

  T saved(std::size_t s, std::size_t i, std::size_t b) const {
    return saved_states[(s * states + i) * trajectories + b];
  }
  T final_value(std::size_t i, std::size_t b) const { return final_state[i * trajectories + b]; }
  T crossing_time(std::size_t k, std::size_t b) const { return crossing_times[k * trajectories + b]; }
  bool all_succeeded() const {
    for (auto s : status)
      if (s != solve_status::success) return false;
    return true;
  }
};

namespace detail {

// The sizes of an ensemble_result of `count` trajectories of n states and
// n_save save times (saved states, final states, statuses, statistics),
// checked before anything is allocated (result_values: a layout_error
// naming the block and the count, not a wrapped product).
struct ensemble_result_sizes {
  std::size_t saved, final_state, status, stats;
};
template <class T>
ensemble_result_sizes checked_ensemble_result_sizes(std::size_t n, std::size_t n_save, std::size_t count) {
  return {result_values<T>("saved states", count, n, n_save), result_values<T>("final state", count, n),
          result_values<solve_status>("status", count, 1), result_values<solve_statistics>("statistics", count, 1)};
}

}  // namespace detail

namespace host {
FLUXION_HOST_ABI_BEGIN

// The same into buffers the caller owns (fluxion::ensemble_buffers, the
// layout above; out.stats may be empty: no statistics recorded). Every
// output is checked (its size, and apart from the inputs and from the other
// outputs) before any work: a refused call writes nothing.
template <class M, class Method>
  requires ode_system<M> && ode_method<Method>
void integrate(const M& m, Method, const ode_problem<typename M::scalar>& pr, std::size_t count,
               batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
               const ensemble_buffers<typename M::scalar>& out, threads exec = threads{}) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states;
  const ode_options<T> o = check_problem(pr, n, M::n_params, fluxion::detail::observable_count_of<M>);
  const auto c = fluxion::detail::check_ensemble<T>(n, M::n_params, o.n_save, count, x0, p, out, o.n_crossings);
  const auto& [cx, cp, cs, cf, cst, cstat, with_stats, ccross] = c;
  if (count == 0) return;

  const auto io_of = [&](std::size_t b) {
    return trajectory_io<T>{cx.data + std::ptrdiff_t(b) * cx.instance_stride,
                            cx.element_stride,
                            cp.data + std::ptrdiff_t(b) * cp.instance_stride,
                            cp.element_stride,
                            o.n_save > 0 ? cs.data + b : nullptr,
                            cs.element_stride,
                            std::ptrdiff_t(n) * cs.element_stride,
                            cf.data + b,
                            cf.element_stride,
                            ccross.data ? ccross.data + b : nullptr,
                            ccross.element_stride};
  };
  // Every path writes each trajectory's saved and final states and its
  // status; statistics count up from zero.
  const auto done = [&](std::size_t b, solve_status s, const solve_statistics& st) {
    cst.data[b] = s;
    if (with_stats) cstat.data[b] = st;
  };
  // An integration costs thousands of right-hand sides a trajectory: a
  // thread pays for itself with far fewer trajectories than an evaluation.
  const std::size_t values_per_trajectory = (n + M::n_params) * 4096;
#if !defined(__CUDACC__)
  if constexpr (lane_integrable<Method, M>) {
    using L = lanes<T>;
    if (exec.simd_lanes && count >= 2 * L::width) {
      detail::for_ranges(count, exec, L::width, values_per_trajectory, [&](std::size_t begin, std::size_t end) {
        auto lanes = std::make_unique<fluxion::detail::lane_ensemble<Method, M, L>>(m, o);
        lanes->run(begin, end, io_of, done);
      });
      return;
    }
  }
#endif
  using stepper = typename stepper_of<Method, M>::type;
  detail::for_ranges(count, exec, 1, values_per_trajectory, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      solve_statistics st{};
      const solve_status s = stepper::run(m, o, io_of(b), st);
      done(b, s, st);
    }
  });
}

// The ensemble in a new ensemble_result: the buffer form above into
// vectors. The problem and the inputs are checked before the vectors are
// allocated (a refused call allocates nothing), then again by that form.
template <class M, class Method>
  requires ode_system<M> && ode_method<Method>
ensemble_result<typename M::scalar> integrate(const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                                              std::size_t count, batch<const typename M::scalar> x0,
                                              batch<const typename M::scalar> p, threads exec = threads{}) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states;
  const ode_options<T> o = check_problem(pr, n, M::n_params, fluxion::detail::observable_count_of<M>);
  check_buffer("initial state", x0, n, count, false);
  check_buffer("parameter", p, M::n_params, count, false);
  const auto sizes = fluxion::detail::checked_ensemble_result_sizes<T>(n, o.n_save, count);
  const std::size_t crossing_values = result_values<T>("crossing times", count, o.n_crossings);

  ensemble_result<T> r;
  r.trajectories = count;
  r.states = n;
  r.save_count = o.n_save;
  if (count == 0) return r;
  r.saved_states.assign(sizes.saved, T(0));
  r.final_state.assign(sizes.final_state, T(0));
  r.status.assign(sizes.status, solve_status::success);
  r.stats.assign(sizes.stats, solve_statistics{});
  r.crossing_times.assign(crossing_values, T(0));
  integrate(m, method, pr, count, x0, p,
            ensemble_buffers<T>{std::span<T>(r.saved_states), std::span<T>(r.final_state),
                                std::span<solve_status>(r.status), std::span<solve_statistics>(r.stats),
                                std::span<T>(r.crossing_times)},
            exec);
  return r;
}

// A model or method that is not one: one sentence naming the concept
// (solve/concepts.hpp) instead of errors from inside the integrator.
// (Its return type is deduced, so that the sentence comes first, before
// any error about the use of the result.)
template <class M, class Method, class... Rest>
  requires(!ode_system<M> || !ode_method<Method>)
auto integrate(const M&, Method, Rest&&...) {
  return fluxion::detail::require_integration<M, Method>();
}

FLUXION_HOST_ABI_END
}  // namespace host

}  // namespace fluxion
