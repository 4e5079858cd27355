#pragma once
// An ensemble integration problem as a user states it (host side): the time
// span, the save times shared by every trajectory, tolerances, the first step
// and the step budget. Checked before any work: a bad problem raises
// fluxion::problem_error naming what is wrong; bad buffers raise
// fluxion::layout_error, as for the evaluators.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fluxion/solve/driver.hpp>

namespace fluxion {

class problem_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

template <class T>
struct ode_problem {
  T t0 = 0;
  T t1 = 1;
  std::span<const T> save_times = {};  // sorted, in [t0, t1]; t0 and t1 may be among them
  T rtol = T(1e-6);
  T atol = T(1e-6);
  std::span<const T> atol_per_state = {};  // empty: `atol` for every state
  T initial_step = 0;                      // 0: chosen per trajectory (HNW I, II.4)
  long long max_steps = 100000;            // accepted + rejected steps per trajectory, at most 1e8
  bool adaptive = true;                    // false: fixed steps of initial_step (which must then be given)
  bool step_to_save_times = false;         // true: steps end on save times (no interpolation there)
  std::span<const timed_event<T>> events = {};  // in time order, inside [t0, t1] but inputs' (solve/events.hpp)
  std::span<const crossing_event<T>> crossings = {};  // when an observable crosses a level (solve/events.hpp)
};

namespace detail {
inline std::string number_text_of(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace detail

// What is wrong with an event's map for a model of n_states states and
// n_params parameters ("" when nothing): a state, source or parameter it
// does not have, a coefficient that is not finite.
template <class T>
std::string event_fault(const timed_event<T>& e, std::size_t n_states, std::size_t n_params) {
  using detail::number_text_of;
  if (e.sets_param >= 0) {  // an input's breakpoint: a parameter and its value
    if (std::size_t(e.sets_param) >= n_params)
      return "sets parameter " + std::to_string(e.sets_param) + ", which is not among the " +
             std::to_string(n_params) + " parameters of the model";
    if (!std::isfinite(double(e.shift)))
      return "sets a parameter to a value that is not finite (" + number_text_of(double(e.shift)) + ")";
    return {};
  }
  if (e.sets_param < -1) return "sets parameter " + std::to_string(e.sets_param) + " (-1: none)";
  // (Copies: `e.state < 0` would parse as fluxion::state<...>.)
  const int state = e.state, source = e.source, param = e.param;
  if (state < 0 || std::size_t(state) >= n_states)
    return "changes state " + std::to_string(state) + ", which is not among the " + std::to_string(n_states) +
           " states of the model";
  if (source < -1 || (source >= 0 && std::size_t(source) >= n_states))
    return "reads state " + std::to_string(source) + ", which is not among the " + std::to_string(n_states) +
           " states of the model (-1: none)";
  if (param < -1 || (param >= 0 && std::size_t(param) >= n_params))
    return "reads parameter " + std::to_string(param) + ", which is not among the " + std::to_string(n_params) +
           " parameters of the model (-1: none)";
  const T coefficients[] = {e.scale, e.shift, e.param_weight, e.source_weight};
  for (const T c : coefficients)
    if (!std::isfinite(double(c))) return "has a coefficient that is not finite (" + number_text_of(double(c)) + ")";
  return {};
}

// The events: at finite times in [t0, t1], in time order, each naming a
// state (and a source state, a parameter) the model has, with finite
// coefficients. An input's breakpoints (events that set a parameter) may
// lie outside [t0, t1], but each driven parameter's first one must be at or
// before t0: its value is the table's on the whole span.
template <class T>
void check_events(const ode_problem<T>& pr, std::size_t n_states, std::size_t n_params) {
  using detail::number_text_of;
  if (pr.events.data() == nullptr && !pr.events.empty())
    throw problem_error("fluxion: events is a null pointer with a length of " + std::to_string(pr.events.size()) +
                        " (no event can be read)");
  std::vector<bool> driven(n_params, false);
  for (std::size_t k = 0; k < pr.events.size(); ++k) {
    const timed_event<T>& e = pr.events[k];
    const std::string which = "fluxion: event " + std::to_string(k);
    const bool sets_param = e.sets_param >= 0;
    if (sets_param ? !std::isfinite(double(e.time)) : !(e.time >= pr.t0 && e.time <= pr.t1))
      throw problem_error(which + " at time " + number_text_of(double(e.time)) + " lies outside the span [" +
                          number_text_of(double(pr.t0)) + ", " + number_text_of(double(pr.t1)) + "]");
    if (k > 0 && e.time < pr.events[k - 1].time)
      throw problem_error(which + " (time " + number_text_of(double(e.time)) + ") comes before event " +
                          std::to_string(k - 1) + " (time " + number_text_of(double(pr.events[k - 1].time)) +
                          "): events must be in time order (fluxion::timed_events keeps them so)");
    const std::string fault = event_fault(e, n_states, n_params);
    if (!fault.empty()) throw problem_error(which + " " + fault);
    if (sets_param && !driven[std::size_t(e.sets_param)]) {
      if (e.time > pr.t0)
        throw problem_error(which + " first sets parameter " + std::to_string(e.sets_param) + " at time " +
                            number_text_of(double(e.time)) + ", after t0 = " + number_text_of(double(pr.t0)) +
                            ": an input's table must start at or before t0");
      driven[std::size_t(e.sets_param)] = true;
    }
  }
}

// Whether some event sets a parameter (an input from data drives it).
template <class T>
bool sets_params(std::span<const timed_event<T>> events) {
  return std::any_of(events.begin(), events.end(), [](const timed_event<T>& e) { return e.sets_param >= 0; });
}
// Which of n_params parameters inputs drive (some event sets them).
template <class T>
std::vector<bool> driven_parameters(std::span<const timed_event<T>> events, std::size_t n_params) {
  std::vector<bool> driven(n_params, false);
  for (const timed_event<T>& e : events)
    if (e.sets_param >= 0 && std::size_t(e.sets_param) < n_params) driven[std::size_t(e.sets_param)] = true;
  return driven;
}

// The crossing events: at most max_crossings, each on an observable the
// model has (n_observables of them), at a finite level, its change a valid
// event.
inline constexpr std::size_t max_crossings = 32;
template <class T>
void check_crossings(const ode_problem<T>& pr, std::size_t n_states, std::size_t n_params, std::size_t n_observables) {
  using detail::number_text_of;
  if (pr.crossings.data() == nullptr && !pr.crossings.empty())
    throw problem_error("fluxion: crossings is a null pointer with a length of " +
                        std::to_string(pr.crossings.size()) + " (no crossing can be read)");
  if (pr.crossings.size() > max_crossings)
    throw problem_error("fluxion: at most " + std::to_string(max_crossings) + " crossing events, got " +
                        std::to_string(pr.crossings.size()));
  for (std::size_t k = 0; k < pr.crossings.size(); ++k) {
    const crossing_event<T>& c = pr.crossings[k];
    const std::string which = "fluxion: crossing event " + std::to_string(k);
    const int observable = c.observable;  // (`c.observable < 0` would parse as a template)
    if (observable < 0 || std::size_t(observable) >= n_observables)
      throw problem_error(which + " watches observable " + std::to_string(observable) + ", which is not among the " +
                          std::to_string(n_observables) + " observables of the model");
    if (!std::isfinite(double(c.level)))
      throw problem_error(which + " has a level that is not finite (" + number_text_of(double(c.level)) + ")");
    const int d = int(c.direction);
    if (d < -1 || d > 1) throw problem_error(which + " has a direction that is not up, down or either");
    if (!c.stop) {
      if (c.change.sets_param >= 0)
        throw problem_error(which + "'s change sets a parameter: an input's breakpoints are events at given times");
      const std::string fault = event_fault(c.change, n_states, n_params);
      if (!fault.empty()) throw problem_error(which + "'s change " + fault);
    }
  }
}

// Refuses crossing events for a computation whose derivatives would miss
// the crossing time's own dependence on the parameters and initial state
// (forward sensitivities, log-densities): `what` names it.
template <class T>
void refuse_crossings(const ode_problem<T>& pr, const char* what) {
  if (!pr.crossings.empty())
    throw problem_error(std::string("fluxion: ") + what +
                        " does not take crossing events: its derivatives would miss how the crossing's time "
                        "moves with the parameters (events at given times are exact)");
}

// Checks the problem for a model of n_states states, n_params parameters
// and n_observables observables (the indices its events name) and gives
// the options every trajectory shares. A caller whose system takes no
// crossing events (sensitivities, log-densities) refuses them first.
template <class T>
ode_options<T> check_problem(const ode_problem<T>& pr, std::size_t n_states, std::size_t n_params,
                             std::size_t n_observables = 0) {
  using detail::number_text_of;
  if (!std::isfinite(double(pr.t0)) || !std::isfinite(double(pr.t1)))
    throw problem_error("fluxion: the time span must be finite, got [" + number_text_of(double(pr.t0)) + ", " +
                        number_text_of(double(pr.t1)) + "]");
  if (!(pr.t1 > pr.t0))
    throw problem_error("fluxion: the time span must end after it starts (t1 > t0), got [" +
                        number_text_of(double(pr.t0)) + ", " + number_text_of(double(pr.t1)) + "]");
  if (!(pr.rtol > T(0)) || !std::isfinite(double(pr.rtol)))
    throw problem_error("fluxion: the relative tolerance must be positive and finite, got " +
                        number_text_of(double(pr.rtol)));
  // A null pointer with a length (std::span(nullptr, k)) has no values to read.
  if (pr.save_times.data() == nullptr && !pr.save_times.empty())
    throw problem_error("fluxion: save_times is a null pointer with a length of " +
                        std::to_string(pr.save_times.size()) + " (no save time can be read)");
  if (pr.atol_per_state.data() == nullptr && !pr.atol_per_state.empty())
    throw problem_error("fluxion: atol_per_state is a null pointer with a length of " +
                        std::to_string(pr.atol_per_state.size()) + " (no tolerance can be read)");
  if (pr.atol_per_state.empty()) {
    if (!(pr.atol > T(0)) || !std::isfinite(double(pr.atol)))
      throw problem_error("fluxion: the absolute tolerance must be positive and finite, got " +
                          number_text_of(double(pr.atol)));
  } else {
    if (pr.atol_per_state.size() != n_states)
      throw problem_error("fluxion: one absolute tolerance per state is " + std::to_string(n_states) +
                          " values, got " + std::to_string(pr.atol_per_state.size()));
    for (std::size_t i = 0; i < n_states; ++i)
      if (!(pr.atol_per_state[i] > T(0)) || !std::isfinite(double(pr.atol_per_state[i])))
        throw problem_error("fluxion: the absolute tolerance of state " + std::to_string(i) +
                            " must be positive and finite, got " + number_text_of(double(pr.atol_per_state[i])));
  }
  if (pr.initial_step < T(0) || !std::isfinite(double(pr.initial_step)))
    throw problem_error("fluxion: the initial step must be positive (or 0 to choose it), got " +
                        number_text_of(double(pr.initial_step)));
  if (!pr.adaptive && !(pr.initial_step > T(0)))
    throw problem_error("fluxion: fixed steps (adaptive = false) need a positive initial_step");
  if (pr.max_steps < 1 || pr.max_steps > 100000000)
    throw problem_error("fluxion: max_steps must be between 1 and 100,000,000, got " + std::to_string(pr.max_steps));
  for (std::size_t s = 0; s < pr.save_times.size(); ++s) {
    const T ts = pr.save_times[s];
    if (std::isnan(double(ts)))
      throw problem_error("fluxion: save time " + std::to_string(s) + " is not a number (NaN)");
    if (!(ts >= pr.t0 && ts <= pr.t1))
      throw problem_error("fluxion: save time " + std::to_string(s) + " (" + number_text_of(double(ts)) +
                          ") lies outside the span [" + number_text_of(double(pr.t0)) + ", " +
                          number_text_of(double(pr.t1)) + "]");
    if (s > 0 && !(ts > pr.save_times[s - 1]))
      throw problem_error("fluxion: save times must be strictly increasing; save time " + std::to_string(s) + " (" +
                          number_text_of(double(ts)) + ") follows " + number_text_of(double(pr.save_times[s - 1])));
  }
  check_events(pr, n_states, n_params);
  check_crossings(pr, n_states, n_params, n_observables);
  ode_options<T> o;
  o.t0 = pr.t0;
  o.t1 = pr.t1;
  o.rtol = pr.rtol;
  o.atol = pr.atol;
  o.atol_per_state = pr.atol_per_state.empty() ? nullptr : pr.atol_per_state.data();
  o.save_times = pr.save_times.data();
  o.n_save = pr.save_times.size();
  o.initial_step = pr.initial_step;
  o.max_steps = pr.max_steps;
  o.adaptive = pr.adaptive;
  o.step_to_save_times = pr.step_to_save_times;
  o.events = pr.events.empty() ? nullptr : pr.events.data();
  o.n_events = pr.events.size();
  o.sets_params = sets_params(pr.events);
  o.crossings = pr.crossings.empty() ? nullptr : pr.crossings.data();
  o.n_crossings = pr.crossings.size();
  return o;
}

}  // namespace fluxion
