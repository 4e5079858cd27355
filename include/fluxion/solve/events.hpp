#pragma once
// Events at given times: what an intervention, a dose, a pulse or a reset
// does to a trajectory. At an event's time one state of every trajectory
// changes by an affine map of the values just before it,
//
//   x[state] <- scale x[state] + shift + param_weight p[param] + source_weight x[source]
//
// (param and source optional; p is the trajectory's own parameters, so a
// dose may differ per trajectory and be fitted). The integration stops
// exactly at each event time (the step before it is cut to end there), the
// save times at or after that instant read the state after the events, the
// events of one time are applied in the order given, and the integration
// restarts from the new state with a fresh step (f at the new point and the
// starting step of HNW I, II.4), so no step straddles the jump.
//
// The map's coefficients are constants, so derivatives pass through it
// exactly: forward sensitivities S = dx/d(p, x0) jump as
//   S[state] <- scale S[state] + source_weight S[source] + param_weight e_param
// and an adjoint lambda = dL/dx, going backward, as its transpose,
//   lambda[source] += source_weight lambda[state], dL/dp[param] += param_weight lambda[state],
//   lambda[state] <- scale lambda[state]
// (with lambda[state] read before either change). Event times are data,
// not parameters: no derivative in them is taken.
//
//   fx::timed_events<double> ev;
//   ev.add(7.0, A, 100.0)               // a dose of 100 into state A on day 7
//     .add_parameter(14.0, A, dose)     // a dose of p[dose] on day 14
//     .set(30.0, lockdown, 1.0)         // a switch the equations read (a state with d(lockdown) = 0)
//     .move(40.0, S, V, 0.1);           // 10% of S vaccinated: V += 0.1 S, then S -= 0.1 S
//   fx::ode_problem<double> pr{..., .events = ev};
//
// (indices are flat state and parameter indices, e.g.
// M::layout::state::offset(A)). A changed parameter is written as a state
// whose derivative is 0 and which an event sets: the equations read it like
// a parameter and its sensitivities stay exact.
//
// Inputs from data (a temperature, a mobility index, a school calendar) are
// parameters that a table drives: the equations read them like any
// parameter, and at each of the table's times an event sets them to the
// value of the interval that starts there, so the integration stops and
// restarts at every breakpoint and no step straddles one.
//
//   ev.piecewise_constant(school, days, open);        // p[school] = open[i] on [days[i], days[i+1])
//   ev.piecewise_linear(temp, temp_slope, days, c);   // the model reads temp + temp_slope * fx::t
//
// A driven parameter's value is the table's on all of [t0, t1] (its first
// time must be at or before t0; times before t0 and after t1 are allowed),
// so the trajectory's own value of it is never read: its sensitivity
// columns and log-density gradient entries are 0, and a log-density's
// observables, density parameters and priors may not read it (they read
// the trajectory's own parameters; infer/log_density.hpp checks).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fluxion/config/macros.hpp>

namespace fluxion {

template <class T>
struct timed_event {
  T time = 0;
  int state = 0;  // flat index of the state changed
  T scale = 1;
  T shift = 0;
  int param = -1;  // flat parameter index, or -1 for none
  T param_weight = 0;
  int source = -1;  // flat state index, or -1 for none
  T source_weight = 0;
  // >= 0: the event sets a parameter driven by an input from data,
  // p[sets_param] <- shift, and changes no state (the fields above but time
  // and shift unused).
  int sets_param = -1;
};

// A list of events kept in time order (events of one time in the order
// they were added); an ode_problem takes it as its `events`.
template <class T>
class timed_events {
 public:
  // x[state] += amount
  timed_events& add(T time, int state, T amount) { return event({time, state, T(1), amount}); }
  // x[state] = value
  timed_events& set(T time, int state, T value) { return event({time, state, T(0), value}); }
  // x[state] *= factor
  timed_events& scale(T time, int state, T factor) { return event({time, state, factor, T(0)}); }
  // x[state] += weight p[param]
  timed_events& add_parameter(T time, int state, int param, T weight = T(1)) {
    return event({time, state, T(1), T(0), param, weight});
  }
  // x[state] = p[param]
  timed_events& set_parameter(T time, int state, int param) {
    return event({time, state, T(0), T(0), param, T(1)});
  }
  // fraction of x[from] moved to x[to]: x[to] += fraction x[from], then x[from] -= fraction x[from]
  timed_events& move(T time, int from, int to, T fraction) {
    event({time, to, T(1), T(0), -1, T(0), from, fraction});
    return event({time, from, T(1) - fraction, T(0)});
  }
  // An input from data, piecewise constant: p[param] = values[i] from
  // times[i] on (times strictly increasing; the last value holds after the
  // last time).
  timed_events& piecewise_constant(int param, std::span<const T> times, std::span<const T> values) {
    check_table(times, values, 1);
    for (std::size_t i = 0; i < times.size(); ++i) set_param(times[i], param, values[i]);
    return *this;
  }
  // An input from data, linear between the points (times[i], values[i]),
  // read by the model as level + slope * t (two parameters it declares): on
  // [times[i], times[i+1]] level and slope are set to the line through the
  // two points, after the last time to values.back() and 0. At least two
  // points, times strictly increasing.
  timed_events& piecewise_linear(int level, int slope, std::span<const T> times, std::span<const T> values) {
    check_table(times, values, 2);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const bool last = i + 1 == times.size();
      // The line in double: level = v_i - slope t_i loses less when T is float.
      const double b = last ? 0.0 : (double(values[i + 1]) - double(values[i])) / (double(times[i + 1]) - double(times[i]));
      set_param(times[i], level, T(double(values[i]) - b * double(times[i])));
      set_param(times[i], slope, T(b));
    }
    return *this;
  }
  // p[param] = value from `time` on (an input's breakpoint).
  timed_events& set_param(T time, int param, T value) {
    timed_event<T> e{time, -1, T(1), value};
    e.sets_param = param;
    return event(e);
  }
  // Any event; placed after the events of its time already given.
  timed_events& event(const timed_event<T>& e) {
    const auto at = std::upper_bound(list_.begin(), list_.end(), e.time,
                                     [](T t, const timed_event<T>& other) { return t < other.time; });
    list_.insert(at, e);
    return *this;
  }
  std::span<const timed_event<T>> events() const { return list_; }
  operator std::span<const timed_event<T>>() const { return list_; }  // NOLINT: a problem's `.events = ev`
  std::size_t size() const { return list_.size(); }

