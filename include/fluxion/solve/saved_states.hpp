#pragma once
// Where a trajectory's saved states go (a sink) and which save times a step
// serves (save_cursor): shared by the adaptive driver (solve/driver.hpp) and
// the host lanes (solve/lane_ensemble.hpp).
//
// A sink has
//   save(s, t, n, values)   values(i) for i < n: the state at save time s (time t)
// and is called once per save time, in order (NaN values for save times the
// integration did not reach). saved_state_writer stores them in
// trajectory_io's buffer; the infer layer folds them into a log-density
// instead (fluxion/infer/log_density.hpp).
#include <cstddef>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion::detail {

template <class T>
struct saved_state_writer {
  static constexpr bool saves = true;
  static constexpr bool crossings = true;  // an integration's result: crossing events may end or change it
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
  static constexpr bool crossings = true;
  template <class T, class Values>
  FLUXION_HOST_DEVICE void save(std::size_t, T, int, const Values&) const {}
};
// Whether a sink takes saved states (a sink that does not say does).
template <class Sink>
FLUXION_HOST_DEVICE constexpr bool sink_saves() {
  if constexpr (requires { Sink::saves; }) return Sink::saves;
  else return true;
}
// Whether the integration a sink serves takes crossing events
// (solve/crossings.hpp): an integration's own result does; a sink that does
// not say (a log-density's, which refuses them) compiles the driver without
// their code.
template <class Sink>
FLUXION_HOST_DEVICE constexpr bool sink_takes_crossings() {
  if constexpr (requires { Sink::crossings; }) return Sink::crossings;
  else return false;
}

// The values a sink is given: a state vector, one value everywhere, or the
// step's dense output at t + theta h. For a step over lanes (V =
// fluxion::lanes, solve/values.hpp), lane w's; for one trajectory the lane
// takes no room (lane_index<1> is empty): a sink may take the values by
// reference in a call that is not inlined (infer/log_density.hpp), where
// they live in a GPU thread's stack frame.
template <std::size_t W>
struct lane_index {
  std::size_t w;
  FLUXION_HOST_DEVICE constexpr explicit lane_index(std::size_t lane) : w(lane) {}
};
template <>
struct lane_index<1> {
  static constexpr std::size_t w = 0;
  FLUXION_HOST_DEVICE constexpr explicit lane_index(std::size_t) {}
};

template <class V>
struct vector_values : lane_index<step_values<V>::width> {
  using values = step_values<V>;
  const typename values::cell* v;
  FLUXION_HOST_DEVICE vector_values(const typename values::cell* state, std::size_t lane = 0)
      : lane_index<values::width>(lane), v(state) {}
  FLUXION_HOST_DEVICE typename values::scalar operator()(int i) const { return values::lane(v[i], this->w); }
};
template <class T>
struct constant_values {
  T v;
  FLUXION_HOST_DEVICE T operator()(int) const { return v; }
};
template <class Step, class V>
struct dense_values : lane_index<step_values<V>::width> {
  using values = step_values<V>;
  using T = typename values::scalar;
  using cell = typename values::cell;
  const Step& step;
  T theta, h;
  const cell* y;
  const cell* ynew;
  FLUXION_HOST_DEVICE dense_values(const Step& of, T at, T length, const cell* start, const cell* end,
                                   std::size_t lane = 0)
      : lane_index<values::width>(lane), step(of), theta(at), h(length), y(start), ynew(end) {}
  FLUXION_HOST_DEVICE T operator()(int i) const {
    if constexpr (values::width == 1) return step.dense(theta, h, y, ynew, i);
    else return step.dense(theta, h, y, ynew, i, this->w);
  }
};

// The save times of one trajectory still to serve: the next one (index
// next, time `time`) and the one after it, held in registers: each is read
// a save time before it is compared, instead of a dependent global load at
// every step, on which the SEIR adjoint's forward kernel sat in 55% of its
// stall samples (Nsight Compute, H100). That kernel's time did not move:
// its stalls went to the registers of its tape stores. Saves: false for a
// sink that takes no saved states (the problem has none): then every test
// below is false at compile time.
template <class T, bool Saves = true>
struct save_cursor {
  std::size_t next = 0;
  std::size_t count = 0;
  T time = 0, after = 0;

  save_cursor() = default;
  FLUXION_HOST_DEVICE explicit save_cursor(const ode_options<T>& o)
      : count(o.n_save),
        time(Saves && o.n_save > 0 ? o.save_times[0] : T(0)),
        after(Saves && o.n_save > 1 ? o.save_times[1] : T(0)) {}

  // Whether a save time is left; whether it is at or before t; before t.
  FLUXION_HOST_DEVICE bool left() const { return Saves && next < count; }
  FLUXION_HOST_DEVICE bool due(T t) const { return left() && time <= t; }
  FLUXION_HOST_DEVICE bool inside(T t) const { return left() && time < t; }
  FLUXION_HOST_DEVICE void pass(const ode_options<T>& o) {
    ++next;
    time = after;
    if (next + 1 < count) after = o.save_times[next + 1];
  }
  // Where the next step should end: t1, or when asked the next save time.
  FLUXION_HOST_DEVICE T target(const ode_options<T>& o) const {
    return o.step_to_save_times && left() ? time : o.t1;
  }

  // The save times at or before t, from values (the state at t).
  template <class Sink, class Values>
  FLUXION_HOST_DEVICE void reached(const ode_options<T>& o, Sink& sink, int n, T t, const Values& values) {
    for (; due(t); pass(o)) sink.save(next, time, n, values);
  }
  // The save times an accepted step from t to t_new (of length h) covers:
  // the step's end from the new state, the others from the step's dense
  // output (lane w's, for a step over lanes V). Without end_too, those
  // strictly inside (events at t_new change the state the end's save reads).
  template <class V, class Sink, class Step, class Cell>
  FLUXION_HOST_DEVICE void serve(const ode_options<T>& o, Sink& sink, const Step& step, int n, T t, T t_new, T h,
                                 const Cell* y, const Cell* ynew, std::size_t w = 0, bool end_too = true) {
    for (; end_too ? due(t_new) : inside(t_new); pass(o)) {
      const T ts = time;
      if (ts == t_new) {  // the step's end: the solution itself
        sink.save(next, ts, n, vector_values<V>{ynew, w});
        continue;
      }
      const T theta = (ts - t) / h;
      sink.save(next, ts, n, dense_values<Step, V>{step, theta, h, y, ynew, w});
    }
  }
  // Save times the integration did not reach read NaN.
  template <class Sink>
  FLUXION_HOST_DEVICE void unreached(const ode_options<T>& o, Sink& sink, int n) {
    for (; left(); pass(o)) sink.save(next, time, n, constant_values<T>{quiet_nan<T>()});
  }
};

}  // namespace fluxion::detail
