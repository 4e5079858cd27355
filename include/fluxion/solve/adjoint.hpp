#pragma once
// The discrete adjoint of an explicit Runge-Kutta step (solve/explicit_rk.hpp):
// backward through the steps a forward integration took, held fixed, it
// gives the gradient of a function of the saved states with respect to the
// initial state and the parameters. It is the exact derivative of the
// computed trajectory (to rounding), not an approximation of the continuous
// adjoint: it equals forward sensitivities integrated with the same steps,
// and its cost does not grow with the number of parameters.
//
// A step from y at t with length h has stages k_j = f(t + c_j h, X_j, p),
// X_0 = y, X_j = y + h sum_{l<j} a_jl k_l, its end y_new = y + h sum_j b_j k_j,
// and at a save time t + theta h inside it the continuous extension
// y(theta) = y + h sum_j w_j(theta) k_j (Vern7's extra stages among the k_j).
// Given ybar, the adjoint of y_new, and the seeds sbar_s of the save times
// inside the step:
//   kbar_j  = h b_j ybar + h sum_s w_j(theta_s) sbar_s
//   for j = the last stage .. 0:
//     Xbar_j = J_x(t + c_j h, X_j)^T kbar_j,   pbar += J_p(t + c_j h, X_j)^T kbar_j,
//     kbar_l += h a_jl Xbar_j  (l < j)
//   the adjoint of y:  ybar + sum_s sbar_s + sum_j Xbar_j
// (W. W. Hager, "Runge-Kutta methods in optimal control and the transformed
// adjoint system", Numer. Math. 87 (2000) 247-282; A. Sandu, "On the
// properties of Runge-Kutta discrete adjoints", ICCS 2006, LNCS 3994).
// The stages are recomputed from y; the stage inputs X_j are formed again
// from them in the backward loop, by the forward step's own code. J_x and
// J_p are the model's exact sparse Jacobians, multiplied transposed over
// their compile-time non-zeros. A stage that only the continuous extension
// weighs (Tsit5's last: b = 0 and no later stage reads it) is skipped in a
// step without a save time inside it.
//
// A whole trajectory (infer/log_density_adjoint.hpp uses it):
//   detail::adjoint_recorder<M> rec{tape, n_save};      // the driver's sink: saved
//   stepper_of<Method, M>::type::run(m, o, io, st, rec); // states and step starts
//   ... replace the saved state at save time s by the seed there, d L / d y(t_s) ...
//   detail::adjoint_backward<Method>(m, o, p, ps, rec, xbar, pbar, st);
// gives xbar = d L / d x0 and adds d L / d p to pbar, for any L of the saved states
// (p: the caller's own copy of the parameters when inputs drive some, which
// the backward pass sets as the forward pass did).
#include <cstddef>
#include <cstdint>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/sensitivity.hpp>
#include <fluxion/solve/status.hpp>

// A tuning knob: -DFLUXION_ADJOINT_STEP_CALL makes the backward step a call
// rather than inlined. On a GPU its stages and their adjoints then live in
// the thread's stack instead of registers (ptxas, sm_90, the SEIR
// log-density in double: 168 registers and a 752-byte stack, against 255
// registers with 80 bytes spilled); bench/seir_log_density.cu measures it.
#ifdef FLUXION_ADJOINT_STEP_CALL
#  define FLUXION_ADJOINT_STEP FLUXION_HOST_DEVICE_CALL
#else
#  define FLUXION_ADJOINT_STEP FLUXION_HOST_DEVICE
#endif

namespace fluxion {

namespace detail {

// Whether no stage after J of the step weighs stage J.
template <class Method, int J, int L = J + 1>
constexpr bool rk_no_later_stage_reads() {
  if constexpr (L >= Method::stages) return true;
  else return Method::a[L][J] == 0.0 && rk_no_later_stage_reads<Method, J, L + 1>();
}
// Whether only the continuous extension reads stage J: b_J = 0 and no later
// stage of the step weighs it (a constant, so that device code may read it).
template <class Method, int J>
inline constexpr bool rk_stage_only_dense =
    J >= Method::stages || (Method::b[J < Method::stages ? J : 0] == 0.0 && rk_no_later_stage_reads<Method, J>());

}  // namespace detail

template <class Method, class M>
struct explicit_rk_adjoint {
  using T = typename M::scalar;
  using step_type = explicit_rk_step<Method, M>;
  static constexpr int n = int(M::n_states);
  static constexpr int S = step_type::S;
  static constexpr int D = step_type::D;

