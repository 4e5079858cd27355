#pragma once
// Ensembles integrated on the host in SIMD lanes: W = lanes<T>::width
// trajectories advance together, one per lane, each at its own time with its
// own step size, accepting or rejecting its own steps. A step is attempted
// in all lanes at once (the right-hand side through compiled::rhs_lanes with
// a time per lane; for Rosenbrock methods also the Jacobian through
// compiled::jacobian_dense_lanes and the iteration matrix factored lane by
// lane with dense_lu over lanes); the decisions that follow an attempt are
// made lane by lane. A lane whose trajectory ends (success or not) takes the
// next trajectory of the range, so lanes stay busy until the range runs dry.
// Host only (fx::host::integrate uses it for methods that qualify, see
// lane_integrable); nvcc translation units integrate one trajectory at a time.
//
// Each trajectory follows the algorithm of solve/driver.hpp (adaptive_driver:
// HNW I, II.4 step control, dense output at save times, statuses), decision
// for decision and by the same code: the step control and the save times
// are detail::step_control and detail::save_cursor, and each method's step
// is written once over a value type (solve/values.hpp), one trajectory's
// scalar there and lanes here (solve/lane_values.hpp), so a trajectory's
// result does not depend on which lane or which neighbours it had. The
// method-specific part of an attempt is a lane step (lane_explicit_step for
// Tsit5 and Vern7, lane_rosenbrock23_step, lane_rodas_step: the method's
// step over lanes, and what the ensemble asks besides), the rest is
// lane_ensemble's.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/dense_lu.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/lane_values.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion {

// Explicit pairs the lanes integrate (explicit_rk_step's tableaus: Tsit5,
// first same as last; Vern7, with extra stages for its dense output).
template <class Method>
concept lane_explicit_method = requires(double th, double* w) {
  Method::dense_weights(th, w);
  Method::a[0][0];
  Method::first_same_as_last;
};

// Whether model M evaluates its right-hand side in SIMD lanes with a time
// per lane (compiled models do; an augmented system such as
// sensitivity_system does not, and its trajectories run one at a time).
template <class M>
concept lane_evaluable = std::is_floating_point_v<typename M::scalar> &&
                         requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
                           m.template rhs_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1,
                                                                            out, 1);
                         };

// Whether M also gives its Jacobian and d rhs / dt in lanes (compiled
// models do).
template <class M>
concept lane_linearizable =
    lane_evaluable<M> && requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
      m.template jacobian_dense_lanes<M::jacobian::x>(lanes<typename M::scalar>{}, x, 1, x, 1, out);
      m.template rhs_dt_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1, out, 1);
    };

// Whether fx::host::integrate runs Method on M in lanes.
template <class Method, class M>
concept lane_integrable =
    lane_evaluable<M> &&
    (lane_explicit_method<Method> ||
     ((std::is_same_v<Method, rosenbrock23> || std::is_same_v<Method, rodas5p>) && lane_linearizable<M>));

namespace detail {

// The factorization of larger matrices (dense_lu<T, N, false>: row exchanges
// by a recorded pivot) for one matrix per lane: each lane picks its pivot
// and exchanges its rows as the scalar factorization does (the first row
// of largest magnitude), and the elimination and the triangular solves run
// on all lanes at once; each lane's factors and solutions are those of its
// matrix alone, bit for bit. factor() returns the lanes whose pivots are all
// non-zero (a lane with a zero pivot is not eliminated further there, as
// alone; its values are not used).
template <class T, std::size_t W, int N>
struct dense_lu<lanes<T, W>, N, false> {
  using L = lanes<T, W>;
  using truth = lane_mask<T, W>;
  L a[N][N];
  int pivot[N][W];

  truth factor() {
    bool regular[W];
    for (std::size_t w = 0; w < W; ++w) regular[w] = true;
    for (int c = 0; c < N; ++c) {
      bool eliminate = false;
      for (std::size_t w = 0; w < W; ++w) {
        int best = c;
        T best_abs = math::abs(a[c][c][w]);
        for (int r = c + 1; r < N; ++r) {
          const T v = math::abs(a[r][c][w]);
          if (v > best_abs) best = r, best_abs = v;
        }
        pivot[c][w] = best;
        if (best != c)
          for (int k = 0; k < N; ++k) {
            const T tmp = a[c][k][w];
            a[c][k].v[w] = a[best][k][w];
            a[best][k].v[w] = tmp;
          }
        if (!(best_abs > T(0))) regular[w] = false;
        eliminate = eliminate || regular[w];
      }
      if (!eliminate) continue;
      const L inv = L(T(1)) / a[c][c];
      a[c][c] = inv;  // as the scalar factorization keeps it
      for (int r = c + 1; r < N; ++r) {
        const L l = a[r][c] * inv;
        a[r][c] = l;
        for (int k = c + 1; k < N; ++k) a[r][k] = a[r][k] - l * a[c][k];
      }
    }
    truth m;
    for (std::size_t w = 0; w < W; ++w) m.m[w] = regular[w] ? -1 : 0;
    return m;
  }

