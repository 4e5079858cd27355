#pragma once
// One trajectory integrated with adaptive steps and dense output, whatever
// the method: `__host__ __device__` code over the compiled model, no
// allocation, no exceptions. Host and device drivers map it over a batch
// (one thread a trajectory), each trajectory with its own steps.
//
// A method's step type S (explicit_rk.hpp, rosenbrock.hpp) keeps its own
// working arrays and provides:
//   begin(m, t, y, p, ps, stats)          what the first attempt needs at (t, y),
//                                         f(t, y) among it, at f_at_start()
//   scratch()                             n values the driver may use before the first attempt
//   attempt(m, o, t, h, y, ynew, p, ps, stats) -> T    tries a step, returns
//                                           sum_i (e_i / tol_i)^2, n err^2 below
//                                           (detail::step_error; non-finite: the
//                                           state or the estimate was)
//   accept(m, t_new, ynew, p, ps, stats)  what the next attempt needs at the new point
//   dense(theta, h, y, ynew, i) -> T      component i at t + theta h within the step
//   prepare_dense(m, t, h, y, ynew, p, ps, stats)   optional: called once before
//                                         dense() in an accepted step with a save time
//                                         inside it (Vern7's extra stages)
//   S::order, S::error_order, S::max_growth: the step control's constants.
//
// Step control (Hairer, Norsett & Wanner, Solving ODEs I, II.4):
//   err = sqrt(mean_i (e_i / (atol_i + rtol max(|y_i|, |y_new_i|)))^2); a step
//   is accepted when err <= 1 (tested as n err^2 <= n: no square root); the
//   next step is h min(g, max(0.2, 0.9 err^(-1/(q+1)))) with q the embedded
//   order and g the method's growth limit, no growth right after a
//   rejection. The first step, when not
//   given, is chosen as in HNW I, II.4 ("starting step size"), at the cost of
//   one right-hand side. A non-finite trial shrinks the step by 5; when the
//   step falls to 16 eps |t| or below the trajectory stops (non_finite if the last
//   trial was not finite, step_too_small otherwise). Save times are served
//   from the dense output of the step that covers them; steps never aim at
//   save times.
#include <cmath>
#include <cstddef>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/concepts.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion {

