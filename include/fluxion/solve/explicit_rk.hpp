#pragma once
// The step of an explicit Runge-Kutta pair with a continuous extension (a
// tableau such as fx::tsit5 or fx::vern7), for solve/driver.hpp: stages with
// the coefficients as constants (every index a template argument, the zero
// ones left out at compile time).
//
// A tableau gives stages, order, error_order, first_same_as_last, c, a, b
// (the solution's weights), e (b minus the embedded solution's weights) and
// dense_weights(theta, w). Optionally dense_stages > stages: the continuous
// extension also weighs extra stages (rows stages.. of c and a), computed
// only for a step with a save time inside it (prepare_dense). The first
// stage of a step is f(t, y):
//   - first same as last (Tsit5): the last stage is f at the new point, and
//     the next step starts from it;
//   - otherwise (Vern7): accepting a step evaluates f at the new point,
//     unless the step's first extra stage already did (c = 1, a = b: Vern7's
//     interpolant), when a save time fell inside it.
//
// The step is written once over its value type V (solve/values.hpp): T for
// one trajectory, where it is the fx::adaptive_step of the driver (begin,
// attempt, accept, prepare_dense, dense), and fluxion::lanes<T, W> for W
// trajectories in the host's SIMD lanes, where lane_explicit_step
// (solve/lane_steps.hpp) adds what the lanes' ensemble asks. Both run the
// same trial (the stages, the new state and its error), prepare_dense and
// dense, the last two for one lane w at a time.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/error_norm.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion {

namespace detail {

template <class Method>
constexpr int dense_stages_of() {
  if constexpr (requires { Method::dense_stages; }) return Method::dense_stages;
  else return Method::stages;
}

// Row R of a tableau: a[R] for R >= 0, b for rk_solution_row, e for
// rk_error_row; a scalar constant, so that device code reads its value (it
// may not take the address of a host constant).
inline constexpr int rk_solution_row = -1;
inline constexpr int rk_error_row = -2;
template <class Method, int R, int J>
inline constexpr double rk_coefficient = R == rk_solution_row ? Method::b[J]
                                         : R == rk_error_row  ? Method::e[J]
                                                              : Method::a[R < 0 ? 0 : R][J];

// The columns J < End of row R with a nonzero coefficient, in order.
template <class Seq, int J, bool Keep>
struct rk_append_if {
  using type = Seq;
};
template <int... Js, int J>
struct rk_append_if<std::integer_sequence<int, Js...>, J, true> {
  using type = std::integer_sequence<int, Js..., J>;
};
template <class Method, int R, int End, int J = 0, class Acc = std::integer_sequence<int>>
struct rk_nonzero_columns
    : rk_nonzero_columns<Method, R, End, J + 1,
                         typename rk_append_if<Acc, J, (rk_coefficient<Method, R, J> != 0.0)>::type> {};
template <class Method, int R, int End, class Acc>
struct rk_nonzero_columns<Method, R, End, End, Acc> {
  using type = Acc;
};

// Whether the first extra stage is f at the new point: c = 1 and a = b.
template <class Method>
constexpr bool rk_extra_stage_is_new_point() {
  constexpr int S = Method::stages;
  if constexpr (dense_stages_of<Method>() <= S) {
    return false;
  } else {
    if (Method::c[S] != 1.0) return false;
    for (int j = 0; j < S; ++j)
      if (Method::a[S][j] != Method::b[j]) return false;
    return true;
  }
}

// Whether accepting a step may reuse that stage as the next step's first
// (a pair that is first same as last has the new point's f already).
template <class Method>
constexpr bool rk_reuses_new_point() {
  return !Method::first_same_as_last && rk_extra_stage_is_new_point<Method>();
}

// For a pair that reuses it: whether this step computed f at the new point,
// and at which time, lane by lane (nothing otherwise).
template <class T, bool Used, std::size_t W>
struct rk_new_point_stage {};
template <class T, std::size_t W>
struct rk_new_point_stage<T, true, W> {
  bool ready[W] = {};
  T time[W] = {};
};

}  // namespace detail