  step_type step;  // the recomputed stages, step.k
  T kbar[D][n];

  // Backward through the step from y at t with length h: ybar, the adjoint
  // of the step's end on entry, is that of y on return; pbar (n_params
  // values) accumulates. Dense gives the save times inside the step (not at
  // its end): count(), theta(s) and seed(s, i) for s < count().
  template <class Dense>
  FLUXION_ADJOINT_STEP void backward(const M& m, const T* p, std::ptrdiff_t ps, T t, T h, const T* y, T* ybar, T* pbar,
                                    const Dense& dense, solve_statistics& st) {
    step.begin(m, t, y, p, ps, st);
    T in[n];
    step.template stages<1, S>(m, p, ps, t, h, y, in);
    st.rhs_evaluations += S - 1;
    const int inside = dense.count();
    if constexpr (D > S) {
      if (inside > 0) {
        step.template stages<S, D>(m, p, ps, t, h, y, in);
        st.rhs_evaluations += D - S;
      }
    }
    seed_solution(h, ybar, std::make_integer_sequence<int, D>{});
    for (int s = 0; s < inside; ++s) {
      T w[D];
      Method::dense_weights(dense.theta(s), w);
      for (int i = 0; i < n; ++i) {
        const T sb = dense.seed(s, i);
        ybar[i] += sb;
        for (int j = 0; j < D; ++j) kbar[j][i] += h * w[j] * sb;
      }
    }
    reverse_stage<D - 1>(m, p, ps, t, h, y, ybar, pbar, inside > 0, st);
  }

 private:
  using jx = detail::jacobian_entries<M, M::jacobian::x>;
  using jp = detail::jacobian_entries<M, M::jacobian::p>;

  // kbar_j = h b_j ybar (0 for the extra stages).
  template <int... J>
  FLUXION_HOST_DEVICE void seed_solution(T h, const T* ybar, std::integer_sequence<int, J...>) {
    (seed_row<J>(h, ybar), ...);
  }
  template <int J>
  FLUXION_HOST_DEVICE void seed_row(T h, const T* ybar) {
    constexpr double b = J < S ? detail::rk_coefficient<Method, detail::rk_solution_row, (J < S ? J : 0)> : 0.0;
    for (int i = 0; i < n; ++i) kbar[J][i] = b == 0.0 ? T(0) : h * T(b) * ybar[i];
  }

  // kbar_l += h a_Jl xb over the columns l < J whose coefficient is not zero.
  template <int J, int... L>
  FLUXION_HOST_DEVICE void spread(T h, const T* xb, std::integer_sequence<int, L...>) {
    for (int i = 0; i < n; ++i) ((kbar[L][i] += h * T(detail::rk_coefficient<Method, J, L>) * xb[i]), ...);
  }