 private:
  std::vector<timed_event<T>> list_;

  static void check_table(std::span<const T> times, std::span<const T> values, std::size_t at_least) {
    const std::string what = "fluxion::timed_events: an input's table ";
    if (times.size() != values.size())
      throw std::invalid_argument(what + "has " + std::to_string(times.size()) + " times and " +
                                  std::to_string(values.size()) + " values");
    if (times.size() < at_least)
      throw std::invalid_argument(what + "needs at least " + std::to_string(at_least) + " points, got " +
                                  std::to_string(times.size()));
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (!std::isfinite(double(times[i])) || !std::isfinite(double(values[i])))
        throw std::invalid_argument(what + "has a time or value that is not finite at point " + std::to_string(i));
      if (i > 0 && !(times[i] > times[i - 1]))
        throw std::invalid_argument(what + "has times that do not increase at point " + std::to_string(i));
    }
  }
};

// An event when an observable crosses a level (a state-dependent event):
// the root of observable - level inside an accepted step is located on the
// step's dense output (solve/crossings.hpp), and there the trajectory stops
// (stop) or `change` is applied to its state (its time is not read) and
// the integration restarts, as at a timed event. direction: up (from below
// the level to at or above it), down, or either.
enum class crossing_direction : signed char { either = 0, up = 1, down = -1 };
template <class T>
struct crossing_event {
  int observable = 0;  // flat observable index
  T level = 0;
  crossing_direction direction = crossing_direction::either;
  bool stop = true;
  timed_event<T> change{};  // when not stop: the map applied at the crossing
};

