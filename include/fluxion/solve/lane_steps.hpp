#pragma once
// The steps of the methods in the host's SIMD lanes, for the lanes'
// ensemble (solve/lane_ensemble.hpp), and which methods and models run
// there (lane_integrable). Host only.
#include <cstddef>
#include <type_traits>

#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/lane_lu.hpp>
#include <fluxion/solve/lane_values.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/rosenbrock_tableaus.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

// Explicit pairs the lanes integrate (explicit_rk_step's tableaus: Tsit5,
// first same as last; Vern7, with extra stages for its dense output).
template <class Method>
concept lane_explicit_method = requires(double th, double* w) {
  Method::dense_weights(th, w);
  Method::a[0][0];
  Method::first_same_as_last;
};

// Whether model M evaluates its right-hand side in SIMD lanes with a time
// per lane (compiled models do; an augmented system such as
// sensitivity_system does not, and its trajectories run one at a time).
template <class M>
concept lane_evaluable = std::is_floating_point_v<typename M::scalar> &&
                         requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
                           m.template rhs_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1,
                                                                            out, 1);
                         };

// Whether M also gives its Jacobian and d rhs / dt in lanes (compiled
// models do).
template <class M>
concept lane_linearizable =
    lane_evaluable<M> && requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
      m.template jacobian_dense_lanes<M::jacobian::x>(lanes<typename M::scalar>{}, x, 1, x, 1, out);
      m.template rhs_dt_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1, out, 1);
    };

// Whether fx::host::integrate runs Method on M in lanes.
template <class Method, class M>
concept lane_integrable =
    lane_evaluable<M> &&
    (lane_explicit_method<Method> ||
     ((std::is_same_v<Method, rosenbrock23> || std::is_same_v<Method, rodas5p>) && lane_linearizable<M>));

namespace detail {

// A method's step over lanes (V = lanes<T, W>: explicit_rk_step,
// rosenbrock23_step, rodas_step, the same bodies as one trajectory's) and
// what a lane_ensemble asks of it besides, for all W lanes at once. Arrays
// are element-major with the lanes consecutive (element i of lane w at
// [i][w], solve/lane_values.hpp).
//   scalar_step                      the one-trajectory step (the starting step comes from its driver)
//   start(w, f0, stats)              lane w begins a trajectory; f0 = f(t0, y0)
//   idle(w)                          lane w has no trajectory
//   attempt(m, o, t, h, y, ynew, p) -> L   every lane's attempt: ynew and n
//                                    err^2 for its error norm err (NaN: not finite)
//   count_attempt(stats, w)          the work the attempt did for lane w
//   accept(w, t, stats)              lane w accepted and goes on from ynew at t
//   prepare_dense(m, t, h, y, ynew, p, ps, stats, w)   optional: before lane w's
//                                    dense output in an accepted step
//   dense(theta, h, y, ynew, i, w)   component i of lane w at t + theta h
// What one trajectory keeps from its last accepted point and a lane does
// not (f(t, y) of a pair that is not first same as last, J of ode23s) is
// evaluated at every attempt, in every lane: at the lane's (t, y), after a
// rejection the same point, hence the same values. The statistics count
// what one trajectory counts.

// An explicit pair (explicit_rk_step). The extra stages of the dense output
// are computed lane by lane, for a lane with a save time inside its step.
template <class Method, class M, class L>
struct lane_explicit_step : explicit_rk_step<Method, M, L> {
  using base = explicit_rk_step<Method, M, L>;
  using typename base::T, typename base::cell, typename base::values;
  using base::n, base::D, base::fsal, base::reuse_new_point;
  using scalar_step = explicit_rk_step<Method, M>;

  void start(std::size_t w, const T* f0, solve_statistics&) {
    for (int i = 0; i < n; ++i) this->k[0][i][w] = f0[i];
    if constexpr (reuse_new_point) this->ready[w] = false;
  }
  void idle(std::size_t w) {
    for (int j = 0; j < D; ++j)
      for (int i = 0; i < n; ++i) this->k[j][i][w] = T(0);
    if constexpr (reuse_new_point) this->ready[w] = false;
  }
  // Not first same as last (Vern7): f(t, y) first, the value one trajectory
  // computes on accepting (or takes from its first extra stage, computed at
  // the same point).
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    if constexpr (!fsal) values::rhs(m, t, y, p, 0, this->k[0]);
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t w, T t, solve_statistics& st) {
    if constexpr (fsal) this->carry_last_stage(w);
    else if (!this->computed_new_point(w, t)) ++st.rhs_evaluations;  // f there, evaluated at the next attempt
  }
};

// Shampine & Reichelt's ode23s (rosenbrock23_step): J (and df/dt) of every
// lane at its (t, y), one trajectory's from its last accepted point.
template <class M, class L>
struct lane_rosenbrock23_step : rosenbrock23_step<M, L> {
  using base = rosenbrock23_step<M, L>;
  using typename base::T, typename base::cell;
  using base::n;
  using scalar_step = rosenbrock23_step<M>;

  void start(std::size_t w, const T* f0, solve_statistics& st) {
    for (int i = 0; i < n; ++i) this->F0[i][w] = f0[i];
    ++st.jacobian_evaluations;  // begin(): J at (t0, y0), evaluated at the first attempt
  }
  void idle(std::size_t w) {
    for (int i = 0; i < n; ++i) this->F0[i][w] = T(0);
  }
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    this->lin.evaluate(m, t, y, p, 0);
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t w, T, solve_statistics& st) {
    this->carry_new_point(w);
    ++st.jacobian_evaluations;  // J there, evaluated at the next attempt
  }
};

// A stiffly accurate Rodas-type step (rodas_step): f, J and df/dt at every
// attempt, as one trajectory evaluates them.
template <class Method, class M, class L>
struct lane_rodas_step : rodas_step<Method, M, L> {
  using base = rodas_step<Method, M, L>;
  using typename base::T, typename base::cell;
  using scalar_step = rodas_step<Method, M>;

  void start(std::size_t, const T*, solve_statistics& st) { ++st.jacobian_evaluations; }
  void idle(std::size_t) {}
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t, T, solve_statistics& st) { base::count_accept(st); }
};

template <class Method, class M, class L>
struct lane_step_of {
  using type = lane_explicit_step<Method, M, L>;
};
template <class M, class L>
struct lane_step_of<rosenbrock23, M, L> {
  using type = lane_rosenbrock23_step<M, L>;
};
template <class M, class L>
struct lane_step_of<rodas5p, M, L> {
  using type = lane_rodas_step<rodas5p, M, L>;
};

}  // namespace detail

}  // namespace fluxion
