#pragma once
// The steps of the Rosenbrock methods (rosenbrock_tableaus.hpp) for
// solve/driver.hpp. Each uses the model's exact Jacobian d rhs / d state
// (evaluated once per accepted point, kept through rejections) and, for
// models that read t, its exact partial derivative in time (rhs_dt; zero
// and skipped at compile time for autonomous models). The iteration matrix
// is factored by one thread, dense with partial pivoting or by the state
// Jacobian's sparse pattern (solve/iteration_matrix.hpp): the limit is the
// thread's memory, checked where a launcher instantiates it.
//
// Each step is written once over its value type V (solve/values.hpp): T for
// one trajectory, where it is the fx::adaptive_step of the driver, and
// fluxion::lanes<T, W> for W trajectories in the host's SIMD lanes, where
// solve/lane_steps.hpp adds what the lanes' ensemble asks. Both run the same
// trial (the linearization's factorization, the stage solves, the new state
// and its error; a lane whose matrix is singular gets NaN, as one
// trajectory alone), count its work the same way (count_attempt) and
// interpolate with the same dense(), one lane w at a time.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/iteration_matrix.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/error_norm.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/rosenbrock_tableaus.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion {

namespace detail {

// J and, for non-autonomous models, df/dt at (t, y), in every lane.
template <class M, class V>
struct linearization {
  using values = step_values<V>;
  using T = typename values::scalar;
  using cell = typename values::cell;
  static constexpr int N = int(M::n_states);
  static constexpr bool autonomous = M::autonomous;
  static constexpr bool sparse = is_sparse_lu<iteration_lu<M, V>>;
  // One trajectory with a sparse W keeps J's structural non-zeros alone,
  // in CSR order (the pattern's); lanes keep J dense (row-major).
  static constexpr bool csr = sparse && std::is_same_v<cell, V>;
  static constexpr std::size_t jacobian_cells = csr ? state_jacobian_pattern<M>.nnz : std::size_t(N) * N;
  cell J[jacobian_cells > 0 ? jacobian_cells : 1];
  cell dT[autonomous ? 1 : N];
  FLUXION_HOST_DEVICE void evaluate(const M& m, V t, const cell* y, const T* p, std::ptrdiff_t ps) {
    if constexpr (csr) m.template jacobian_values<M::jacobian::x>(t, y, 1, p, ps, J, 1);
    else values::jacobian(m, t, y, p, ps, J);
    if constexpr (!autonomous) values::rhs_dt(m, t, y, p, ps, dT);
  }
  FLUXION_HOST_DEVICE void at(const M& m, V t, const cell* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    evaluate(m, t, y, p, ps);
    ++st.jacobian_evaluations;
  }
  FLUXION_HOST_DEVICE V time_term(int i) const {
    if constexpr (autonomous) return V(T(0));
    else return values::load(dT[i]);
  }
  // x + coefficient df_i/dt: x itself for an autonomous model (no arithmetic on a zero).
  FLUXION_HOST_DEVICE V plus_time_term(V x, V coefficient, int i) const {
    if constexpr (autonomous) return x;
    else return x + coefficient * values::load(dT[i]);
  }
  // W = diag - J, factored (solve/iteration_matrix.hpp); whether it is
  // regular (lane by lane).
  template <class LU>
  FLUXION_HOST_DEVICE typename values::truth factor(LU& W, V diag) const {
    if constexpr (csr) {
      W.assign(diag, [this](int, int, int e) { return J[e]; });
    } else if constexpr (sparse) {
      W.assign(diag, [this](int r, int c, int) { return values::load(J[r * N + c]); });
    } else {
      for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c)
          W.a[r][c] = r == c ? diag - values::load(J[r * N + c]) : -values::load(J[r * N + c]);
    }
    return W.factor();
  }
};

