// A decay with doses, a reset and a scaling at given times (solve/events.hpp),
// and its closed form written by hand: the oracle of tests/solve/events.cpp
// and tests/infer/timed_events.cpp.
//
//   y' = -k y, parameters (k, D); y += 1.5 at t = 2, y += D at t = 5,
//   y = 0.25 at t = 7, y *= 0.5 at t = 8; observed as "level".
// Between events y decays as e^{-k dt}.
#pragma once
#include <fluxion/fluxion.hpp>

namespace dosing {

namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr fx::param<"D"> D;
constexpr auto model = fx::model(fx::states(y), fx::params(k, D), fx::d(y) = -k * y, fx::observe<"level">() = y);

inline fx::timed_events<double> events() {
  fx::timed_events<double> ev;
  // Given out of order on purpose: timed_events keeps them in time order.
  ev.set(7.0, 0, 0.25).add(2.0, 0, 1.5).add_parameter(5.0, 0, 1).scale(8.0, 0, 0.5);
  return ev;
}

// y(t) for (k, D, y0), in any scalar (std::complex for the complex step);
// at an event's time, the value after it.
template <class C>
C exact(double t, C kk, C dd, C y0) {
  C v = y0;
  double at = 0;
  const auto decay_to = [&](double to) {
    v *= std::exp(-kk * (to - at));
    at = to;
  };
  if (t < 2) return decay_to(t), v;
  decay_to(2), v += 1.5;
  if (t < 5) return decay_to(t), v;
  decay_to(5), v += dd;
  if (t < 7) return decay_to(t), v;
  decay_to(7), v = C(0.25);
  if (t < 8) return decay_to(t), v;
  decay_to(8), v *= 0.5;
  return decay_to(t), v;
}

}  // namespace dosing