  template <int J>
  FLUXION_HOST_DEVICE void reverse_stage(const M& m, const T* p, std::ptrdiff_t ps, T t, T h, const T* y, T* ybar,
                                         T* pbar, bool inside, solve_statistics& st) {
    if constexpr (J >= 0) {
      if (!detail::rk_stage_only_dense<Method, J> || inside) {
        T x[n];
        if constexpr (J == 0) {
          for (int i = 0; i < n; ++i) x[i] = y[i];
        } else {
          step.template stage_input<J>(h, y, x);
        }
        const T tj = J == 0 ? t : t + T(Method::c[J]) * h;  // the forward stage's time, as stages() forms it
        T xb[n];
        for (int i = 0; i < n; ++i) xb[i] = T(0);
        if constexpr (jx::nnz > 0) {
          T v[jx::nnz];
          m.template jacobian_values<M::jacobian::x>(tj, x, 1, p, ps, v, 1);
          detail::add_sparse_product(v, kbar[J], 1, xb, 1, typename jx::columns{}, typename jx::rows{});
        }
        if constexpr (jp::nnz > 0) {
          T v[jp::nnz];
          m.template jacobian_values<M::jacobian::p>(tj, x, 1, p, ps, v, 1);
          detail::add_sparse_product(v, kbar[J], 1, pbar, 1, typename jp::columns{}, typename jp::rows{});
        }
        ++st.jacobian_evaluations;
        for (int i = 0; i < n; ++i) ybar[i] += xb[i];
        if constexpr (J > 0) spread<J>(h, xb, typename step_type::template nonzero<J, J>{});
      }
      reverse_stage<J - 1>(m, p, ps, t, h, y, ybar, pbar, inside, st);
    }
  }
};

namespace detail {

// One trajectory's tape, in two parts that may lie apart, each with its
// own stride (one trajectory's values together, or a batch's interleaved):
// the states at the save times (then the backward pass's seeds there),
// value s n_states + i at saves[(s n_states + i) save_stride]; accepted step
// r's record (t, h, y), value r (n_states + 2) + j at records[(r (n_states +
// 2) + j) record_stride]. The step's end is not kept: it is the next step's
// t (the driver sets t to it exactly), and t1 for the last step of an
// integration that succeeded (one store a step less for the forward pass,
// one load less for the backward).
template <class T>
struct adjoint_tape {
  T* saves = nullptr;
  std::ptrdiff_t save_stride = 1;
  T* records = nullptr;
  std::ptrdiff_t record_stride = 1;
  std::int32_t steps = 0;  // capacity in accepted steps
  FLUXION_HOST_DEVICE T& saved(std::size_t k) const { return saves[std::ptrdiff_t(k) * save_stride]; }
  FLUXION_HOST_DEVICE T& recorded(std::size_t k) const { return records[std::ptrdiff_t(k) * record_stride]; }
  template <class M>
  FLUXION_HOST_DEVICE static constexpr std::size_t saved_values(std::size_t n_save) {
    return n_save * M::n_states;
  }
  template <class M>
  FLUXION_HOST_DEVICE static constexpr std::size_t recorded_values(std::int32_t steps) {
    return std::size_t(steps) * (M::n_states + 2);
  }
  template <class M>
  FLUXION_HOST_DEVICE static constexpr std::size_t values(std::size_t n_save, std::int32_t steps) {
    return saved_values<M>(n_save) + recorded_values<M>(steps);
  }
  // A tape in values(n_save, steps) consecutive values from `at`: the saved
  // states, then the records.
  template <class M>
  FLUXION_HOST_DEVICE static adjoint_tape contiguous(T* at, std::size_t n_save, std::int32_t steps) {
    return {at, 1, at + saved_values<M>(n_save), 1, steps};
  }
};

// The forward pass's sink: saved states and step records onto the tape.
template <class M>
struct adjoint_recorder {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr bool saves = true;
  adjoint_tape<T> tape;
  std::size_t n_save;
  std::int32_t steps = 0;
  bool full = false;