  // b := A^-1 b, lane by lane.
  void solve(L* b) const {
    for (int c = 0; c < N; ++c)
      for (std::size_t w = 0; w < W; ++w)
        if (pivot[c][w] != c) {
          const T tmp = b[c][w];
          b[c].v[w] = b[pivot[c][w]][w];
          b[pivot[c][w]].v[w] = tmp;
        }
    for (int r = 1; r < N; ++r)
      for (int k = 0; k < r; ++k) b[r] = b[r] - a[r][k] * b[k];
    for (int r = N - 1; r >= 0; --r) {
      for (int k = r + 1; k < N; ++k) b[r] = b[r] - a[r][k] * b[k];
      b[r] = b[r] * a[r][r];  // the pivot's reciprocal
    }
  }
};

// --- lane steps -----------------------------------------------------------------
// A method's step over lanes (V = lanes<T, W>: explicit_rk_step,
// rosenbrock23_step, rodas_step, the same bodies as one trajectory's) and
// what a lane_ensemble asks of it besides, for all W lanes at once. Arrays
// are element-major with the lanes consecutive (element i of lane w at
// [i][w], solve/lane_values.hpp).
//   scalar_step                      the one-trajectory step (the starting step comes from its driver)
//   start(w, f0, stats)              lane w begins a trajectory; f0 = f(t0, y0)
//   idle(w)                          lane w has no trajectory
//   attempt(m, o, t, h, y, ynew, p) -> L   every lane's attempt: ynew and n
//                                    err^2 for its error norm err (NaN: not finite)
//   count_attempt(stats, w)          the work the attempt did for lane w
//   accept(w, t, stats)              lane w accepted and goes on from ynew at t
//   prepare_dense(m, t, h, y, ynew, p, ps, stats, w)   optional: before lane w's
//                                    dense output in an accepted step
//   dense(theta, h, y, ynew, i, w)   component i of lane w at t + theta h
// What one trajectory keeps from its last accepted point and a lane does
// not (f(t, y) of a pair that is not first same as last, J of ode23s) is
// evaluated at every attempt, in every lane: at the lane's (t, y), after a
// rejection the same point, hence the same values. The statistics count
// what one trajectory counts.

// An explicit pair (explicit_rk_step). The extra stages of the dense output
// are computed lane by lane, for a lane with a save time inside its step.
template <class Method, class M, class L>
struct lane_explicit_step : explicit_rk_step<Method, M, L> {
  using base = explicit_rk_step<Method, M, L>;
  using typename base::T, typename base::cell, typename base::values;
  using base::n, base::D, base::fsal, base::reuse_new_point;
  using scalar_step = explicit_rk_step<Method, M>;

  void start(std::size_t w, const T* f0, solve_statistics&) {
    for (int i = 0; i < n; ++i) this->k[0][i][w] = f0[i];
    if constexpr (reuse_new_point) this->ready[w] = false;
  }
  void idle(std::size_t w) {
    for (int j = 0; j < D; ++j)
      for (int i = 0; i < n; ++i) this->k[j][i][w] = T(0);
    if constexpr (reuse_new_point) this->ready[w] = false;
  }
  // Not first same as last (Vern7): f(t, y) first, the value one trajectory
  // computes on accepting (or takes from its first extra stage, computed at
  // the same point).
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    if constexpr (!fsal) values::rhs(m, t, y, p, 0, this->k[0]);
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t w, T t, solve_statistics& st) {
    if constexpr (fsal) this->carry_last_stage(w);
    else if (!this->computed_new_point(w, t)) ++st.rhs_evaluations;  // f there, evaluated at the next attempt
  }
};

// Shampine & Reichelt's ode23s (rosenbrock23_step): J (and df/dt) of every
// lane at its (t, y), one trajectory's from its last accepted point.
template <class M, class L>
struct lane_rosenbrock23_step : rosenbrock23_step<M, L> {
  using base = rosenbrock23_step<M, L>;
  using typename base::T, typename base::cell;
  using base::n;
  using scalar_step = rosenbrock23_step<M>;

