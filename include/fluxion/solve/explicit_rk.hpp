#pragma once
// One trajectory integrated by an explicit Runge-Kutta pair with adaptive
// steps and dense output: `__host__ __device__` code over the compiled
// model's right-hand side, no allocation, no exceptions. Host and device
// drivers map it over a batch (one thread or SIMD lane a trajectory), each
// trajectory with its own steps.
//
// Step control (Hairer, Norsett & Wanner, Solving ODEs I, II.4):
//   err = sqrt(mean_i (e_i / (atol_i + rtol max(|y_i|, |y_new_i|)))^2),
//   e = h sum_j (b_j - b_hat_j) k_j; a step is accepted when err <= 1, and
//   the next step is h min(10, max(0.2, 0.9 err^(-1/(q+1)))) with q the
//   embedded order (no growth right after a rejection). The first step, when
//   not given, is chosen as in HNW I, II.4 ("starting step size"), at the
//   cost of one right-hand side.
// Save times are served from the dense output of the step that covers them;
// the steps never aim at save times.
#include <cstddef>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/symbolic/math.hpp>

namespace fluxion {

// What every trajectory of an integration shares, passed to kernels by value.
template <class T>
struct ode_options {
  T t0 = 0, t1 = 0;
  T rtol = T(1e-6), atol = T(1e-6);
  const T* atol_per_state = nullptr;  // n_states values, or null for `atol`
  const T* save_times = nullptr;      // sorted, inside [t0, t1]
  std::size_t n_save = 0;
  T initial_step = 0;  // 0: chosen per trajectory
  long long max_steps = 100000;  // accepted + rejected
  bool adaptive = true;  // false: every step initial_step long (the last one shortened to end on t1)
};

// Where one trajectory reads its inputs and writes its outputs (strides in
// values between consecutive elements or save times).
template <class T>
struct trajectory_io {
  const T* x0;
  std::ptrdiff_t x0_stride;
  const T* p;
  std::ptrdiff_t p_stride;
  T* saved;  // may be null when there are no save times
  std::ptrdiff_t saved_state_stride;
  std::ptrdiff_t saved_time_stride;
  T* final_state;
  std::ptrdiff_t final_stride;
};

namespace detail {

template <class T>
FLUXION_HOST_DEVICE constexpr bool finite(T v) {
  return v == v && v - v == T(0);  // false for NaN and +-inf, without <cmath> classification
}
template <class T>
FLUXION_HOST_DEVICE constexpr T epsilon_of() {
  return sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313080847e-16);
}
template <class T>
FLUXION_HOST_DEVICE T quiet_nan() {
  return T(::nan(""));
}

}  // namespace detail

template <class Method, class M>
struct explicit_rk {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int S = Method::stages;
  static_assert(Method::first_same_as_last, "fluxion::explicit_rk: the pairs implemented reuse their last stage.");

  // Stage I's input: out = y + h sum_{J < I} a[I][J] k[J] (coefficients as
  // constants: every index is a template argument).
  template <int I, int... J>
  FLUXION_HOST_DEVICE static void stage_input(T h, const T* y, const T (*k)[n], T* out,
                                              std::integer_sequence<int, J...>) {
    for (int i = 0; i < n; ++i) out[i] = y[i] + h * (T(0) + ... + (T(Method::a[I][J]) * k[J][i]));
  }
  template <int... J>
  FLUXION_HOST_DEVICE static T solution_increment(int i, const T (*k)[n], std::integer_sequence<int, J...>) {
    return (T(0) + ... + (T(Method::b[J]) * k[J][i]));
  }
  template <int... J>
  FLUXION_HOST_DEVICE static T error_increment(int i, const T (*k)[n], std::integer_sequence<int, J...>) {
    return (T(0) + ... + (T(Method::e[J]) * k[J][i]));
  }
  template <int... J>
  FLUXION_HOST_DEVICE static T dense_increment(int i, const T* w, const T (*k)[n], std::integer_sequence<int, J...>) {
    return (T(0) + ... + (w[J] * k[J][i]));
  }

  // Stages 1 .. S-1 at (t, y) with step h; k[0] holds f(t, y) on entry,
  // k[S-1] is f(t + h, y_new) on exit, y_new in `ynew`.
  template <int Stage = 1>
  FLUXION_HOST_DEVICE static void stages(const M& m, const T* p, std::ptrdiff_t ps, T t, T h, const T* y, T (*k)[n],
                                         T* ynew) {
    if constexpr (Stage < S) {
      stage_input<Stage>(h, y, k, ynew, std::make_integer_sequence<int, Stage>{});
      m.rhs(t + T(Method::c[Stage]) * h, ynew, 1, p, ps, k[Stage], 1);
      stages<Stage + 1>(m, p, ps, t, h, y, k, ynew);
    }
  }

  FLUXION_HOST_DEVICE static T tolerance(const ode_options<T>& o, int i, T a, T b) {
    const T atol = o.atol_per_state ? o.atol_per_state[i] : o.atol;
    const T ma = math::abs(a), mb = math::abs(b);
    return atol + o.rtol * (ma > mb ? ma : mb);
  }

  // The weighted RMS norm of v (scaled by tolerances at y).
  FLUXION_HOST_DEVICE static T norm(const ode_options<T>& o, const T* v, const T* y) {
    T s = 0;
    for (int i = 0; i < n; ++i) {
      const T r = v[i] / tolerance(o, i, y[i], y[i]);
      s += r * r;
    }
    return math::sqrt(s / T(n));
  }

