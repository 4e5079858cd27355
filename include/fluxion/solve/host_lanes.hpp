#pragma once
// Ensembles of an explicit method integrated on the host in SIMD lanes:
// W = lanes<T>::width trajectories advance together, one per lane, each at
// its own time with its own step size, accepting or rejecting its own steps.
// The stages are computed for all lanes at once (the right-hand side through
// compiled::rhs_lanes with a time per lane); the decisions that follow an
// attempt are made lane by lane. A lane whose trajectory ends (success or
// not) takes the next trajectory of the range, so lanes stay busy until the
// range runs dry. Host only (fx::host::integrate uses it for methods that
// qualify, see lane_integrable); nvcc translation units integrate one
// trajectory at a time.
//
// Each trajectory follows the algorithm of solve/driver.hpp (adaptive_driver:
// HNW I, II.4 step control, dense output at save times, statuses), decision
// for decision; the arithmetic is the same operations in the same order on
// vectors, so a trajectory's result does not depend on which lane or which
// neighbours it had.
#include <cstddef>
#include <utility>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/symbolic/math.hpp>

namespace fluxion {

// Methods the lanes integrate: explicit pairs whose last stage is the next
// step's first and whose dense output weighs the step's own stages.
template <class Method>
concept lane_integrable = Method::first_same_as_last && requires(double th, double* w) {
  Method::dense_weights(th, w);
  Method::a[0][0];
} && (!requires { Method::dense_stages; } || Method::dense_stages == Method::stages);

// Whether model M evaluates its right-hand side in SIMD lanes with a time
// per lane (compiled models do; an augmented system such as
// sensitivity_system does not, and its trajectories run one at a time).
template <class M>
concept lane_evaluable = std::is_floating_point_v<typename M::scalar> &&
                         requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
                           m.template rhs_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1,
                                                                            out, 1);
                         };

namespace detail {

template <class Method, class M, class L>
class lane_ensemble {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int np = int(M::n_params) > 0 ? int(M::n_params) : 1;
  static constexpr int S = Method::stages;
  static constexpr std::size_t W = L::width;
  using scalar_driver = adaptive_driver<explicit_rk_step<Method, M>, M>;
  using stride = fixed_stride<std::ptrdiff_t(W)>;

  // Element-major, lanes consecutive: element i of lane w at [i][w], as
  // compiled::rhs_lanes reads and writes with element stride W.
  T y_[n][W], ynew_[n][W], k_[S][n][W], p_[np][W];
  T t_[W], h_[W];

  struct lane {
    bool busy = false;
    std::size_t trajectory = 0;
    std::size_t next_save = 0;
    T proposed = 0;  // the step before it was cut to land on the target
    bool last = false, rejected_last = false, non_finite_last = false;
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
      for (std::size_t w = 0; w < W; ++w) any = any || lanes_[w].busy;
      if (!any) return;
      attempt();
      for (std::size_t w = 0; w < W; ++w) {
        if (!lanes_[w].busy) continue;
        if (decide(w, io(lanes_[w].trajectory))) {
          finish(w, io, done, solve_status::success);
          start_next(w, next, end, io, done);
        }
      }
    }
  }

 private:
  static L load(const T* v) { return L::load(v); }
  static void store(T* v, L x) { x.store(v); }

  // A lane without a trajectory: a zero step from a finite state.
  void idle(std::size_t w) {
    lanes_[w].busy = false;
    t_[w] = o_.t0;
    h_[w] = T(0);
    for (int i = 0; i < n; ++i) y_[i][w] = T(1), k_[0][i][w] = T(0);
    for (int j = 0; j < np; ++j) p_[j][w] = T(1);
  }

