#pragma once
// Ensembles integrated on the host in SIMD lanes: W = lanes<T>::width
// trajectories advance together, one per lane, each at its own time with its
// own step size, accepting or rejecting its own steps. A step is attempted
// in all lanes at once (the method's lane step, solve/lane_steps.hpp); what
// follows an attempt is decided lane by lane, by the step control and the
// save times of one trajectory (detail::step_control, detail::save_cursor:
// the adaptive driver's own, solve/driver.hpp). A lane whose trajectory ends
// (success or not) takes the next trajectory of the range, so lanes stay
// busy until the range runs dry. Host only.
#include <cstddef>

#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/crossings.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/lane_steps.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/saved_states.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/solve/step_control.hpp>

namespace fluxion::detail {

template <class Method, class M, class L>
class lane_ensemble {
  using T = typename M::scalar;
  using Step = typename lane_step_of<Method, M, L>::type;
  static constexpr int n = int(M::n_states);
  static constexpr int np = int(M::n_params) > 0 ? int(M::n_params) : 1;
  static constexpr std::size_t W = L::width;
  using scalar_step = typename Step::scalar_step;
  using scalar_driver = adaptive_driver<scalar_step, M>;

  // Element-major, lanes consecutive: element i of lane w at [i][w], as
  // compiled::rhs_lanes reads and writes with element stride W.
  T y_[n][W], ynew_[n][W], p_[np][W];
  T t_[W], h_[W];
  Step step_;

  // A lane's trajectory: which one, its save times and its step control
  // (as adaptive_driver::integrate keeps them), how it ended, its statistics.
  struct lane {
    bool busy = false;
    std::size_t trajectory = 0;
    save_cursor<T> saved;
    event_cursor<T> events;
    crossing_log crossed;
    step_control<T> control;
    solve_status status = solve_status::success;
    solve_statistics stats{};
  };
  lane lanes_[W];

  const M& m_;
  const ode_options<T>& o_;

 public:
  lane_ensemble(const M& m, const ode_options<T>& o) : m_(m), o_(o) {}

  // Integrates trajectories [begin, end); io(b) says where trajectory b
  // reads and writes, done(b, status, stats) records its end.
  template <class IO, class Done>
  void run(std::size_t begin, std::size_t end, const IO& io, const Done& done) {
    std::size_t next = begin;
    for (std::size_t w = 0; w < W; ++w) {
      idle(w);
      start_next(w, next, end, io, done);
    }
    for (;;) {
      bool any = false;
      for (std::size_t w = 0; w < W; ++w) {
        any = any || lanes_[w].busy;
        h_[w] = lanes_[w].control.h;
      }
      if (!any) return;
      const L err = step_.attempt(m_, o_, L::load(t_), L::load(h_), y_, ynew_, &p_[0][0]);
      for (std::size_t w = 0; w < W; ++w)
        if (lanes_[w].busy && !advance(w, err[w], io(lanes_[w].trajectory))) {
          finish(w, io, done);
          start_next(w, next, end, io, done);
        }
    }
  }

 private:
  // A lane without a trajectory: a zero step from a finite state.
  void idle(std::size_t w) {
    lanes_[w].busy = false;
    lanes_[w].control = step_control<T>{};
    t_[w] = o_.t0;
    for (int i = 0; i < n; ++i) y_[i][w] = T(1);
    for (int j = 0; j < np; ++j) p_[j][w] = T(1);
    step_.idle(w);
  }

  // Starts trajectories in lane w until one needs steps (or the range is
  // done), as adaptive_driver::integrate starts one.
  template <class IO, class Done>
  void start_next(std::size_t w, std::size_t& next, std::size_t end, const IO& io, const Done& done) {
    while (next < end) {
      const std::size_t b = next++;
      const trajectory_io<T> t_io = io(b);
      lane& ln = lanes_[w] = lane{
          .busy = true, .trajectory = b, .saved = save_cursor<T>(o_), .events = event_cursor<T>(o_), .crossed = {},
          .control = {}};
      for (int i = 0; i < n; ++i) y_[i][w] = t_io.x0[std::ptrdiff_t(i) * t_io.x0_stride];
      ln.crossed.begin(o_, t_io);
      for (int j = 0; j < int(M::n_params); ++j) p_[j][w] = t_io.p[std::ptrdiff_t(j) * t_io.p_stride];
      t_[w] = o_.t0;
      apply_events(w);
      saved_state_writer<T> sink{t_io};
      ln.saved.reached(o_, sink, n, o_.t0, vector_values<L>{y_, w});
      restart(w);
      if (ln.control.ready(o_, ln.stats, o_.t0, ln.events.bound(ln.saved.target(o_)), ln.status))
        return;  // a step to take
      finish(w, io, done);
    }
    idle(w);
  }

  // f(y, p) on lane w's state and parameters, both written back (an input's
  // event sets a parameter).
  template <class F>
  void on_lane(std::size_t w, const F& f) {
    T y[n], p[np];
    for (int i = 0; i < n; ++i) y[i] = y_[i][w];
    for (int j = 0; j < int(M::n_params); ++j) p[j] = p_[j][w];
    f(y, static_cast<const T*>(p));
    for (int i = 0; i < n; ++i) y_[i][w] = y[i];
    for (int j = 0; j < int(M::n_params); ++j) p_[j][w] = p[j];
  }
  // Lane w's events due at its time, on its state.
  void apply_events(std::size_t w) {
    lane& ln = lanes_[w];
    if (ln.events.due(t_[w])) on_lane(w, [&](T* y, const T* p) { ln.events.apply_due(m_, t_[w], y, p, 1); });
  }
  // A crossing event's change on lane w's state.
  void change_state(std::size_t w, const timed_event<T>& e) {
    on_lane(w, [&](T* y, const T* p) { apply_event(m_, e, y, p, 1); });
  }