  template <class Values>
  FLUXION_HOST_DEVICE void save(std::size_t s, T, int, const Values& values) {
    for (int i = 0; i < n; ++i) tape.saved(s * n + std::size_t(i)) = values(i);
  }
  FLUXION_HOST_DEVICE void accepted_step(T t, T /*t_new: the next record's t*/, T h, const T* y) {
    if (steps == tape.steps) {
      full = true;
      return;
    }
    const std::size_t at = record(steps++);
    tape.recorded(at) = t, tape.recorded(at + 1) = h;
    for (int i = 0; i < n; ++i) tape.recorded(at + 2 + std::size_t(i)) = y[i];
  }
  FLUXION_HOST_DEVICE static std::size_t record(std::int32_t r) { return std::size_t(r) * std::size_t(n + 2); }
};

// The save times of step (t, h) strictly inside it, first .. end - 1, and
// their seeds on the tape.
template <class T>
struct adjoint_dense_seeds {
  const T* save_times;
  adjoint_tape<T> tape;
  int n;
  std::ptrdiff_t first, end;
  T t, h;
  FLUXION_HOST_DEVICE int count() const { return int(end - first); }
  FLUXION_HOST_DEVICE T theta(int s) const { return (save_times[first + s] - t) / h; }  // as the driver forms it
  FLUXION_HOST_DEVICE T seed(int s, int i) const {
    return tape.saved(std::size_t(first + s) * std::size_t(n) + std::size_t(i));
  }
};

// Backward over the recorded steps of one trajectory, the seeds on the
// tape in place of the saved states (rec.tape.saved(s n_states + i) =
// d L / d y_i(t_s)): xbar (n_states values) receives d L / d x0; pbar
// (n_params values) accumulates d L / d p. Step r served the save times in
// (t, t_new]: those at t_new from its end (their seeds join the end's
// adjoint), the others from its continuous extension; save times at t0 or
// before it, the initial state.
// The recorded integration must have succeeded (its last step ends on t1).
// aligned_to: the loop starts from record max(aligned_to, rec.steps) - 1,
// passing over the records from rec.steps on without work, so that the
// lanes of a warp given their longest lane's count reach each record r
// together (their loads of a tape interleaved by trajectory coalesce) in
// as many iterations as the longest lane takes anyway.
template <class Method, class M>
FLUXION_HOST_DEVICE void adjoint_backward(const M& m, const ode_options<typename M::scalar>& o,
                                          const typename M::scalar* p, std::ptrdiff_t ps,
                                          const adjoint_recorder<M>& rec, typename M::scalar* xbar,
                                          typename M::scalar* pbar, solve_statistics& st,
                                          std::int32_t aligned_to = 0) {
  using T = typename M::scalar;
  constexpr int n = int(M::n_states);
  const adjoint_tape<T>& tape = rec.tape;
  for (int i = 0; i < n; ++i) xbar[i] = T(0);
  explicit_rk_adjoint<Method, M> adj;
  std::ptrdiff_t s_hi = std::ptrdiff_t(o.n_save) - 1;
  // The events still to undo (solve/events.hpp): those at a step's end, after
  // the seeds of the save times there (which read the state after them).
  // Inputs from data (events that set parameters) are replayed: p, the
  // caller's own copy of the parameters whenever o.sets_params, first takes
  // their values at t1, and each one undone going backward gives its
  // parameter the value of the event before it, so every step is taken
  // back with the values it was taken with.
  constexpr int np = int(M::n_params);
  std::ptrdiff_t e_hi = detail::takes_events<M> ? std::ptrdiff_t(o.n_events) - 1 : -1;
  if (o.sets_params)
    for (std::size_t k = 0; k < o.n_events && o.events[k].time <= o.t1; ++k)
      if (o.events[k].sets_param >= 0) detail::set_driven_param<np>(o.events[k], p, ps);
  const auto undo_events = [&](T at) {
    for (; e_hi >= 0 && o.events[e_hi].time >= at; --e_hi) {
      const timed_event<T>& e = o.events[e_hi];
      if (e.sets_param >= 0) {
        std::ptrdiff_t before = e_hi - 1;
        while (before >= 0 && o.events[before].sets_param != e.sets_param) --before;
        if (before >= 0) detail::set_driven_param<np>(o.events[before], p, ps);
      } else {
        detail::apply_event_transposed<n, np>(e, xbar, pbar);
      }
    }
  };
  T y[n];
  T t_new = o.t1;  // the end of step r: t1, then the start of the step after it
  for (std::int32_t r = (aligned_to > rec.steps ? aligned_to : rec.steps) - 1; r >= 0; --r) {
    if (r >= rec.steps) continue;
    const std::size_t at = rec.record(r);
    const T t = tape.recorded(at), h = tape.recorded(at + 1);
    for (int i = 0; i < n; ++i) y[i] = tape.recorded(at + 2 + std::size_t(i));
    for (; s_hi >= 0 && o.save_times[s_hi] == t_new; --s_hi)
      for (int i = 0; i < n; ++i) xbar[i] += tape.saved(std::size_t(s_hi) * n + std::size_t(i));
    undo_events(t_new);
    std::ptrdiff_t s_lo = s_hi;
    while (s_lo >= 0 && o.save_times[s_lo] > t) --s_lo;
    const adjoint_dense_seeds<T> dense{o.save_times, tape, n, s_lo + 1, s_hi + 1, t, h};
    adj.backward(m, p, ps, t, h, y, xbar, pbar, dense, st);
    s_hi = s_lo;
    t_new = t;
  }
  for (; s_hi >= 0; --s_hi)
    for (int i = 0; i < n; ++i) xbar[i] += tape.saved(std::size_t(s_hi) * n + std::size_t(i));
  undo_events(o.t0);
}

}  // namespace detail

}  // namespace fluxion