  // Starts trajectories in lane w until one needs steps (or the range is done).
  template <class IO, class Done>
  void start_next(std::size_t w, std::size_t& next, std::size_t end, const IO& io, const Done& done) {
    while (next < end) {
      const std::size_t b = next++;
      const trajectory_io<T> t_io = io(b);
      lane& ln = lanes_[w];
      ln = lane{};
      ln.busy = true;
      ln.trajectory = b;
      T y[n], p[np], f0[n], y1[n], f1[n];
      for (int i = 0; i < n; ++i) y[i] = t_io.x0[std::ptrdiff_t(i) * t_io.x0_stride];
      for (int j = 0; j < int(M::n_params); ++j) p[j] = t_io.p[std::ptrdiff_t(j) * t_io.p_stride];
      for (; ln.next_save < o_.n_save && o_.save_times[ln.next_save] <= o_.t0; ++ln.next_save)
        saved_state_writer<T>{t_io}.save(ln.next_save, o_.save_times[ln.next_save], n, vector_values<T>{y});
      m_.rhs(o_.t0, y, 1, p, 1, f0, 1);
      ++ln.stats.rhs_evaluations;
      const T span = o_.t1 - o_.t0;
      const T h = o_.initial_step > T(0) ? (o_.initial_step < span ? o_.initial_step : span)
                                         : scalar_driver::starting_step(m_, o_, p, 1, y, f0, y1, f1, span, ln.stats);
      for (int i = 0; i < n; ++i) y_[i][w] = y[i], k_[0][i][w] = f0[i];
      for (int j = 0; j < int(M::n_params); ++j) p_[j][w] = p[j];
      t_[w] = o_.t0;
      h_[w] = h;
      if (prepare(w)) return;  // a step to take
      finish(w, io, done, pending_status_);
    }
    idle(w);
  }

  // Before an attempt (adaptive_driver::integrate): the step budget, the
  // smallest step, and a last step cut to end on its target. False: the
  // trajectory stops with pending_status_.
  solve_status pending_status_ = solve_status::success;
  bool prepare(std::size_t w) {
    lane& ln = lanes_[w];
    const T eps = epsilon_of<T>();
    if (ln.stats.accepted + ln.stats.rejected >= int(o_.max_steps)) {
      pending_status_ = solve_status::max_steps;
      return false;
    }
    const T t = t_[w];
    T h = h_[w];
    if (!(h > T(16) * eps * math::abs(t))) {
      pending_status_ = ln.non_finite_last ? solve_status::non_finite : solve_status::step_too_small;
      return false;
    }
    const T target = target_of(ln);
    ln.proposed = h;
    const T mag = math::abs(t) > math::abs(target) ? math::abs(t) : math::abs(target);
    ln.last = h >= (target - t) - T(16) * eps * mag;
    if (ln.last) h = target - t;
    h_[w] = h;
    return true;
  }

  T target_of(const lane& ln) const {
    return o_.step_to_save_times && ln.next_save < o_.n_save ? o_.save_times[ln.next_save] : o_.t1;
  }

  // The stages of every lane's step (explicit_rk_step::attempt, in lanes).
  template <int Stage = 1>
  void stages(L t, L h) {
    if constexpr (Stage < S) {
      for (int i = 0; i < n; ++i) {
        L acc = L(T(0));
        [&]<int... J>(std::integer_sequence<int, J...>) {
          ((acc = acc + L(T(Method::a[Stage][J])) * load(k_[J][i])), ...);
        }(std::make_integer_sequence<int, Stage>{});
        store(ynew_[i], load(y_[i]) + h * acc);
      }
      m_.template rhs_lanes<L>(t + L(T(Method::c[Stage])) * h, &ynew_[0][0], stride{}, &p_[0][0], stride{},
                               &k_[Stage][0][0], stride{});
      stages<Stage + 1>(t, h);
    }
  }

  // err_[w]: the weighted error norm of lane w's attempt (NaN: not finite).
  T err_[W];
  void attempt() {
    const L t = load(t_), h = load(h_);
    stages(t, h);
    L err2 = L(T(0));
    for (int i = 0; i < n; ++i) {
      L sol = L(T(0)), est = L(T(0));
      [&]<int... J>(std::integer_sequence<int, J...>) {
        ((sol = sol + L(T(Method::b[J])) * load(k_[J][i])), ...);
        ((est = est + L(T(Method::e[J])) * load(k_[J][i])), ...);
      }(std::make_integer_sequence<int, S>{});
      const L yi = load(y_[i]);
      const L yn = yi + h * sol;
      store(ynew_[i], yn);
      const L e = h * est;
      // The tolerance of component i (detail::tolerance), lane by lane.
      const L atol = L(o_.atol_per_state ? o_.atol_per_state[i] : o_.atol);
      const L ma = yi.map([](T v) { return math::abs(v); }), mb = yn.map([](T v) { return math::abs(v); });
      const L r = e / (atol + L(o_.rtol) * lane_select(ma > mb, ma, mb));
      err2 = err2 + r * r;
    }
    for (std::size_t w = 0; w < W; ++w) {
      bool finite_state = true;
      for (int i = 0; i < n; ++i) finite_state = finite_state && finite(ynew_[i][w]);
      const T err = math::sqrt(err2[w] / T(n));
      err_[w] = finite_state ? err : quiet_nan<T>();
    }
  }

