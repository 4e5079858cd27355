#pragma once
// The steps of the Rosenbrock methods (rosenbrock_tableaus.hpp) for
// solve/driver.hpp. Each uses the model's exact Jacobian d rhs / d state
// (evaluated once per accepted point, kept through rejections) and, for
// models that read t, its exact partial derivative in time (rhs_dt; zero
// and skipped at compile time for autonomous models). The iteration matrix
// is dense and factored by one thread (detail::dense_lu): the limit is the
// thread's memory, checked where a launcher instantiates it.
#include <cstddef>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/dense_lu.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/rosenbrock_tableaus.hpp>

namespace fluxion {

namespace detail {

// J and, for non-autonomous models, df/dt at (t, y).
template <class M, class T, int N, bool Autonomous>
struct linearization {
  T J[N][N];
  T dT[Autonomous ? 1 : N];
  FLUXION_HOST_DEVICE void evaluate(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps) {
    m.template jacobian_dense<M::jacobian::x>(t, y, 1, p, ps, &J[0][0], 1);
    if constexpr (!Autonomous) m.rhs_dt(t, y, 1, p, ps, dT, 1);
  }
  FLUXION_HOST_DEVICE void at(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    evaluate(m, t, y, p, ps);
    ++st.jacobian_evaluations;
  }
  FLUXION_HOST_DEVICE T time_term(int i) const {
    if constexpr (Autonomous) return T(0);
    else return dT[i];
  }
  // x + coefficient df_i/dt: x itself for an autonomous model (no arithmetic on a zero).
  FLUXION_HOST_DEVICE T plus_time_term(T x, T coefficient, int i) const {
    if constexpr (Autonomous) return x;
    else return x + coefficient * dT[i];
  }
  // W = diag - J, factored; false when singular.
  FLUXION_HOST_DEVICE bool factor(dense_lu<T, N>& W, T diag, solve_statistics& st) const {
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c) W.a[r][c] = r == c ? diag - J[r][c] : -J[r][c];
    ++st.factorizations;
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
// divided by gamma h as well.
template <class M>
struct rosenbrock23_step {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int order = rosenbrock23::order;
  static constexpr int error_order = rosenbrock23::error_order;
  static constexpr double max_growth = rosenbrock23::max_growth;

  detail::linearization<M, T, n, M::autonomous> lin;
  detail::dense_lu<T, n> W;
  T F0[n], F1[n], F2[n], k1[n], k2[n], k3[n];

  FLUXION_HOST_DEVICE T* f_at_start() { return F0; }
  FLUXION_HOST_DEVICE T* scratch() { return k3; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, F0, 1);
    ++st.rhs_evaluations;
    lin.at(m, t, y, p, ps, st);
  }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    constexpr T gamma = T(rosenbrock23::gamma), e32 = T(rosenbrock23::e32);
    const T gh = gamma * h, inv_gh = T(1) / gh;
    if (!lin.factor(W, inv_gh, st)) return detail::quiet_nan<T>();
    // (I - gh J) k = r  <=>  (I/gh - J) k = r / gh.
    for (int i = 0; i < n; ++i) k1[i] = lin.plus_time_term(F0[i], gh, i) * inv_gh;
    W.solve(k1);
    for (int i = 0; i < n; ++i) ynew[i] = y[i] + T(0.5) * h * k1[i];
    m.rhs(t + T(0.5) * h, ynew, 1, p, ps, F1, 1);
    for (int i = 0; i < n; ++i) k2[i] = (F1[i] - k1[i]) * inv_gh;
    W.solve(k2);
    for (int i = 0; i < n; ++i) {
      k2[i] += k1[i];
      ynew[i] = y[i] + h * k2[i];
    }
    m.rhs(t + h, ynew, 1, p, ps, F2, 1);
    st.rhs_evaluations += 2;
    for (int i = 0; i < n; ++i)
      k3[i] = lin.plus_time_term(F2[i] - e32 * (k2[i] - F1[i]) - T(2) * (k1[i] - F0[i]), gh, i) * inv_gh;
    W.solve(k3);
    detail::step_error<T> err;
    for (int i = 0; i < n; ++i) err.add(o, i, h / T(6) * (k1[i] - T(2) * k2[i] + k3[i]), y[i], ynew[i]);
    return err.squares();
  }

  FLUXION_HOST_DEVICE void accept(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    for (int i = 0; i < n; ++i) F0[i] = F2[i];  // f at the new point
    lin.at(m, t, y, p, ps, st);
  }