// What every trajectory of an integration shares, passed to kernels by value.
template <class T>
struct ode_options {
  T t0 = 0, t1 = 0;
  T rtol = T(1e-6), atol = T(1e-6);
  const T* atol_per_state = nullptr;  // n_states values, or null for `atol`
  const T* save_times = nullptr;      // sorted, inside [t0, t1]
  std::size_t n_save = 0;
  T initial_step = 0;            // 0: chosen per trajectory
  long long max_steps = 100000;  // accepted + rejected, at most 1e8 (checked with the problem)
  bool adaptive = true;          // false: every step initial_step long (the last one shortened to end on t1)
  bool step_to_save_times = false;  // true: steps end on save times instead of interpolating there
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

// A sink that records the accepted steps (infer/log_density_adjoint.hpp
// keeps them for a backward pass): accepted_step(t, t_new, h, y) with y the
// state at t, before the step's save times are served.
template <class Sink, class T>
concept records_steps = requires(Sink& s, T v, const T* y) { s.accepted_step(v, v, v, y); };

template <class Step, class M, class T>
concept prepares_dense = requires(Step& s, const M& m, T v, const T* x, std::ptrdiff_t ps, solve_statistics& st) {
  s.prepare_dense(m, v, v, x, x, x, ps, st);
};

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

// A system integrated by a group of members together (solve/cooperative.hpp)
// gives each member a share of the state: the driver's arrays are that share,
// M::n_states long, the error norm's mean is over M::norm_states components,
// and every sum of squared errors is summed over the members
// (m.sum_over_members, the same value bit for bit on every member, so that
// all take the same steps). A plain model is one member holding everything.
template <class M>
FLUXION_HOST_DEVICE constexpr int norm_count() {
  if constexpr (requires { M::norm_states; }) return int(M::norm_states);
  else return int(M::n_states);
}
template <class M, class T>
FLUXION_HOST_DEVICE T sum_over_members(const M& m, T v) {
  if constexpr (requires { m.sum_over_members(v); }) return m.sum_over_members(v);
  else return v;
}

// The tolerance of component i between values a and b.
template <class T>
FLUXION_HOST_DEVICE T tolerance(const ode_options<T>& o, int i, T a, T b) {
  const T atol = o.atol_per_state ? o.atol_per_state[i] : o.atol;
  const T ma = math::abs(a), mb = math::abs(b);
  return atol + o.rtol * (ma > mb ? ma : mb);
}

// The weighted RMS norm of the error e of a step from y to ynew: the
// squares of N components (a member's share), summed over the members, over
// the Total components of the state.
template <class T, int N, int Total = N, class M>
FLUXION_HOST_DEVICE T error_norm(const M& m, const ode_options<T>& o, const T* e, const T* y, const T* ynew) {
  T s = T(-0.0);
  for (int i = 0; i < N; ++i) {
    const T r = e[i] / tolerance(o, i, y[i], ynew[i]);
    s += r * r;
  }
  return math::sqrt(sum_over_members(m, s) / T(Total));
}

// The step control's factor after an attempt whose N components' squared
// weighted errors sum to `squares` (finite, >= 0; err^2 = squares / N):
// min(g, max(0.2, 0.9 err^(-1/(q+1)))), g when err is 0, with q the
// embedded order and g the step's growth limit. The power is taken in float
// as exp2(log2(err^2) / -2(q+1)): a correctly rounded pow (and the square
// root) cost some 50 instructions in float and well over 100 in double on a
// GPU, a tenth of a Tsit5 attempt on a three-state model, and the factor is
// a heuristic whose last digits change no step's validity (the error test
// decides that). On a GPU, log2 and exp2 are the multi-function unit's
// (relative error about 1e-7); host code calls <cmath>'s. The scalar driver
// and the host lanes share this function, so they take the same steps.
template <class Step, int N, class T>
FLUXION_HOST_DEVICE T step_factor(T squares) {
  constexpr float max_growth = float(Step::max_growth);
  if (!(squares > T(0))) return T(max_growth);
  constexpr float exponent = -0.5f / float(Step::error_order + 1);
  const float mean_square = float(squares) * (1.0f / float(N));  // +inf beyond float's range: factor 0.2
#if FLUXION_DEVICE_PASS
  const float power = exp2f(exponent * __log2f(mean_square));
#else
  const float power = std::exp2(exponent * std::log2(mean_square));
#endif
  const float factor = 0.9f * power;  // +inf for an error below float's range: capped below
  return T(factor < 0.2f ? 0.2f : (factor > max_growth ? max_growth : factor));
}

// The squared weighted errors of a step's components, summed (add, then
// squares(): N err^2 for the RMS norm err above): NaN when the new state is
// not finite, checked without a branch per component. A NaN component makes
// its tolerance NaN (the max below keeps a NaN second operand) and so the
// sum; an infinite one makes its tolerance +inf, which tol_max keeps and
// 0 * tol_max turns into a NaN sum.
template <class T>
struct step_error {
  T sum = T(-0.0);
  T tol_max = T(0);
  FLUXION_HOST_DEVICE void add(const ode_options<T>& o, int i, T e, T y, T ynew) {
    const T tol = tolerance(o, i, y, ynew);
    const T r = e / tol;
    sum += r * r;
    tol_max = tol_max > tol ? tol_max : tol;
  }
  FLUXION_HOST_DEVICE T squares() const { return sum + T(0) * tol_max; }
};

// Where a trajectory's saved states go. A sink has
//   save(s, t, n, values)   values(i) for i < n: the state at save time s (time t)
// and the driver calls it once per save time, in order (NaN values for save
// times the integration did not reach). saved_state_writer stores them in
// trajectory_io's buffer; the infer layer folds them into a log-density
// instead (fluxion/infer/log_density.hpp).
template <class T>
struct saved_state_writer {
  static constexpr bool saves = true;
  const trajectory_io<T>& io;
  template <class Values>
  FLUXION_HOST_DEVICE void save(std::size_t s, T, int n, const Values& values) const {
    T* out = io.saved + std::ptrdiff_t(s) * io.saved_time_stride;
    for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = values(i);
  }
};

// A sink for an integration without save times. The driver then compiles
// without its save-time code: on a GPU that code keeps the stages and the
// dense output's weights live across the step's acceptance, 12-31 registers
// of a thread (Tsit5 on Lorenz, ptxas for sm_90: 71 against 50 in float, 120
// against 90 in double), which caps how many trajectories an SM runs at once.
struct no_saved_states {
  static constexpr bool saves = false;
  template <class T, class Values>
  FLUXION_HOST_DEVICE void save(std::size_t, T, int, const Values&) const {}
};
// Whether a sink takes saved states (a sink that does not say does).
template <class Sink>
FLUXION_HOST_DEVICE constexpr bool sink_saves() {
  if constexpr (requires { Sink::saves; }) return Sink::saves;
  else return true;
}

// The values a sink is given: a state vector, one value everywhere, or the
// step's dense output at t + theta h.
template <class T>
struct vector_values {
  const T* v;
  FLUXION_HOST_DEVICE T operator()(int i) const { return v[i]; }
};
template <class T>
struct constant_values {
  T v;
  FLUXION_HOST_DEVICE T operator()(int) const { return v; }
};
template <class Step, class T>
struct dense_values {
  const Step& step;
  T theta, h;
  const T* y;
  const T* ynew;
  FLUXION_HOST_DEVICE T operator()(int i) const { return step.dense(theta, h, y, ynew, i); }
};

}  // namespace detail