  // After an attempt, lane w's decision (adaptive_driver::integrate). True:
  // the trajectory reached t1.
  bool decide(std::size_t w, const trajectory_io<T>& io) {
    lane& ln = lanes_[w];
    ln.stats.rhs_evaluations += S - 1;
    constexpr T exponent = T(-1) / T(Method::error_order + 1);
    constexpr T max_growth = T(explicit_rk_step<Method, M>::max_growth);
    const T err = err_[w];
    T h = h_[w];
    const T t = t_[w];
    if (!finite(err)) {
      if (!o_.adaptive) return stop(w, solve_status::non_finite);
      ++ln.stats.rejected;
      ln.rejected_last = ln.non_finite_last = true;
      h_[w] = h * T(0.2);
      return next_attempt(w);
    }
    ln.non_finite_last = false;
    T factor = err > T(0) ? T(0.9) * math::pow(err, exponent) : max_growth;
    factor = factor < T(0.2) ? T(0.2) : (factor > max_growth ? max_growth : factor);
    if (!o_.adaptive) factor = T(1);
    if (err <= T(1) || !o_.adaptive) {
      const T target = target_of(ln);
      const T t_new = ln.last ? target : t + h;
      for (; ln.next_save < o_.n_save && o_.save_times[ln.next_save] <= t_new; ++ln.next_save) {
        T* out = io.saved + std::ptrdiff_t(ln.next_save) * io.saved_time_stride;
        if (o_.save_times[ln.next_save] == t_new) {  // the step's end: the solution itself
          for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = ynew_[i][w];
          continue;
        }
        const T theta = (o_.save_times[ln.next_save] - t) / h;
        T wt[S];
        Method::dense_weights(theta, wt);
        for (int i = 0; i < n; ++i) {
          T acc = T(0);
          for (int j = 0; j < S; ++j) acc = acc + wt[j] * k_[j][i][w];
          out[std::ptrdiff_t(i) * io.saved_state_stride] = y_[i][w] + h * acc;
        }
      }
      for (int i = 0; i < n; ++i) y_[i][w] = ynew_[i][w], k_[0][i][w] = k_[S - 1][i][w];  // first same as last
      t_[w] = t_new;
      ++ln.stats.accepted;
      if (!(t_new < o_.t1)) return true;
      if (ln.rejected_last && factor > T(1)) factor = T(1);
      ln.rejected_last = false;
      // A step cut short to land on a save time does not shrink the next one.
      if (ln.last && target != o_.t1 && h * factor < ln.proposed) {
        h_[w] = ln.proposed;
        return next_attempt(w);
      }
    } else {
      ++ln.stats.rejected;
      ln.rejected_last = true;
      if (factor > T(1)) factor = T(1);
    }
    h_[w] = h * factor;
    return next_attempt(w);
  }

  // The next attempt of lane w, or its stop (then it has taken the next
  // trajectory already: see stop).
  bool next_attempt(std::size_t w) {
    if (prepare(w)) return false;
    return stop(w, pending_status_);
  }

  // A trajectory that stops before t1: recorded by the caller through
  // stopped_; decide() reports it as finished.
  solve_status stopped_status_[W] = {};
  bool stopped_[W] = {};
  bool stop(std::size_t w, solve_status s) {
    stopped_[w] = true;
    stopped_status_[w] = s;
    return true;
  }

  // The end of lane w's trajectory: final state, status, statistics; save
  // times it did not reach read NaN (as adaptive_driver).
  template <class IO, class Done>
  void finish(std::size_t w, const IO& io, const Done& done, solve_status s) {
    if (stopped_[w]) s = stopped_status_[w], stopped_[w] = false;
    lane& ln = lanes_[w];
    const trajectory_io<T> t_io = io(ln.trajectory);
    for (; ln.next_save < o_.n_save; ++ln.next_save)
      saved_state_writer<T>{t_io}.save(ln.next_save, o_.save_times[ln.next_save], n, constant_values<T>{quiet_nan<T>()});
    for (int i = 0; i < n; ++i) t_io.final_state[std::ptrdiff_t(i) * t_io.final_stride] = y_[i][w];
    done(ln.trajectory, s, ln.stats);
    ln.busy = false;
  }
};

}  // namespace detail

}  // namespace fluxion