  // The free interpolant of ode23s: y + h (b1 k1 + b2 k2).
  FLUXION_HOST_DEVICE T dense(T theta, T h, const T* y, const T*, int i) const {
    constexpr T gamma = T(rosenbrock23::gamma);
    const T b1 = theta * (T(1) - theta) / (T(1) - T(2) * gamma);
    const T b2 = theta * (theta - T(2) * gamma) / (T(1) - T(2) * gamma);
    return y[i] + h * (b1 * k1[i] + b2 * k2[i]);
  }
};

// A stiffly accurate Rodas-type step in the W-transformed form (Hairer &
// Wanner II, IV.7), as for fx::rodas5p. f(t, y), J and df/dt are evaluated
// at the start of every attempt, at (t, y): after a rejection the same point,
// hence the same values, so nothing of them is kept from one attempt to the
// next. On a GPU that frees a thread's registers for the stages (Robertson
// in double, ptxas for sm_90: 142 registers against 158 when J and f were
// kept), for one more f and J per rejected step. The statistics count the
// method's evaluations, one f and one J per accepted point, as the SIMD lanes
// do (host_lanes.hpp).
template <class Method, class M>
struct rodas_step {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int S = Method::stages;
  static constexpr int order = Method::order;
  static constexpr int error_order = Method::error_order;
  static constexpr double max_growth = Method::max_growth;

  detail::linearization<M, T, n, M::autonomous> lin;
  detail::dense_lu<T, n> W;
  T k[S][n];

  // f(t0, y0) for the driver's starting step; the first attempt evaluates it again.
  FLUXION_HOST_DEVICE T* f_at_start() { return k[0]; }
  FLUXION_HOST_DEVICE T* scratch() { return k[1]; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, k[0], 1);
    ++st.rhs_evaluations;
    ++st.jacobian_evaluations;  // J at (t0, y0), evaluated at the first attempt
  }

  // u = y + sum_{J < I} a[I][J] k[J]
  template <int I, int... J>
  FLUXION_HOST_DEVICE void stage_input(const T* y, T* u, std::integer_sequence<int, J...>) const {
    for (int i = 0; i < n; ++i) u[i] = y[i] + (T(-0.0) + ... + (T(Method::a[I][J]) * k[J][i]));
  }
  template <int I, int... J>
  FLUXION_HOST_DEVICE T coupling([[maybe_unused]] int i, std::integer_sequence<int, J...>) const {
    return (T(-0.0) + ... + (T(Method::C[I][J]) * k[J][i]));
  }
  template <int R, int... J>
  FLUXION_HOST_DEVICE T dense_term(int i, std::integer_sequence<int, J...>) const {
    return (T(-0.0) + ... + (T(Method::H[R][J]) * k[J][i]));
  }

  // Stage I: k_I = W^-1 (f(t + c_I h, u_I) + sum_J C[I][J] / h k_J + h d_I df/dt).
  template <int I = 0>
  FLUXION_HOST_DEVICE void stages(const M& m, T t, T h, const T* y, T* u, const T* p, std::ptrdiff_t ps) {
    if constexpr (I < S) {
      if constexpr (I == 0) {
        m.rhs(t, y, 1, p, ps, k[0], 1);  // f(t, y)
      } else {
        stage_input<I>(y, u, std::make_integer_sequence<int, I>{});
        m.rhs(t + T(Method::c[I]) * h, u, 1, p, ps, k[I], 1);
      }
      const T inv_h = T(1) / h;
      for (int i = 0; i < n; ++i)
        k[I][i] = detail::rodas_stage_input<Method, I, M::autonomous, T>(
            k[I][i], inv_h, h, [&] { return coupling<I>(i, std::make_integer_sequence<int, I>{}); },
            [&] { return lin.time_term(i); });
      W.solve(k[I]);
      stages<I + 1>(m, t, h, y, u, p, ps);
    }
  }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    lin.evaluate(m, t, y, p, ps);
    if (!lin.factor(W, T(1) / (T(Method::gamma) * h), st)) return detail::quiet_nan<T>();
    stages(m, t, h, y, ynew, p, ps);
    st.rhs_evaluations += S - 1;
    // Stiffly accurate: the new state is the last stage's input plus its k.
    stage_input<S - 1>(y, ynew, std::make_integer_sequence<int, S - 1>{});
    detail::step_error<T> err;
    for (int i = 0; i < n; ++i) {
      ynew[i] += k[S - 1][i];
      err.add(o, i, k[S - 1][i], y[i], ynew[i]);
    }
    return err.squares();
  }

  FLUXION_HOST_DEVICE void accept(const M&, T, const T*, const T*, std::ptrdiff_t, solve_statistics& st) {
    // f, J (and df/dt) at the new point, evaluated at the next attempt.
    ++st.rhs_evaluations;
    ++st.jacobian_evaluations;
  }

  // (1 - theta) y0 + theta (y1 + (1 - theta) (q1 + theta (q2 + theta q3))), q_r = sum_j H[r][j] k_j.
  FLUXION_HOST_DEVICE T dense(T theta, T, const T* y, const T* ynew, int i) const {
    constexpr auto all = std::make_integer_sequence<int, S>{};
    const T q1 = dense_term<0>(i, all), q2 = dense_term<1>(i, all), q3 = dense_term<2>(i, all);
    const T rest = T(1) - theta;
    return rest * y[i] + theta * (ynew[i] + rest * (q1 + theta * (q2 + theta * q3)));
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