  void start(std::size_t w, const T* f0, solve_statistics& st) {
    for (int i = 0; i < n; ++i) this->F0[i][w] = f0[i];
    ++st.jacobian_evaluations;  // begin(): J at (t0, y0), evaluated at the first attempt
  }
  void idle(std::size_t w) {
    for (int i = 0; i < n; ++i) this->F0[i][w] = T(0);
  }
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    this->lin.evaluate(m, t, y, p, 0);
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t w, T, solve_statistics& st) {
    this->carry_new_point(w);
    ++st.jacobian_evaluations;  // J there, evaluated at the next attempt
  }
};

// A stiffly accurate Rodas-type step (rodas_step): f, J and df/dt at every
// attempt, as one trajectory evaluates them.
template <class Method, class M, class L>
struct lane_rodas_step : rodas_step<Method, M, L> {
  using base = rodas_step<Method, M, L>;
  using typename base::T, typename base::cell;
  using scalar_step = rodas_step<Method, M>;

  void start(std::size_t, const T*, solve_statistics& st) { ++st.jacobian_evaluations; }
  void idle(std::size_t) {}
  L attempt(const M& m, const ode_options<T>& o, L t, L h, const cell* y, cell* ynew, const T* p) {
    return this->trial(m, o, t, h, y, ynew, p, 0);
  }
  void accept(std::size_t, T, solve_statistics& st) { base::count_accept(st); }
};

template <class Method, class M, class L>
struct lane_step_of {
  using type = lane_explicit_step<Method, M, L>;
};
template <class M, class L>
struct lane_step_of<rosenbrock23, M, L> {
  using type = lane_rosenbrock23_step<M, L>;
};
template <class M, class L>
struct lane_step_of<rodas5p, M, L> {
  using type = lane_rodas_step<rodas5p, M, L>;
};

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
      lane& ln = lanes_[w];
      ln = lane{};
      ln.busy = true;
      ln.trajectory = b;
      ln.saved = save_cursor<T>(o_);
      T y[n], p[np], f0[n], y1[n], f1[n];
      for (int i = 0; i < n; ++i) y[i] = t_io.x0[std::ptrdiff_t(i) * t_io.x0_stride];
      for (int j = 0; j < int(M::n_params); ++j) p[j] = t_io.p[std::ptrdiff_t(j) * t_io.p_stride];
      saved_state_writer<T> sink{t_io};
      ln.saved.reached(o_, sink, n, o_.t0, vector_values<T>{y});
      m_.rhs(o_.t0, y, 1, p, 1, f0, 1);
      ++ln.stats.rhs_evaluations;
      ln.control.h = scalar_driver::first_step(m_, o_, p, 1, y, f0, y1, f1, ln.stats);
      for (int i = 0; i < n; ++i) y_[i][w] = y[i];
      for (int j = 0; j < int(M::n_params); ++j) p_[j][w] = p[j];
      step_.start(w, f0, ln.stats);
      t_[w] = o_.t0;
      if (ln.control.ready(o_, ln.stats, o_.t0, ln.saved.target(o_), ln.status)) return;  // a step to take
      finish(w, io, done);
    }
    idle(w);
  }

  // After an attempt whose error is err (n err^2), lane w's decisions
  // (adaptive_driver::integrate's, by the same step_control and
  // save_cursor). True: its next attempt is ready; false: its trajectory
  // ended (lanes_[w].status).
  bool advance(std::size_t w, T err, const trajectory_io<T>& io) {
    lane& ln = lanes_[w];
    step_.count_attempt(ln.stats, w);
    const T t = t_[w], h = ln.control.h;
    const bool go_on = ln.control.template judge<Step, n>(o_, t, err, ln.stats, ln.status, [&](T t_new) {
      if constexpr (requires { step_.prepare_dense(m_, t, h, y_, ynew_, &p_[0][0], 0, ln.stats, w); })
        if (ln.saved.inside(t_new)) step_.prepare_dense(m_, t, h, y_, ynew_, &p_[0][0], 0, ln.stats, w);
      saved_state_writer<T> sink{io};
      ln.saved.template serve<L>(o_, sink, step_, n, t, t_new, h, y_, ynew_, w);
      for (int i = 0; i < n; ++i) y_[i][w] = ynew_[i][w];
      t_[w] = t_new;
      if (!(t_new < o_.t1)) return false;  // the end: success
      step_.accept(w, t_new, ln.stats);
      return true;
    });
    return go_on && ln.control.ready(o_, ln.stats, t_[w], ln.saved.target(o_), ln.status);
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

}  // namespace detail

}  // namespace fluxion
