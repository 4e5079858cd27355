#pragma once
// The step of an explicit Runge-Kutta pair with a continuous extension (a
// tableau such as fx::tsit5), for solve/driver.hpp: stages with the
// coefficients as constants (every index a template argument), the first
// stage reused from the last stage of the step before (first same as last).
#include <cstddef>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/driver.hpp>

namespace fluxion {

template <class Method, class M>
struct explicit_rk_step {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int S = Method::stages;
  static constexpr int order = Method::order;
  static constexpr int error_order = Method::error_order;
  static constexpr double max_growth = 10.0;
  static_assert(Method::first_same_as_last, "fluxion::explicit_rk_step: the pairs implemented reuse their last stage.");

  T k[S][n];  // k[0] = f(t, y); k[S-1] = f(t + h, y_new) after an attempt

  FLUXION_HOST_DEVICE T* f_at_start() { return k[0]; }
  FLUXION_HOST_DEVICE T* scratch() { return k[1]; }

  FLUXION_HOST_DEVICE void begin(const M& m, T t, const T* y, const T* p, std::ptrdiff_t ps, solve_statistics& st) {
    m.rhs(t, y, 1, p, ps, k[0], 1);
    ++st.rhs_evaluations;
  }

  // Stage I's input: out = y + h sum_{J < I} a[I][J] k[J].
  template <int I, int... J>
  FLUXION_HOST_DEVICE void stage_input(T h, const T* y, T* out, std::integer_sequence<int, J...>) const {
    for (int i = 0; i < n; ++i) out[i] = y[i] + h * (T(0) + ... + (T(Method::a[I][J]) * k[J][i]));
  }
  // The coefficients are read as constants (Method::b[J] with J a template
  // argument): device code may not take the address of a host constant.
  template <int... J>
  FLUXION_HOST_DEVICE T solution_increment(int i, std::integer_sequence<int, J...>) const {
    return (T(0) + ... + (T(Method::b[J]) * k[J][i]));
  }
  template <int... J>
  FLUXION_HOST_DEVICE T error_increment(int i, std::integer_sequence<int, J...>) const {
    return (T(0) + ... + (T(Method::e[J]) * k[J][i]));
  }
  template <int... J>
  FLUXION_HOST_DEVICE T weighted_at(const T* w, int i, std::integer_sequence<int, J...>) const {
    return (T(0) + ... + (w[J] * k[J][i]));
  }

  // Stages 1 .. S-1 at (t, y) with step h; the last one's input is y_new.
  template <int Stage = 1>
  FLUXION_HOST_DEVICE void stages(const M& m, const T* p, std::ptrdiff_t ps, T t, T h, const T* y, T* ynew) {
    if constexpr (Stage < S) {
      stage_input<Stage>(h, y, ynew, std::make_integer_sequence<int, Stage>{});
      m.rhs(t + T(Method::c[Stage]) * h, ynew, 1, p, ps, k[Stage], 1);
      stages<Stage + 1>(m, p, ps, t, h, y, ynew);
    }
  }

  FLUXION_HOST_DEVICE T attempt(const M& m, const ode_options<T>& o, T t, T h, const T* y, T* ynew, const T* p,
                                std::ptrdiff_t ps, solve_statistics& st) {
    stages(m, p, ps, t, h, y, ynew);
    st.rhs_evaluations += S - 1;
    T err2 = 0;
    bool finite_state = true;
    for (int i = 0; i < n; ++i) {
      ynew[i] = y[i] + h * solution_increment(i, std::make_integer_sequence<int, S>{});
      const T e = h * error_increment(i, std::make_integer_sequence<int, S>{});
      const T r = e / detail::tolerance(o, i, y[i], ynew[i]);
      err2 += r * r;
      finite_state = finite_state && detail::finite(ynew[i]);
    }
    const T err = math::sqrt(err2 / T(n));
    return finite_state ? err : detail::quiet_nan<T>();
  }

  FLUXION_HOST_DEVICE void accept(const M&, T, const T*, const T*, std::ptrdiff_t, solve_statistics&) {
    for (int i = 0; i < n; ++i) k[0][i] = k[S - 1][i];  // first same as last
  }

  FLUXION_HOST_DEVICE T dense(T theta, T h, const T* y, const T*, int i) const {
    T w[S];
    Method::dense_weights(theta, w);
    return y[i] + h * weighted_at(w, i, std::make_integer_sequence<int, S>{});
  }
};

// The integrator of one trajectory for each method: explicit pairs by
// default; rosenbrock.hpp adds the stiff methods.
template <class Method, class M>
struct stepper_of {
  using type = adaptive_driver<explicit_rk_step<Method, M>, M>;
};

}  // namespace fluxion