// What stage I of a Rodas-type method adds to f(t + c_I h, u_I) before its
// solve: sum_J C[I][J] / h k_J + h d_I df/dt, with only the terms that are
// not zero at compile time (a term that is, 0 times a value, is still
// arithmetic the compiler must do). V: T, or lanes of T.
template <class Method, int I, bool Autonomous, class T, class V, class Coupling, class TimeTerm>
FLUXION_HOST_DEVICE V rodas_stage_input(V f, V inv_h, V h, const Coupling& coupling, const TimeTerm& time_term) {
  constexpr bool coupled = I > 0, timed = !Autonomous && Method::d[I] != 0.0;
  if constexpr (coupled && timed) return f + (inv_h * coupling() + h * V(T(Method::d[I])) * time_term());
  else if constexpr (coupled) return f + inv_h * coupling();
  else if constexpr (timed) return f + h * V(T(Method::d[I])) * time_term();
  else return f;
}

}  // namespace detail

// Shampine & Reichelt's ode23s step. W = I / (gamma h) - J: the paper's
// I - gamma h J divided by gamma h, so that every solve below is theirs
// divided by gamma h as well. J (and df/dt) are those of the last accepted
// point, f(t, y) is F0: the last accepted step's F2.
template <class M, class V = typename M::scalar>
struct rosenbrock23_step {
  using values = detail::step_values<V>;
  using T = typename M::scalar;
  using cell = typename values::cell;
  static constexpr int n = int(M::n_states);
  static constexpr int order = rosenbrock23::order;
  static constexpr int error_order = rosenbrock23::error_order;
  static constexpr double max_growth = rosenbrock23::max_growth;

  detail::linearization<M, V> lin;
  detail::iteration_lu<M, V> W;
  cell F0[n], F1[n], F2[n], k1[n], k2[n], k3[n];
  typename values::truth regular;  // whether the last trial's W was regular (lane by lane)

  FLUXION_HOST_DEVICE cell* f_at_start() { return F0; }
  FLUXION_HOST_DEVICE cell* scratch() { return k3; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, F0, 1);
    ++st.rhs_evaluations;
    lin.at(m, t, y, p, ps, st);
  }

  // An attempt's arithmetic, in every lane: the three stages, y_new and the
  // squares of its error (NaN where W is singular).
  FLUXION_HOST_DEVICE V trial(const M& m, const ode_options<T>& o, V t, V h, const cell* y, cell* ynew, const T* p,
                              std::ptrdiff_t ps) {
    const V gamma = V(T(rosenbrock23::gamma)), e32 = V(T(rosenbrock23::e32));
    const V gh = gamma * h, inv_gh = V(T(1)) / gh;
    regular = lin.factor(W, inv_gh);
    if (!values::any(regular)) return V(detail::quiet_nan<T>());
    // (I - gh J) k = r  <=>  (I/gh - J) k = r / gh.
    for (int i = 0; i < n; ++i) values::store(k1[i], lin.plus_time_term(values::load(F0[i]), gh, i) * inv_gh);
    values::solve(W, k1);
    for (int i = 0; i < n; ++i) values::store(ynew[i], values::load(y[i]) + V(T(0.5)) * h * values::load(k1[i]));
    values::rhs(m, t + V(T(0.5)) * h, ynew, p, ps, F1);
    for (int i = 0; i < n; ++i) values::store(k2[i], (values::load(F1[i]) - values::load(k1[i])) * inv_gh);
    values::solve(W, k2);
    for (int i = 0; i < n; ++i) {
      const V k2i = values::load(k2[i]) + values::load(k1[i]);
      values::store(k2[i], k2i);
      values::store(ynew[i], values::load(y[i]) + h * k2i);
    }
    values::rhs(m, t + h, ynew, p, ps, F2);
    for (int i = 0; i < n; ++i) {
      const V r = values::load(F2[i]) - e32 * (values::load(k2[i]) - values::load(F1[i])) -
                  V(T(2)) * (values::load(k1[i]) - values::load(F0[i]));
      values::store(k3[i], lin.plus_time_term(r, gh, i) * inv_gh);
    }
    values::solve(W, k3);
    detail::step_error<V> err;
    for (int i = 0; i < n; ++i) {
      const V e = h / V(T(6)) * (values::load(k1[i]) - V(T(2)) * values::load(k2[i]) + values::load(k3[i]));
      err.add(o, i, e, values::load(y[i]), values::load(ynew[i]));
    }
    return detail::choose(regular, err.squares(), V(detail::quiet_nan<T>()));
  }
  // What the last attempt cost one trajectory (lane w's).
  FLUXION_HOST_DEVICE void count_attempt(solve_statistics& st, std::size_t w = 0) const {
    ++st.factorizations;
    if (values::test(regular, w)) st.rhs_evaluations += 2;
  }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    const T err = trial(m, o, t, h, y, ynew, p, ps);
    count_attempt(st);
    return err;
  }

  // f at the new point, F2, is the next step's F0 (lane w's).
  FLUXION_HOST_DEVICE void carry_new_point(std::size_t w) {
    for (int i = 0; i < n; ++i) values::lane(F0[i], w) = values::lane(F2[i], w);
  }

  FLUXION_HOST_DEVICE void accept(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    carry_new_point(0);
    lin.at(m, t, y, p, ps, st);
  }

  // The free interpolant of ode23s: y + h (b1 k1 + b2 k2) (lane w's).
  FLUXION_HOST_DEVICE T dense(T theta, T h, const cell* y, const cell*, int i, std::size_t w = 0) const {
    constexpr T gamma = T(rosenbrock23::gamma);
    const T b1 = theta * (T(1) - theta) / (T(1) - T(2) * gamma);
    const T b2 = theta * (theta - T(2) * gamma) / (T(1) - T(2) * gamma);
    return values::lane(y[i], w) + h * (b1 * values::lane(k1[i], w) + b2 * values::lane(k2[i], w));
  }
};

