#pragma once
// Where an accepted step crosses the level of a crossing event
// (solve/events.hpp): shared by the adaptive driver (solve/driver.hpp) and
// the host lanes (solve/lane_ensemble.hpp).
//
// For each crossing event k, g_k = observable_k - level_k at the step's
// start (t, y) and end (t_new, y_new), the observables computed from the
// state (compile/compiled.hpp's observe). A crossing is a change of sign in
// the event's direction: up from g < 0 to g >= 0, down from g > 0 to g <= 0
// (a step that starts on the level, g = 0, crosses nothing). Its root is
// located on the step's dense output with the Illinois variant of regula
// falsi (Dahlquist & Bjorck, Numerical Methods, 1974, 6.2.3), the bracket
// kept with the sign changed at its right end, until it is 4 ulps of t
// wide (or after 100 evaluations); the crossing is placed at that right
// end, where g has already changed sign, so that after a change of the
// state the next step starts beyond the root. The earliest crossing of the
// step is the one taken (the lowest k among equal times); the others are
// looked for again from there.
#include <cstddef>
#include <cstdint>

#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>
#include <fluxion/solve/events.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion::detail {

// Whether a system takes crossing events: a compiled model (its
// observables; systems that integrate more than a model's state, such as
// sensitivities, take none, and their callers refuse them).
template <class M>
inline constexpr std::size_t observable_count_of = [] {
  if constexpr (requires { typename M::layout; }) return std::size_t(M::n_observables);
  else return std::size_t(0);
}();
template <class M>
inline constexpr bool takes_crossings = (observable_count_of<M> > 0);

// The earliest crossing of an accepted step, if any.
template <class T>
struct crossing_found {
  int event = -1;  // -1: none
  T theta = 0;     // where in the step, t + theta h
};

// The crossing events of one trajectory that fired, and the time each
// first fired, written where io says (NaN until it fires; nothing without a
// buffer): kept by the adaptive driver and, per lane, by the host lanes.
struct crossing_log {
  std::uint32_t fired = 0;  // bit k: event k fired (at most max_crossings, 32)
  template <class T>
  FLUXION_HOST_DEVICE void begin(const ode_options<T>& o, const trajectory_io<T>& io) {
    fired = 0;
    if (io.crossing_times)
      for (std::size_t k = 0; k < o.n_crossings; ++k)
        io.crossing_times[std::ptrdiff_t(k) * io.crossing_stride] = quiet_nan<T>();
  }
  template <class T>
  FLUXION_HOST_DEVICE void record(int k, T t, const trajectory_io<T>& io) {
    if (io.crossing_times && !(fired >> k & 1u)) io.crossing_times[std::ptrdiff_t(k) * io.crossing_stride] = t;
    fired |= std::uint32_t(1) << k;
  }
};

// A step's crossings. state_at(theta, out) writes the step's dense output
// at t + theta h into out (n values; theta = 1: the step's end); g values
// at the start and end come from y and ynew.
template <class M>
struct crossing_search {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int n_obs = int(M::n_observables) > 0 ? int(M::n_observables) : 1;

  static FLUXION_HOST_DEVICE bool crosses(crossing_direction d, T a, T b) {
    const bool up = a < T(0) && b >= T(0), down = a > T(0) && b <= T(0);
    return d == crossing_direction::up ? up : d == crossing_direction::down ? down : (up || down);
  }

  // g of event e at time t of state x.
  static FLUXION_HOST_DEVICE T g_at(const M& m, const crossing_event<T>& e, T t, const T* x, const T* p,
                                    std::ptrdiff_t ps) {
    T obs[n_obs];
    m.observe(t, x, 1, p, ps, obs, 1);
    return obs[e.observable] - e.level;
  }

  template <class StateAt>
  static FLUXION_HOST_DEVICE crossing_found<T> find(const M& m, const ode_options<T>& o, T t, T t_new, T h,
                                                    const T* y, const T* ynew, const T* p, std::ptrdiff_t ps,
                                                    const StateAt& state_at) {
    crossing_found<T> found;
    if (o.n_crossings == 0) return found;
    T g0[n_obs], g1[n_obs];
    m.observe(t, y, 1, p, ps, g0, 1);
    m.observe(t_new, ynew, 1, p, ps, g1, 1);
    T at[n];
    const T width = T(4) * epsilon_of<T>() * (math::abs(t) > math::abs(t_new) ? math::abs(t) : math::abs(t_new));
    for (std::size_t k = 0; k < o.n_crossings; ++k) {
      const crossing_event<T>& e = o.crossings[k];
      T a = g0[e.observable] - e.level, b = g1[e.observable] - e.level;
      if (!crosses(e.direction, a, b)) continue;
      // Illinois: [lo, hi] with g(lo) on the start's side, g(hi) across.
      T lo = 0, hi = 1;
      int stale = 0;  // which end was kept last (halve its g when kept twice)
      for (int it = 0; it < 100 && (hi - lo) * math::abs(h) > width; ++it) {
        T mid = hi - b * (hi - lo) / (b - a);
        if (!(mid > lo && mid < hi)) mid = T(0.5) * (lo + hi);
        state_at(mid, at);
        const T g = g_at(m, e, t + mid * h, at, p, ps);
        if (crosses(e.direction, a, g) || g == T(0)) {
          hi = mid, b = g;
          if (stale == 1) a *= T(0.5);
          stale = 1;
        } else {
          lo = mid, a = g;
          if (stale == -1) b *= T(0.5);
          stale = -1;
        }
      }
      if (found.event < 0 || hi < found.theta) found = {int(k), hi};
    }
    return found;
  }
};

}  // namespace fluxion::detail
