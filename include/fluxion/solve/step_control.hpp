#pragma once
// The step control of one trajectory (Hairer, Norsett & Wanner, Solving
// ODEs I, II.4), written once: the adaptive driver (solve/driver.hpp, a
// trajectory at a time, host and device) keeps one step_control, the host
// lanes (solve/lane_ensemble.hpp) one per lane, and both take the same
// decisions with the same floating-point operations in the same order.
//
//   ready(o, stats, t, target, why)   before an attempt from t: false (and
//       why) when the step budget (accepted + rejected steps) is spent
//       (max_steps) or the step is 16 eps |t| or less (non_finite if the last
//       trial was not finite, step_too_small otherwise); a step that would
//       leave less than a rounding error of the way to the target is cut to
//       end on it (last).
//   judge<Step, N>(o, t, err, stats, why, accept)   after the attempt, from
//       its error err = N err^2 for the RMS norm err over N components (not
//       finite: the trial state or its estimate was not). A trial that is
//       not finite is rejected and the step divided by 5 (a fixed-step
//       integration stops: non_finite). Otherwise the step is accepted when
//       err <= 1 (a fixed-step one always): accept(t_new) does the accepted
//       step's work (saves, the new state, the method's accept) and says
//       whether the trajectory goes on; the next step is h min(g, max(0.2,
//       0.9 err^(-1/(q+1)))) (step_factor), without growth right after a
//       rejection, and a step cut short to land on a save time does not
//       shrink the next one. False: the trajectory stops.
// The driver's work on an accepted step is a callable rather than a
// returned verdict: a verdict's three values, merged and tested again by
// the caller, cost a GPU thread 1 to 6 registers (ptxas for sm_90, every
// integration kernel of tests/device/solve_cases.cu); inlined where it is
// accepted, the control flow is the one the decision has.
#include <cmath>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/solve/values.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion::detail {

// The step control's factor after an attempt whose N components' squared
// weighted errors sum to `squares` (finite, >= 0; err^2 = squares / N):
// min(g, max(0.2, 0.9 err^(-1/(q+1)))), g when err is 0, with q the
// embedded order and g the step's growth limit. The power is taken in float
// as exp2(log2(err^2) / -2(q+1)): a correctly rounded pow (and the square
// root) cost some 50 instructions in float and well over 100 in double on a
// GPU, a tenth of a Tsit5 attempt on a three-state model, and the factor is
// a heuristic whose last digits change no step's validity (the error test
// decides that). On a GPU, log2 and exp2 are the multi-function unit's
// (relative error about 1e-7); host code calls <cmath>'s.
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

template <class T>
struct step_control {
  T h = 0;         // the next attempt's step
  T proposed = 0;  // that step before it was cut to end on the target
  T target = 0;    // where the attempt ends when last
  bool last = false, rejected_last = false, non_finite_last = false;

  FLUXION_HOST_DEVICE bool ready(const ode_options<T>& o, const solve_statistics& st, T t, T to, solve_status& why) {
    if (st.accepted + st.rejected >= int(o.max_steps)) {
      why = solve_status::max_steps;
      return false;
    }
    const T eps = epsilon_of<T>();
    if (!(h > T(16) * eps * math::abs(t))) {
      why = non_finite_last ? solve_status::non_finite : solve_status::step_too_small;
      return false;
    }
    target = to;
    proposed = h;
    const T mag = math::abs(t) > math::abs(to) ? math::abs(t) : math::abs(to);
    last = h >= (to - t) - T(16) * eps * mag;
    if (last) h = to - t;
    return true;
  }

  template <class Step, int N, class Accept>
  FLUXION_HOST_DEVICE bool judge(const ode_options<T>& o, T t, T err, solve_statistics& st, solve_status& why,
                                 const Accept& accept) {
    if (!finite(err)) {
      if (!o.adaptive) {
        why = solve_status::non_finite;
        return false;
      }
      ++st.rejected;
      rejected_last = non_finite_last = true;
      h *= T(0.2);
      return true;
    }
    non_finite_last = false;
    T factor = step_factor<Step, N>(err);
    if (!o.adaptive) factor = T(1);
    if (err <= T(N) || !o.adaptive) {
      ++st.accepted;
      if (!accept(last ? target : t + h)) return false;
      if (rejected_last && factor > T(1)) factor = T(1);
      rejected_last = false;
      if (last && target != o.t1 && h * factor < proposed) {
        h = proposed;
        return true;
      }
    } else {
      ++st.rejected;
      rejected_last = true;
      if (factor > T(1)) factor = T(1);
    }
    h *= factor;
    return true;
  }
};

}  // namespace fluxion::detail