// A stiffly accurate Rodas-type step in the W-transformed form (Hairer &
// Wanner II, IV.7), as for fx::rodas5p. f(t, y), J and df/dt are evaluated
// at the start of every attempt, at (t, y): after a rejection the same point,
// hence the same values, so nothing of them is kept from one attempt to the
// next. On a GPU that frees a thread's registers for the stages (Robertson
// in double, ptxas for sm_90: 142 registers against 158 when J and f were
// kept), for one more f and J per rejected step. The statistics count the
// method's evaluations, one f and one J per accepted point, in lanes as for
// one trajectory.
template <class Method, class M, class V = typename M::scalar>
struct rodas_step {
  using values = detail::step_values<V>;
  using T = typename M::scalar;
  using cell = typename values::cell;
  static constexpr int n = int(M::n_states);
  static constexpr int S = Method::stages;
  static constexpr int order = Method::order;
  static constexpr int error_order = Method::error_order;
  static constexpr double max_growth = Method::max_growth;

  detail::linearization<M, V> lin;
  detail::iteration_lu<M, V> W;
  cell k[S][n];
  typename values::truth regular;  // whether the last trial's W was regular (lane by lane)

  // f(t0, y0) for the driver's starting step; the first attempt evaluates it again.
  FLUXION_HOST_DEVICE cell* f_at_start() { return k[0]; }
  FLUXION_HOST_DEVICE cell* scratch() { return k[1]; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, k[0], 1);
    ++st.rhs_evaluations;
    ++st.jacobian_evaluations;  // J at (t0, y0), evaluated at the first attempt
  }

  // u = y + sum_{J < I} a[I][J] k[J]
  template <int I, int... J>
  FLUXION_HOST_DEVICE void stage_input(const cell* y, cell* u, std::integer_sequence<int, J...>) const {
    for (int i = 0; i < n; ++i)
      values::store(u[i], values::load(y[i]) + (V(T(-0.0)) + ... + (V(T(Method::a[I][J])) * values::load(k[J][i]))));
  }
  template <int I, int... J>
  FLUXION_HOST_DEVICE V coupling([[maybe_unused]] int i, std::integer_sequence<int, J...>) const {
    return (V(T(-0.0)) + ... + (V(T(Method::C[I][J])) * values::load(k[J][i])));
  }
  template <int R, int... J>
  FLUXION_HOST_DEVICE T dense_term(int i, std::size_t w, std::integer_sequence<int, J...>) const {
    return (T(-0.0) + ... + (T(Method::H[R][J]) * values::lane(k[J][i], w)));
  }

  // Stage I: k_I = W^-1 (f(t + c_I h, u_I) + sum_J C[I][J] / h k_J + h d_I df/dt).
  template <int I = 0>
  FLUXION_HOST_DEVICE void stages(const M& m, V t, V h, const cell* y, cell* u, const T* p, std::ptrdiff_t ps) {
    if constexpr (I < S) {
      if constexpr (I == 0) {
        values::rhs(m, t, y, p, ps, k[0]);  // f(t, y)
      } else {
        stage_input<I>(y, u, std::make_integer_sequence<int, I>{});
        values::rhs(m, t + V(T(Method::c[I])) * h, u, p, ps, k[I]);
      }
      const V inv_h = V(T(1)) / h;
      for (int i = 0; i < n; ++i)
        values::store(k[I][i], detail::rodas_stage_input<Method, I, M::autonomous, T>(
                                   values::load(k[I][i]), inv_h, h,
                                   [&] { return coupling<I>(i, std::make_integer_sequence<int, I>{}); },
                                   [&] { return lin.time_term(i); }));
      values::solve(W, k[I]);
      stages<I + 1>(m, t, h, y, u, p, ps);
    }
  }

  // An attempt's arithmetic, in every lane: f, J (and df/dt) at (t, y), the
  // stages, y_new and the squares of its error, the last stage (NaN where W
  // is singular).
  FLUXION_HOST_DEVICE V trial(const M& m, const ode_options<T>& o, V t, V h, const cell* y, cell* ynew, const T* p,
                              std::ptrdiff_t ps) {
    lin.evaluate(m, t, y, p, ps);
    regular = lin.factor(W, V(T(1)) / (V(T(Method::gamma)) * h));
    if (!values::any(regular)) return V(detail::quiet_nan<T>());
    stages(m, t, h, y, ynew, p, ps);
    // Stiffly accurate: the new state is the last stage's input plus its k.
    stage_input<S - 1>(y, ynew, std::make_integer_sequence<int, S - 1>{});
    detail::step_error<V> err;
    for (int i = 0; i < n; ++i) {
      values::store(ynew[i], values::load(ynew[i]) + values::load(k[S - 1][i]));
      err.add(o, i, values::load(k[S - 1][i]), values::load(y[i]), values::load(ynew[i]));
    }
    return detail::choose(regular, err.squares(), V(detail::quiet_nan<T>()));
  }
  // What the last attempt cost one trajectory (lane w's).
  FLUXION_HOST_DEVICE void count_attempt(solve_statistics& st, std::size_t w = 0) const {
    ++st.factorizations;
    if (values::test(regular, w)) st.rhs_evaluations += S - 1;
  }
  // What accepting a step costs: f, J (and df/dt) at the new point, evaluated at the next attempt.
  FLUXION_HOST_DEVICE static void count_accept(solve_statistics& st) {
    ++st.rhs_evaluations;
    ++st.jacobian_evaluations;
  }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    const T err = trial(m, o, t, h, y, ynew, p, ps);
    count_attempt(st);
    return err;
  }

  FLUXION_HOST_DEVICE void accept(const M&, T, const T*, const T*, std::ptrdiff_t, solve_statistics& st) {
    count_accept(st);
  }

  // (1 - theta) y0 + theta (y1 + (1 - theta) (q1 + theta (q2 + theta q3))), q_r = sum_j H[r][j] k_j (lane w's).
  FLUXION_HOST_DEVICE T dense(T theta, T, const cell* y, const cell* ynew, int i, std::size_t w = 0) const {
    constexpr auto all = std::make_integer_sequence<int, S>{};
    const T q1 = dense_term<0>(i, w, all), q2 = dense_term<1>(i, w, all), q3 = dense_term<2>(i, w, all);
    const T rest = T(1) - theta;
    return rest * values::lane(y[i], w) + theta * (values::lane(ynew[i], w) + rest * (q1 + theta * (q2 + theta * q3)));
  }
};

// Methods whose step keeps a dense n x n matrix per trajectory.
template <class Method>
inline constexpr bool keeps_dense_matrix = stiff_method<Method>;

template <class M>
struct stepper_of<rosenbrock23, M> {
  using type = adaptive_driver<rosenbrock23_step<M>, M>;
};
// Every Rosenbrock tableau in Rodas form (fx::rodas5p, or one of the user's).
template <class Method, class M>
  requires rosenbrock_tableau<Method>
struct stepper_of<Method, M> {
  using type = adaptive_driver<rodas_step<Method, M>, M>;
};

}  // namespace fluxion