template <class Step, class M>
struct adaptive_driver {
  static_assert(adaptive_step<Step, M>,
                "fluxion::adaptive_driver: the step must satisfy fluxion::adaptive_step (solve/concepts.hpp).");
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);         // this member's share of the state
  static constexpr int n_norm = detail::norm_count<M>();  // the whole state's

  // HNW I, II.4: h0 from |y0| and |f0| = |f(t0, y0)|, then one Euler step to
  // estimate f's variation (one right-hand side; y1 and f1 are scratch).
  FLUXION_HOST_DEVICE static T starting_step(const M& m, const ode_options<T>& o, const T* p, std::ptrdiff_t ps,
                                             const T* y, const T* f0, T* y1, T* f1, T span, solve_statistics& st) {
    const T d0 = detail::error_norm<T, n, n_norm>(m, o, y, y, y), d1 = detail::error_norm<T, n, n_norm>(m, o, f0, y, y);
    T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
    if (h0 > span) h0 = span;
    for (int i = 0; i < n; ++i) y1[i] = y[i] + h0 * f0[i];
    m.rhs(o.t0 + h0, y1, 1, p, ps, f1, 1);
    ++st.rhs_evaluations;
    for (int i = 0; i < n; ++i) f1[i] = (f1[i] - f0[i]) / h0;
    const T d2 = detail::error_norm<T, n, n_norm>(m, o, f1, y, y);
    const T dmax = d1 > d2 ? d1 : d2;
    const T h1 = dmax <= T(1e-15) ? (h0 * T(1e-3) > T(1e-6) ? h0 * T(1e-3) : T(1e-6))
                                  : math::pow(T(0.01) / dmax, T(1) / T(Step::order + 1));
    const T h = T(100) * h0 < h1 ? T(100) * h0 : h1;
    return h < span ? h : span;
  }

  // Parameters are read by every stage of every step: a few dozen are copied
  // once into registers (on a GPU, a strided global read per use otherwise).
  static constexpr int np = int(M::n_params);
  static constexpr int max_cached_params = 32;

  FLUXION_HOST_DEVICE static solve_status run(const M& m, const ode_options<T>& o, const trajectory_io<T>& io,
                                              solve_statistics& st) {
    const detail::saved_state_writer<T> sink{io};
    return run(m, o, io, st, sink);
  }
  // The same with the saved states given to Sink (see detail::saved_state_writer).
  template <class Sink>
  FLUXION_HOST_DEVICE static solve_status run(const M& m, const ode_options<T>& o, const trajectory_io<T>& io,
                                              solve_statistics& st, Sink& sink) {
    if constexpr (np > 0 && np <= max_cached_params) {
      T cached[np];
      for (int j = 0; j < np; ++j) cached[j] = io.p[std::ptrdiff_t(j) * io.p_stride];
      return integrate(m, o, io, cached, 1, st, sink);
    } else {
      return integrate(m, o, io, io.p, io.p_stride, st, sink);
    }
  }

  template <class Sink>
  FLUXION_HOST_DEVICE static solve_status integrate(const M& m, const ode_options<T>& o, const trajectory_io<T>& io,
                                                    const T* p, std::ptrdiff_t ps, solve_statistics& st, Sink& sink) {
    T y[n], ynew[n];
    Step step;
    for (int i = 0; i < n; ++i) y[i] = io.x0[std::ptrdiff_t(i) * io.x0_stride];

    T t = o.t0;
    const T span = o.t1 - o.t0;
    // A sink that takes no saved states serves none (the problem has none):
    // then every save-time branch below is false at compile time.
    constexpr bool saves = detail::sink_saves<Sink>();
    const std::size_t n_save = o.n_save;
    std::size_t next_save = 0;
    // The next save time and the one after it, held in registers: each is
    // read a save time before it is compared, instead of a dependent global
    // load at every step, on which the SEIR adjoint's forward kernel sat in
    // 55% of its stall samples (Nsight Compute, H100). That kernel's time
    // did not move: its stalls went to the registers of its tape stores.
    T next_time = saves && n_save > 0 ? o.save_times[0] : T(0);
    T after_time = saves && n_save > 1 ? o.save_times[1] : T(0);
    const auto passed = [&] {
      ++next_save;
      next_time = after_time;
      if (next_save + 1 < n_save) after_time = o.save_times[next_save + 1];
    };
    for (; saves && next_save < n_save && next_time <= t; passed())
      sink.save(next_save, next_time, n, detail::vector_values<T>{y});

    step.begin(m, t, y, p, ps, st);
    T h = o.initial_step > T(0) ? (o.initial_step < span ? o.initial_step : span)
                                : starting_step(m, o, p, ps, y, step.f_at_start(), ynew, step.scratch(), span, st);
    const T eps = detail::epsilon_of<T>();
    bool rejected_last = false, non_finite_last = false;
    solve_status status = solve_status::success;

    while (t < o.t1) {
      if (st.accepted + st.rejected >= int(o.max_steps)) {
        status = solve_status::max_steps;
        break;
      }
      if (!(h > T(16) * eps * math::abs(t))) {
        status = non_finite_last ? solve_status::non_finite : solve_status::step_too_small;
        break;
      }
      // A step that would leave less than a rounding error of the span ends on t1
      // (or, when asked, on the next save time).
      const T target = o.step_to_save_times && saves && next_save < n_save ? next_time : o.t1;
      const T proposed = h;
      const T mag = math::abs(t) > math::abs(target) ? math::abs(t) : math::abs(target);
      const bool last = h >= (target - t) - T(16) * eps * mag;
      if (last) h = target - t;

      const T err = detail::sum_over_members(m, step.attempt(m, o, t, h, y, ynew, p, ps, st));  // n err^2
      if (!detail::finite(err)) {
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
      T factor = detail::step_factor<Step, n_norm>(err);
      if (!o.adaptive) factor = T(1);
      if (err <= T(n_norm) || !o.adaptive) {
        const T t_new = last ? target : t + h;
        if constexpr (detail::records_steps<Sink, T>) sink.accepted_step(t, t_new, h, y);
        if constexpr (detail::prepares_dense<Step, M, T>)
          if (saves && next_save < n_save && next_time < t_new)
            step.prepare_dense(m, t, h, y, ynew, p, ps, st);
        for (; saves && next_save < n_save && next_time <= t_new; passed()) {
          const T ts = next_time;
          if (ts == t_new) {  // the step's end: the solution itself
            sink.save(next_save, ts, n, detail::vector_values<T>{ynew});
            continue;
          }
          const T theta = (ts - t) / h;
          sink.save(next_save, ts, n, detail::dense_values<Step, T>{step, theta, h, y, ynew});
        }
        for (int i = 0; i < n; ++i) y[i] = ynew[i];
        t = t_new;
        ++st.accepted;
        if (t < o.t1) step.accept(m, t, y, p, ps, st);
        if (rejected_last && factor > T(1)) factor = T(1);
        rejected_last = false;
        // A step cut short to land on a save time does not shrink the next one.
        if (last && target != o.t1 && h * factor < proposed) {
          h = proposed;
          continue;
        }
      } else {
        ++st.rejected;
        rejected_last = true;
        if (factor > T(1)) factor = T(1);
      }
      h *= factor;
    }

    // Save times the integration did not reach read NaN.
    for (; saves && next_save < n_save; passed())
      sink.save(next_save, next_time, n, detail::constant_values<T>{detail::quiet_nan<T>()});
    for (int i = 0; i < n; ++i) io.final_state[std::ptrdiff_t(i) * io.final_stride] = y[i];
    return status;
  }
};

}  // namespace fluxion
