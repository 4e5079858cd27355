#pragma once
// One trajectory integrated with adaptive steps and dense output, whatever
// the method: `__host__ __device__` code over the compiled model, no
// allocation, no exceptions. Host and device drivers map it over a batch
// (one thread a trajectory), each trajectory with its own steps; the host
// lanes (solve/lane_ensemble.hpp) take the same decisions for W trajectories
// at once from the same pieces (detail::step_control, detail::save_cursor).
//
// A method's step type S (explicit_rk.hpp, rosenbrock.hpp; the protocol is
// fx::adaptive_step, solve/concepts.hpp) keeps its own working arrays and
// provides:
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
// Step control (Hairer, Norsett & Wanner, Solving ODEs I, II.4;
// detail::step_control, solve/step_control.hpp):
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
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>
#include <fluxion/solve/concepts.hpp>
#include <fluxion/solve/crossings.hpp>
#include <fluxion/solve/error_norm.hpp>
#include <fluxion/solve/events.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/saved_states.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/solve/step_control.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion {

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
  FLUXION_HOST_DEVICE static T starting_step(const M& m, const ode_options<T>& o, T t, const T* p, std::ptrdiff_t ps,
                                             const T* y, const T* f0, T* y1, T* f1, T span, solve_statistics& st) {
    const T d0 = detail::error_norm<T, n, n_norm>(m, o, y, y, y), d1 = detail::error_norm<T, n, n_norm>(m, o, f0, y, y);
    T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
    if (h0 > span) h0 = span;
    for (int i = 0; i < n; ++i) y1[i] = y[i] + h0 * f0[i];
    m.rhs(t + h0, y1, 1, p, ps, f1, 1);
    ++st.rhs_evaluations;
    for (int i = 0; i < n; ++i) f1[i] = (f1[i] - f0[i]) / h0;
    const T d2 = detail::error_norm<T, n, n_norm>(m, o, f1, y, y);
    const T dmax = d1 > d2 ? d1 : d2;
    const T h1 = dmax <= T(1e-15) ? (h0 * T(1e-3) > T(1e-6) ? h0 * T(1e-3) : T(1e-6))
                                  : math::pow(T(0.01) / dmax, T(1) / T(Step::order + 1));
    const T h = T(100) * h0 < h1 ? T(100) * h0 : h1;
    return h < span ? h : span;
  }
  // The first step from t (f0 = f(t, y)): at t0 the problem's, or the
  // estimate above; after events (t > t0) the estimate from the new state
  // whenever the steps are adaptive (a given first step is the one at t0: at
  // t = 1000 in float, 1e-6 is below the time's resolution), the problem's
  // for fixed steps.
  FLUXION_HOST_DEVICE static T first_step(const M& m, const ode_options<T>& o, T t, const T* p, std::ptrdiff_t ps,
                                          const T* y, const T* f0, T* y1, T* f1, solve_statistics& st) {
    const T span = o.t1 - t;
    const bool given = o.initial_step > T(0) && (t == o.t0 || !o.adaptive);
    return given ? (o.initial_step < span ? o.initial_step : span)
                 : starting_step(m, o, t, p, ps, y, f0, y1, f1, span, st);
  }

  // Parameters are read by every stage of every step: a few dozen are copied
  // once into registers (on a GPU, a strided global read per use otherwise).
  // Inputs from data set parameters (solve/events.hpp): then they are always
  // the integration's own copy, never the caller's buffer.
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
    if constexpr (np > 0) {
      if (np <= max_cached_params || (detail::takes_events<M> && o.sets_params)) {
        T own[np];
        for (int j = 0; j < np; ++j) own[j] = io.p[std::ptrdiff_t(j) * io.p_stride];
        return integrate(m, o, io, own, 1, st, sink);
      }
    }
    return integrate(m, o, io, io.p, io.p_stride, st, sink);
  }

  template <class Sink>
  FLUXION_HOST_DEVICE static solve_status integrate(const M& m, const ode_options<T>& o, const trajectory_io<T>& io,
                                                    const T* p, std::ptrdiff_t ps, solve_statistics& st, Sink& sink) {
    T y[n], ynew[n];
    Step step;
    for (int i = 0; i < n; ++i) y[i] = io.x0[std::ptrdiff_t(i) * io.x0_stride];

    T t = o.t0;
    // A sink that takes no saved states serves none (the problem has none):
    // then every save-time branch below is false at compile time; so is
    // every event branch for a system that takes no events.
    constexpr bool saves = detail::sink_saves<Sink>();
    constexpr bool crossings = detail::takes_crossings<M> && detail::sink_takes_crossings<std::remove_cv_t<Sink>>();
    detail::save_cursor<T, saves> saved(o);
    detail::event_cursor<T, detail::takes_events<M>> events(o);
    events.apply_due(m, t, y, p, ps);
    detail::crossing_log crossed_log;
    if constexpr (crossings) crossed_log.begin(o, io);
    saved.reached(o, sink, n, t, detail::vector_values<T>{y});

    detail::step_control<T> control;
    solve_status status = solve_status::success;
    bool restart = true;  // from t0, and again after the events of a time: f and a first step at the new point
    while (t < o.t1) {
      if (restart) {
        step.begin(m, t, y, p, ps, st);
        control = detail::step_control<T>{};
        control.h = first_step(m, o, t, p, ps, y, step.f_at_start(), ynew, step.scratch(), st);
      }
      if (!control.ready(o, st, t, events.bound(saved.target(o)), status)) break;
      const T h = control.h;
      const T err = detail::sum_over_members(m, step.attempt(m, o, t, h, y, ynew, p, ps, st));  // n err^2
      restart = false;
      const bool go_on = control.template judge<Step, n_norm>(o, t, err, st, status, [&](T t_new) {
        if constexpr (detail::records_steps<Sink, T>) sink.accepted_step(t, t_new, h, y);
        // The dense output: prepared here for the save times inside the
        // step, and on demand by a crossing's search. (A flag shared by a
        // closure on this path cost Vern7 on Lorenz 5% on the host.)
        const bool inside = saved.inside(t_new);
        if constexpr (detail::prepares_dense<Step, M, T>)
          if (inside) step.prepare_dense(m, t, h, y, ynew, p, ps, st);
        // A crossing inside the step ends it there: the state from the
        // dense output, the saves before it served, the event's change (or
        // the trajectory's end) at it.
        detail::crossing_found<T> cross;
        if constexpr (crossings) if (o.n_crossings) {
          bool prepared = inside;
          cross = detail::crossing_search<M>::find(m, o, t, t_new, h, y, ynew, p, ps, [&](T theta, T* out) {
            if constexpr (detail::prepares_dense<Step, M, T>)
              if (!prepared) step.prepare_dense(m, t, h, y, ynew, p, ps, st);
            prepared = true;
            for (int i = 0; i < n; ++i) out[i] = step.dense(theta, h, y, ynew, i);
          });
        }
        const bool crossed = cross.event >= 0;
        if (crossed && cross.theta < T(1)) {
          const T t_cross = t + cross.theta * h;
          saved.template serve<T>(o, sink, step, n, t, t_cross, h, y, ynew, 0, false);
          T at[n];
          for (int i = 0; i < n; ++i) at[i] = step.dense(cross.theta, h, y, ynew, i);
          for (int i = 0; i < n; ++i) y[i] = at[i];
          t = t_cross;
        } else {
          // At an event's time the saves there read the state after it.
          // (Two calls, so that the common one serves with a constant, as
          // the host lanes do: solve/lane_ensemble.hpp.)
          restart = crossed || events.due(t_new);
          if (restart) saved.template serve<T>(o, sink, step, n, t, t_new, h, y, ynew, 0, false);
          else saved.template serve<T>(o, sink, step, n, t, t_new, h, y, ynew, 0, true);
          for (int i = 0; i < n; ++i) y[i] = ynew[i];
          t = t_new;
        }
        if (crossed) {
          restart = true;
          const crossing_event<T>& e = o.crossings[cross.event];
          crossed_log.record(cross.event, t, io);
          if (e.stop) {
            saved.reached(o, sink, n, t, detail::vector_values<T>{y});
            return false;  // the trajectory ends here: success
          }
          detail::apply_event(m, e.change, y, p, ps);
        }
        if (restart) {
          events.apply_due(m, t, y, p, ps);
          saved.reached(o, sink, n, t, detail::vector_values<T>{y});
        } else if (t < o.t1) {
          step.accept(m, t, y, p, ps, st);
        }
        return true;
      });
      if (!go_on) break;
    }

    saved.unreached(o, sink, n);
    for (int i = 0; i < n; ++i) io.final_state[std::ptrdiff_t(i) * io.final_stride] = y[i];
    return status;
  }
};

}  // namespace fluxion