template <class Method, class M, class V = typename M::scalar>
struct explicit_rk_step : detail::rk_new_point_stage<typename M::scalar, detail::rk_reuses_new_point<Method>(),
                                                     detail::step_values<V>::width> {
  using values = detail::step_values<V>;
  using T = typename M::scalar;
  using cell = typename values::cell;
  static constexpr int n = int(M::n_states);
  static constexpr int S = Method::stages;
  static constexpr int D = detail::dense_stages_of<Method>();  // stages the dense output weighs, S of them the step's
  static constexpr int order = Method::order;
  static constexpr int error_order = Method::error_order;
  static constexpr double max_growth = 10.0;
  static constexpr bool fsal = Method::first_same_as_last;
  static constexpr bool reuse_new_point = detail::rk_reuses_new_point<Method>();
  static_assert(D >= S, "fluxion::explicit_rk_step: a tableau's dense_stages counts its stages and the extra ones.");

  cell k[D][n];  // k[0] = f(t, y); first same as last: k[S-1] = f(t + h, y_new) after an attempt

  FLUXION_HOST_DEVICE cell* f_at_start() { return k[0]; }
  FLUXION_HOST_DEVICE cell* scratch() { return k[1]; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, k[0], 1);
    ++st.rhs_evaluations;
    // The extra stages are written (prepare_dense) before dense() reads them,
    // which the compiler cannot see: defined from the start.
    for (int j = S; j < D; ++j)
      for (int i = 0; i < n; ++i) k[j][i] = T(0);
  }

  // sum_J R[J] k[J][i] over the columns J of row R whose coefficient is not
  // zero: in every lane (U = V) or in lane w alone (U = T). Sums start from
  // -0.0, which adding leaves every value as it is, so the compiler drops it
  // (0.0 + x is +0 for x = -0, an addition it must keep).
  template <int R, class U = V, int... J>
  FLUXION_HOST_DEVICE U combination(int i, std::size_t w, std::integer_sequence<int, J...>) const {
    return (U(T(-0.0)) + ... + (U(T(detail::rk_coefficient<Method, R, J>)) * values::template at<U>(k[J][i], w)));
  }
  template <int R, int End>
  using nonzero = typename detail::rk_nonzero_columns<Method, R, End>::type;

  // Stage I's input: out = y + h sum_{J < I} a[I][J] k[J] (U and w as above;
  // out: cells for every lane, values for one).
  template <int I, class U, class Out>
  FLUXION_HOST_DEVICE void stage_input(U h, const cell* y, Out* out, std::size_t w = 0) const {
    for (int i = 0; i < n; ++i)
      values::store(out[i], values::template at<U>(y[i], w) + h * combination<I, U>(i, w, nonzero<I, I>{}));
  }
  template <int... J>
  FLUXION_HOST_DEVICE T weighted_at(const T* wt, int i, std::size_t w, std::integer_sequence<int, J...>) const {
    return (T(-0.0) + ... + (wt[J] * values::lane(k[J][i], w)));
  }

  // Stages Stage .. To-1 at (t, y) with step h, each one's input built in
  // `in`: in every lane (t and h of type V), or in lane w alone (of type T).
  template <int Stage, int To, class U, class In>
  FLUXION_HOST_DEVICE void stages(const M& m, const T* p, std::ptrdiff_t ps, U t, U h, const cell* y, In* in,
                                  std::size_t w = 0) {
    if constexpr (Stage < To) {
      stage_input<Stage>(h, y, in, w);
      if constexpr (std::is_same_v<U, V>) values::rhs(m, t + U(T(Method::c[Stage])) * h, in, p, ps, k[Stage]);
      else values::lane_rhs(m, t + T(Method::c[Stage]) * h, in, 1, p, ps, w, k[Stage]);
      stages<Stage + 1, To>(m, p, ps, t, h, y, in, w);
    }
  }

  // An attempt's arithmetic, in every lane: the stages, y_new = y + h sum_J
  // b_J k_J, and the squares of its error h sum_J e_J k_J (detail::step_error:
  // n err^2, NaN when not finite).
  FLUXION_HOST_DEVICE V trial(const M& m, const ode_options<T>& o, V t, V h, const cell* y, cell* ynew, const T* p,
                              std::ptrdiff_t ps) {
    if constexpr (reuse_new_point)
      for (std::size_t w = 0; w < values::width; ++w) this->ready[w] = false;
    stages<1, S>(m, p, ps, t, h, y, ynew);  // first same as last: the last stage's input is y_new
    detail::step_error<V> err;
    for (int i = 0; i < n; ++i) {
      values::store(ynew[i], values::load(y[i]) + h * combination<detail::rk_solution_row>(
                                                          i, 0, nonzero<detail::rk_solution_row, S>{}));
      err.add(o, i, h * combination<detail::rk_error_row>(i, 0, nonzero<detail::rk_error_row, S>{}),
              values::load(y[i]), values::load(ynew[i]));
    }
    return err.squares();
  }
  // What an attempt costs one trajectory (lane w's).
  FLUXION_HOST_DEVICE static void count_attempt(solve_statistics& st, std::size_t = 0) { st.rhs_evaluations += S - 1; }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    const T err = trial(m, o, t, h, y, ynew, p, ps);
    count_attempt(st);
    return err;
  }

  // An accepted step with a save time inside it, before dense(): the
  // continuous extension's extra stages, lane w's (a pair without any has no
  // prepare_dense, and the driver calls none).
  FLUXION_HOST_DEVICE void prepare_dense(const M& m, T t, T h, const cell* y, const cell* ynew, const T* p,
                                         std::ptrdiff_t ps, solve_statistics& st, std::size_t w = 0)
    requires(D > S)
  {
    T in[n];
    if constexpr (reuse_new_point) {  // f at the new point, the next step's first stage
      this->time[w] = t + h;
      this->ready[w] = true;
      values::lane_rhs(m, this->time[w], values::lane_data(ynew, w), values::lane_stride, p, ps, w, k[S]);
      stages<S + 1, D>(m, p, ps, t, h, y, in, w);
    } else {
      stages<S, D>(m, p, ps, t, h, y, in, w);
    }
    st.rhs_evaluations += D - S;
  }

  // First same as last: the next step's first stage is this one's last (lane w's).
  FLUXION_HOST_DEVICE void carry_last_stage(std::size_t w) {
    for (int i = 0; i < n; ++i) values::lane(k[0][i], w) = values::lane(k[S - 1][i], w);
  }
  // Whether lane w's accepted step, now at t, computed f there among its
  // extra stages (the next step's first stage).
  FLUXION_HOST_DEVICE bool computed_new_point(std::size_t w, T t) const {
    if constexpr (reuse_new_point) return this->ready[w] && this->time[w] == t;
    else return false;
  }

  // f at the accepted point (t, y) for the next step.
  FLUXION_HOST_DEVICE void accept(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    if constexpr (fsal) {
      carry_last_stage(0);
    } else {
      if (computed_new_point(0, t)) {
        for (int i = 0; i < n; ++i) k[0][i] = k[S][i];
        return;
      }
      m.rhs(t, y, 1, p, ps, k[0], 1);
      ++st.rhs_evaluations;
    }
  }

  // Component i at t + theta h within the step (lane w's).
  FLUXION_HOST_DEVICE T dense(T theta, T h, const cell* y, const cell*, int i, std::size_t w = 0) const {
    T wt[D];
    Method::dense_weights(theta, wt);
    return values::lane(y[i], w) + h * weighted_at(wt, i, w, std::make_integer_sequence<int, D>{});
  }
};

// The integrator of one trajectory for each method: explicit pairs by
// default; rosenbrock.hpp adds the stiff methods.
template <class Method, class M>
struct stepper_of {
  using type = adaptive_driver<explicit_rk_step<Method, M>, M>;
};

}  // namespace fluxion