  // HNW I, II.4: h0 from |y0| and |f0|, then one Euler step to estimate f's
  // variation; uses k[1] and ynew as scratch. One right-hand side.
  FLUXION_HOST_DEVICE static T starting_step(const M& m, const ode_options<T>& o, const T* p, std::ptrdiff_t ps,
                                             const T* y, T (*k)[n], T* ynew, T span, solve_statistics& st) {
    const T d0 = norm(o, y, y), d1 = norm(o, k[0], y);
    T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
    if (h0 > span) h0 = span;
    for (int i = 0; i < n; ++i) ynew[i] = y[i] + h0 * k[0][i];
    m.rhs(o.t0 + h0, ynew, 1, p, ps, k[1], 1);
    ++st.rhs_evaluations;
    for (int i = 0; i < n; ++i) ynew[i] = (k[1][i] - k[0][i]) / h0;
    const T d2 = norm(o, ynew, y);
    const T dmax = d1 > d2 ? d1 : d2;
    const T h1 = dmax <= T(1e-15) ? (h0 * T(1e-3) > T(1e-6) ? h0 * T(1e-3) : T(1e-6))
                                  : math::pow(T(0.01) / dmax, T(1) / T(Method::order + 1));
    T h = T(100) * h0 < h1 ? T(100) * h0 : h1;
    return h < span ? h : span;
  }

  FLUXION_HOST_DEVICE static solve_status run(const M& m, const ode_options<T>& o, const trajectory_io<T>& io,
                                              solve_statistics& st) {
    T y[n], ynew[n], k[S][n];
    const T* p = io.p;
    const std::ptrdiff_t ps = io.p_stride;
    for (int i = 0; i < n; ++i) y[i] = io.x0[std::ptrdiff_t(i) * io.x0_stride];

    T t = o.t0;
    const T span = o.t1 - o.t0;
    std::size_t next_save = 0;
    for (; next_save < o.n_save && o.save_times[next_save] <= t; ++next_save) {
      T* out = io.saved + std::ptrdiff_t(next_save) * io.saved_time_stride;
      for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = y[i];
    }

    m.rhs(t, y, 1, p, ps, k[0], 1);
    ++st.rhs_evaluations;
    T h = o.initial_step > T(0) ? (o.initial_step < span ? o.initial_step : span)
                                : starting_step(m, o, p, ps, y, k, ynew, span, st);
    const T eps = detail::epsilon_of<T>();
    constexpr T exponent = T(-1) / T(Method::error_order + 1);
    bool rejected_last = false, non_finite_last = false;
    solve_status status = solve_status::success;

    while (t < o.t1) {
      if (st.accepted + st.rejected >= o.max_steps) {
        status = solve_status::max_steps;
        break;
      }
      const T mag = math::abs(t) > math::abs(o.t1) ? math::abs(t) : math::abs(o.t1);
      if (!(h >= T(16) * eps * mag)) {
        status = non_finite_last ? solve_status::non_finite : solve_status::step_too_small;
        break;
      }
      // A step that would leave less than a rounding error of the span ends on t1.
      const bool last = h >= (o.t1 - t) - T(16) * eps * mag;
      if (last) h = o.t1 - t;

      stages(m, p, ps, t, h, y, k, ynew);
      st.rhs_evaluations += S - 1;
      T err2 = 0;
      bool finite_state = true;
      for (int i = 0; i < n; ++i) {
        ynew[i] = y[i] + h * solution_increment(i, k, std::make_integer_sequence<int, S>{});
        const T e = h * error_increment(i, k, std::make_integer_sequence<int, S>{});
        const T r = e / tolerance(o, i, y[i], ynew[i]);
        err2 += r * r;
        finite_state = finite_state && detail::finite(ynew[i]);
      }
      const T err = math::sqrt(err2 / T(n));
      if (!finite_state || !detail::finite(err)) {
        if (!o.adaptive) {
          status = solve_status::non_finite;
          break;
        }
        ++st.rejected;
        rejected_last = non_finite_last = true;
        h *= T(0.2);
        continue;
      }
      non_finite_last = false;
      T factor = err > T(0) ? T(0.9) * math::pow(err, exponent) : T(10);
      factor = factor < T(0.2) ? T(0.2) : (factor > T(10) ? T(10) : factor);
      if (!o.adaptive) factor = T(1);
      if (err <= T(1) || !o.adaptive) {
        const T t_new = last ? o.t1 : t + h;
        for (; next_save < o.n_save && o.save_times[next_save] <= t_new; ++next_save) {
          T* out = io.saved + std::ptrdiff_t(next_save) * io.saved_time_stride;
          if (o.save_times[next_save] == t_new) {  // the step's end: the solution itself
            for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = ynew[i];
            continue;
          }
          T w[S];
          Method::dense_weights((o.save_times[next_save] - t) / h, w);
          for (int i = 0; i < n; ++i)
            out[std::ptrdiff_t(i) * io.saved_state_stride] =
                y[i] + h * dense_increment(i, w, k, std::make_integer_sequence<int, S>{});
        }
        for (int i = 0; i < n; ++i) {
          y[i] = ynew[i];
          k[0][i] = k[S - 1][i];  // first same as last
        }
        t = t_new;
        ++st.accepted;
        if (rejected_last && factor > T(1)) factor = T(1);
        rejected_last = false;
      } else {
        ++st.rejected;
        rejected_last = true;
        if (factor > T(1)) factor = T(1);
      }
      h *= factor;
    }

    // Save times the integration did not reach read NaN.
    const T nan = detail::quiet_nan<T>();
    while (next_save < o.n_save) {
      T* out = io.saved + std::ptrdiff_t(next_save) * io.saved_time_stride;
      for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = nan;
      ++next_save;
    }
    for (int i = 0; i < n; ++i) io.final_state[std::ptrdiff_t(i) * io.final_stride] = y[i];
    return status;
  }
};

}  // namespace fluxion