namespace detail {

// z[k s] for a runtime k < N. Over an array of at most 32 values, a chain of
// compile-time indices: a GPU thread keeps such an array (a trajectory's
// state, its parameters) in registers, which one indexed access would move
// to its stack (48 bytes a thread for Lorenz's, ptxas). N = 0: unknown size.
inline constexpr int max_selected_index = 32;
template <int N, class T>
FLUXION_HOST_DEVICE T value_at(const T* z, std::ptrdiff_t s, int k) {
  if constexpr (N > 0 && N <= max_selected_index) {
    T v = z[0];
    FLUXION_UNROLL
    for (int j = 1; j < N; ++j)
      if (j == k) v = z[std::ptrdiff_t(j) * s];
    return v;
  } else {
    return z[std::ptrdiff_t(k) * s];
  }
}
template <int N, class T>
FLUXION_HOST_DEVICE void set_at(T* z, std::ptrdiff_t s, int k, T v) {
  if constexpr (N > 0 && N <= max_selected_index) {
    FLUXION_UNROLL
    for (int j = 0; j < N; ++j)
      if (j == k) z[std::ptrdiff_t(j) * s] = v;
  } else {
    z[std::ptrdiff_t(k) * s] = v;
  }
}

// The event's map on a state vector z of N values (stride 1, the values
// just before) and NP parameters p (stride ps). An event that sets a
// parameter changes no state (apply_event sets it).
template <int N = 0, int NP = 0, class T>
FLUXION_HOST_DEVICE void apply_event_to_state(const timed_event<T>& e, T* z, const T* p, std::ptrdiff_t ps) {
  if (e.sets_param >= 0) return;
  T v = e.scale * value_at<N>(z, 1, e.state) + e.shift;
  if (e.param >= 0) v += e.param_weight * value_at<NP>(p, ps, e.param);
  if (e.source >= 0) v += e.source_weight * value_at<N>(z, 1, e.source);
  set_at<N>(z, 1, e.state, v);
}
// Its derivative on a column s (N values) of dz/d(p, x0) (column `column`:
// the parameters first, so parameter k's column is k).
template <int N = 0, class T>
FLUXION_HOST_DEVICE void apply_event_to_column(const timed_event<T>& e, T* s, int column) {
  if (e.sets_param >= 0) return;
  T v = e.scale * value_at<N>(s, 1, e.state);
  if (e.source >= 0) v += e.source_weight * value_at<N>(s, 1, e.source);
  if (e.param >= 0 && column == e.param) v += e.param_weight;
  set_at<N>(s, 1, e.state, v);
}
// Its transpose on an adjoint (backward): zbar (N values) = dL/dz after the
// event becomes dL/dz before it, pbar (dL/dp, NP values) gains the
// parameter's share.
template <int N = 0, int NP = 0, class T>
FLUXION_HOST_DEVICE void apply_event_transposed(const timed_event<T>& e, T* zbar, T* pbar) {
  if (e.sets_param >= 0) return;  // data: no derivative passes through it
  const T after = value_at<N>(zbar, 1, e.state);
  set_at<N>(zbar, 1, e.state, e.scale * after);
  if (e.source >= 0) set_at<N>(zbar, 1, e.source, value_at<N>(zbar, 1, e.source) + e.source_weight * after);
  if (e.param >= 0) set_at<NP>(pbar, 1, e.param, value_at<NP>(pbar, 1, e.param) + e.param_weight * after);
}

// Whether the driver applies events to a system M: a system with a member
// apply_event(e, z, p, ps) (one that integrates more than the model's
// state: sensitivities) says how; a compiled model (and one with its
// observables accumulated, whose states follow the model's) takes the map
// on its flat state. A system that says neither does not take events, and
// its drivers compile without their code; every system the library
// integrates says one or the other.
template <class M>
concept has_event_member = requires(const M& m, const timed_event<typename M::scalar>& e, typename M::scalar* z,
                                    const typename M::scalar* p) { m.apply_event(e, z, p, std::ptrdiff_t(1)); };
template <class M>
inline constexpr bool takes_events = has_event_member<M> || requires { typename M::layout; };

// A driven parameter's new value. The parameters an integration reads are
// its own copy whenever the problem has such events (ode_options::sets_params:
// the driver's registers, the lanes' arrays, a group's shared memory), never
// the caller's buffer, so the write is to memory the integration owns.
template <int NP = 0, class T>
FLUXION_HOST_DEVICE void set_driven_param(const timed_event<T>& e, const T* p, std::ptrdiff_t ps) {
  set_at<NP>(const_cast<T*>(p), ps, e.sets_param, e.shift);  // NOLINT: see above
}

template <class M>
FLUXION_HOST_DEVICE void apply_event(const M& m, const timed_event<typename M::scalar>& e, typename M::scalar* z,
                                     const typename M::scalar* p, std::ptrdiff_t ps) {
  constexpr int n = int(M::n_states), np = int(M::n_params);
  if constexpr (has_event_member<M>) m.apply_event(e, z, p, ps);
  else if (e.sets_param >= 0) set_driven_param<np>(e, p, ps);
  else apply_event_to_state<n, np>(e, z, p, ps);
}

// The events of one trajectory still to apply: the next one's time held in
// a register, as save_cursor holds the next save time. Takes: false for a
// system that takes no events (every test below false at compile time).
template <class T, bool Takes = true>
struct event_cursor {
  const timed_event<T>* events = nullptr;
  std::size_t next = 0, count = 0;
  // The next event's time, +infinity when none is left: the tests every
  // step makes are one comparison each.
  T time = T(INFINITY);

  event_cursor() = default;
  template <class Options>
  FLUXION_HOST_DEVICE explicit event_cursor(const Options& o)
      : events(o.events), count(Takes ? o.n_events : 0), time(Takes && o.n_events > 0 ? o.events[0].time : T(INFINITY)) {}

  FLUXION_HOST_DEVICE bool due(T t) const { return Takes && time <= t; }
  // Where a step from t must end at the latest: the next event's time, or `to`.
  FLUXION_HOST_DEVICE T bound(T to) const { return Takes && time < to ? time : to; }
  // Applies the events at or before t to z (M's state vector).
  template <class M>
  FLUXION_HOST_DEVICE void apply_due(const M& m, T t, T* z, const T* p, std::ptrdiff_t ps) {
    if constexpr (Takes) {
      for (; due(t); ++next) {
        apply_event(m, events[next], z, p, ps);
        time = next + 1 < count ? events[next + 1].time : T(INFINITY);
      }
    }
  }
};

}  // namespace detail

}  // namespace fluxion