  // Lane w from its (t, y), as adaptive_driver::integrate starts (at t0 and
  // after events): f there, the first step, a fresh step control.
  void restart(std::size_t w) {
    lane& ln = lanes_[w];
    on_lane(w, [&](T* y, const T* p) {
      T f0[n], y1[n], f1[n];
      m_.rhs(t_[w], y, 1, p, 1, f0, 1);
      ++ln.stats.rhs_evaluations;
      ln.control = step_control<T>{};
      ln.control.h = scalar_driver::first_step(m_, o_, t_[w], p, 1, y, f0, y1, f1, ln.stats);
      step_.start(w, f0, ln.stats);
    });
  }

  // The step's dense output in lane w (for the methods that prepare one).
  void prepare_dense(std::size_t w, T t, T h) {
    if constexpr (requires { step_.prepare_dense(m_, t, h, y_, ynew_, &p_[0][0], 0, lanes_[w].stats, w); })
      step_.prepare_dense(m_, t, h, y_, ynew_, &p_[0][0], 0, lanes_[w].stats, w);
  }
  // A crossing inside lane w's step from t to t_new (solve/crossings.hpp);
  // prepared: whether its dense output is.
  [[gnu::noinline]] crossing_found<T> find_crossing(std::size_t w, T t, T t_new, T h, bool prepared) {
    T y[n], yn[n], p[np];
    for (int i = 0; i < n; ++i) y[i] = y_[i][w], yn[i] = ynew_[i][w];
    for (int j = 0; j < int(M::n_params); ++j) p[j] = p_[j][w];
    return crossing_search<M>::find(m_, o_, t, t_new, h, y, yn, p, 1, [&](T theta, T* out) {
      if (!prepared) prepare_dense(w, t, h), prepared = true;
      for (int i = 0; i < n; ++i) out[i] = step_.dense(theta, h, y_, ynew_, i, w);
    });
  }

  // After an attempt whose error is err (n err^2), lane w's decisions
  // (adaptive_driver::integrate's, by the same step_control and
  // save_cursor). True: its next attempt is ready; false: its trajectory
  // ended (lanes_[w].status).
  bool advance(std::size_t w, T err, const trajectory_io<T>& io) {
    lane& ln = lanes_[w];
    step_.count_attempt(ln.stats, w);
    const T t = t_[w], h = ln.control.h;
    bool events_now = false;
    const bool go_on = ln.control.template judge<Step, n>(o_, t, err, ln.stats, ln.status, [&](T t_new) {
      // The dense output prepared here, and on demand in find_crossing (out
      // of line: this path stays small, which the lanes' speed depends on).
      const bool prepared = ln.saved.inside(t_new);
      if (prepared) prepare_dense(w, t, h);
      saved_state_writer<T> sink{io};
      // A crossing (solve/crossings.hpp), as adaptive_driver::integrate
      // takes it.
      crossing_found<T> cross;
      if constexpr (takes_crossings<M>)
        if (o_.n_crossings) cross = find_crossing(w, t, t_new, h, prepared);
      const bool crossed = cross.event >= 0;
      T t_now = t_new;
      if (crossed && cross.theta < T(1)) {
        t_now = t + cross.theta * h;
        ln.saved.template serve<L>(o_, sink, step_, n, t, t_now, h, y_, ynew_, w, false);
        T at[n];
        for (int i = 0; i < n; ++i) at[i] = step_.dense(cross.theta, h, y_, ynew_, i, w);
        for (int i = 0; i < n; ++i) y_[i][w] = at[i];
      } else {
        // (Two calls, so that the common one serves with a constant: one
        // call with !events_now cost Robertson's Rodas5P lanes 15-25%.)
        events_now = crossed || ln.events.due(t_new);
        if (events_now) ln.saved.template serve<L>(o_, sink, step_, n, t, t_new, h, y_, ynew_, w, false);
        else ln.saved.template serve<L>(o_, sink, step_, n, t, t_new, h, y_, ynew_, w, true);
        for (int i = 0; i < n; ++i) y_[i][w] = ynew_[i][w];
      }
      t_[w] = t_now;
      if (crossed) {
        events_now = true;
        const crossing_event<T>& e = o_.crossings[cross.event];
        ln.crossed.record(cross.event, t_now, io);
        if (e.stop) {
          ln.saved.reached(o_, sink, n, t_now, vector_values<L>{y_, w});
          return false;  // the end: success
        }
        change_state(w, e.change);
      }
      if (events_now) {
        apply_events(w);
        ln.saved.reached(o_, sink, n, t_now, vector_values<L>{y_, w});
      }
      if (!(t_now < o_.t1)) return false;  // the end: success
      if (!events_now) step_.accept(w, t_now, ln.stats);
      return true;
    });
    if (go_on && events_now) restart(w);
    return go_on && ln.control.ready(o_, ln.stats, t_[w], ln.events.bound(ln.saved.target(o_)), ln.status);
  }

  // The end of lane w's trajectory: final state, status, statistics; save
  // times it did not reach read NaN (as adaptive_driver).
  template <class IO, class Done>
  void finish(std::size_t w, const IO& io, const Done& done) {
    lane& ln = lanes_[w];
    const trajectory_io<T> t_io = io(ln.trajectory);
    saved_state_writer<T> sink{t_io};
    ln.saved.unreached(o_, sink, n);
    for (int i = 0; i < n; ++i) t_io.final_state[std::ptrdiff_t(i) * t_io.final_stride] = y_[i][w];
    done(ln.trajectory, ln.status, ln.stats);
    ln.busy = false;
  }
};

}  // namespace fluxion::detail
