#pragma once
// A trajectory's log-density and its gradient by the discrete adjoint
// (solve/adjoint.hpp): the forward integration of the model alone keeps
// the state at every save time and the start of every accepted step on a
// tape; the densities' terms are evaluated at the save times, their
// derivatives with respect to the state there (through the observables'
// exact Jacobian) seeding a backward pass over the recorded steps.
//
//   fx::host::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, x0, p, fx::discrete_adjoint{})
//
// Against forward sensitivities (log_density.hpp): the cost is one forward
// solve plus a backward pass that recomputes each step's stages and
// evaluates both Jacobians at each, whatever the number of parameters,
// instead of 1 + n_params + n_states solves' worth (one host thread: the
// SEIR example, 9 columns, 5.8 solves against 6.6; an age-structured SEIR,
// 99 columns, 11.9 against 294); the steps are the model's own (the error control does not
// cover sensitivities), and the gradient is the exact derivative of the
// value returned, the steps held fixed. Memory: a tape of n_save n_states +
// recorded_steps (n_states + 2) values a trajectory being integrated. A
// trajectory that takes more accepted steps than recorded_steps ends with
// status max_steps (log-density -inf, gradient 0), as on the GPU.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fluxion/config/macros.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/solve/adjoint.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/sensitivity.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

// Asks fx::host::log_density and fx::cuda::log_density for the gradient by
// the discrete adjoint (explicit methods), keeping at most recorded_steps
// accepted steps a trajectory. backward_by_steps: on the GPU, the backward
// pass takes the trajectories in order of their accepted steps, most first,
// so that the lanes of a warp run as many steps each (the results are the
// same bit for bit; the host ignores it). Off by default: on the SEIR
// example, whose step counts spread 23 to 61, it is slower
// (docs/guide/fitting.md).
// aligned_backward: on the GPU, every lane of a warp starts its backward
// pass from the last record of the warp's longest trajectory (passing over
// the records it does not have), so that the lanes load the same record
// together (the results are the same bit for bit; the host ignores it).
// On by default: on the SEIR example it takes the f64 gradient from 3.83 to
// 3.60 ms on an H100 (docs/guide/fitting.md).
// max_chunk: on the GPU, at most this many trajectories' tapes at once (0:
// as many as half the free device memory holds, chunking beyond); a bound
// for a program that shares the device. The results do not depend on it.
struct discrete_adjoint {
  std::int32_t recorded_steps = 1024;
  std::size_t max_chunk = 0;
  bool backward_by_steps = false;
  bool aligned_backward = true;
};

namespace detail {

inline void check_adjoint_settings(const discrete_adjoint& how) {
  if (how.recorded_steps < 1)
    throw problem_error("fluxion: discrete_adjoint::recorded_steps must be at least 1, got " +
                        std::to_string(how.recorded_steps));
}

// The series' terms at one save time: the value, the adjoints of the
// observables (mubar) and of the families' own parameters (into pbar). M is
// the model integrated (integrated_model_t): a series over intervals reads
// its accumulated observable's value less previous[k] (that value at the
// series' time before, kept here), and the adjoint of that value is taken
// from the seed on the tape of that time's save (its accumulated state's,
// whose observable reads it alone: the Jacobian's entry is 1).
template <class M>
struct adjoint_terms {
  using T = typename M::scalar;
  const series_view<T>* data;
  const T* p;
  std::ptrdiff_t ps;
  std::size_t s;
  const T* mu;
  T* mubar;
  T* pbar;
  T* previous = nullptr;
  adjoint_tape<T>* tape = nullptr;
  term_outputs<T> terms = {};
  T value = T(0);
  bool any = false;
  template <class Family, class Timing>
  FLUXION_HOST_DEVICE void operator()(const series<Family, Timing>& sr, std::size_t k) {
    const series_view<T>& d = data[k];
    const std::ptrdiff_t i = d.index(s);
    if (i < 0) return;  // not a time of the series
    constexpr bool interval = series<Family, Timing>::accumulated;
    const int at = location_observable<M>(sr);
    if (d.observed(i)) {
      T location = mu[at];
      if constexpr (interval) location -= previous[k];
      const auto r = series_term(sr, d, i, location, p, ps);
      value += r.value;
      terms.add(k, d.first_term + std::size_t(i), r.value);
      mubar[at] += r.grad[0];
      if constexpr (interval) {
        const std::ptrdiff_t before = d.previous_save(i);
        if (before >= 0)
          tape->saved(std::size_t(before) * M::n_states + given_states_of<M> + std::size_t(sr.observable)) -=
              r.grad[0];
      }
      for (int e = 0; e < series<Family, Timing>::extra_parameters; ++e)
        if (sr.parameters[e].is_model_parameter()) pbar[sr.parameters[e].value] += r.grad[1 + e];
      any = true;
    } else {
      terms.observation(d.first_term + std::size_t(i), T(0));  // a missing value adds nothing
    }
    if constexpr (interval) previous[k] = mu[at];  // the start of the series' next interval
  }
};

// out[c] += v[e] w[r] over the entries (r, c) whose w[r] is not zero: an
// observable with no observed value adds nothing, not 0 times its
// derivatives (which a singular observable can make infinite).
template <class T, int... R, int... C>
FLUXION_HOST_DEVICE void add_seeded_transpose(const T* v, const T* w, T* out, std::integer_sequence<int, R...>,
                                              std::integer_sequence<int, C...>) {
  std::size_t e = 0;
  ((out[C] += w[R] != T(0) ? v[e] * w[R] : T(0), ++e), ...);
}

// The three parts of one trajectory's log-density and gradient, run in this
// order by the host (a thread a trajectory, trajectory_log_density_adjoint)
// and by the GPU (a kernel each, infer/cuda.hpp: the densities' terms of all
// trajectories and save times in parallel, rather than one after another in
// the thread that integrated them). Both sum the terms in the same order:
// within each group of adjoint_save_group consecutive save times, then over
// the groups.
// (FLUXION_ADJOINT_SAVE_GROUP: config/tuning.hpp.)
// A likelihood with a series over intervals makes one group of all save
// times: a term there seeds the save time before it too, which must not be
// another thread's; so do the series' sums when asked (one thread adds to
// each).
inline constexpr std::size_t adjoint_save_group = FLUXION_ADJOINT_SAVE_GROUP;
FLUXION_HOST_DEVICE constexpr std::size_t adjoint_save_group_size(std::size_t n_save, bool one_group) {
  return one_group ? (n_save > 0 ? n_save : 1) : adjoint_save_group;
}
// The groups of n_save save times.
FLUXION_HOST_DEVICE constexpr std::size_t adjoint_save_groups(std::size_t n_save, bool one_group) {
  const std::size_t group = adjoint_save_group_size(n_save, one_group);
  return (n_save + group - 1) / group;
}

// 1. The forward integration of the model onto the tape: the state at every
// save time and the start of every accepted step. A trajectory that takes
// more accepted steps than the tape holds ends with max_steps.
template <class Method, class M>
FLUXION_HOST_DEVICE solve_status adjoint_forward(const M& m, const ode_options<typename M::scalar>& o,
                                                 const typename M::scalar* x0, std::ptrdiff_t xs,
                                                 const typename M::scalar* p, std::ptrdiff_t ps,
                                                 adjoint_recorder<M>& rec, solve_statistics& st) {
  using T = typename M::scalar;
  T last[M::n_states];
  // The given model's states, an accumulated state's 0 after them (compile/accumulated.hpp).
  T z0[M::n_states];
  for (std::size_t i = 0; i < M::n_states; ++i) z0[i] = i < given_states_of<M> ? x0[std::ptrdiff_t(i) * xs] : T(0);
  const trajectory_io<T> io{z0, 1, p, ps, nullptr, 0, 0, last, 1};
  const solve_status status = stepper_of<Method, M>::type::run(m, o, io, st, rec);
  return status == solve_status::success && rec.full ? solve_status::max_steps : status;
}

// 2. The terms of the save times first .. end - 1 (parameters pc, contiguous):
// their log-density into *value and its derivatives with respect to the
// parameters into pbar (n_params values, both zeroed here); the saved state
// on the tape is replaced by its seed, d terms / d y(t_s), through the
// observables' exact Jacobian.
template <class M, class Lik>
FLUXION_HOST_DEVICE void adjoint_save_terms(const M& m, const ode_options<typename M::scalar>& o, const Lik& lik,
                                            const series_view<typename M::scalar>* data, const typename M::scalar* pc,
                                            std::size_t first, std::size_t end, adjoint_tape<typename M::scalar> tape,
                                            typename M::scalar* value, typename M::scalar* pbar,
                                            term_outputs<typename M::scalar> outputs = {}) {
  using T = typename M::scalar;
  constexpr int n = int(M::n_states), np = int(M::n_params), nobs = int(M::n_observables);
  using ox = jacobian_entries<M, M::jacobian::obs_x>;
  using op = jacobian_entries<M, M::jacobian::obs_p>;
  // Series over intervals (one group from save time 0): each series'
  // accumulated observable at its time before (0 at t0, where they start).
  constexpr int nacc = Lik::accumulates ? int(Lik::size) : 0;
  T previous[nacc > 0 ? nacc : 1];
  for (int k = 0; k < nacc; ++k) previous[k] = T(0);
  *value = T(0);
  for (int j = 0; j < np; ++j) pbar[j] = T(0);
  if (first == 0) outputs.clear_series(Lik::size);  // one group from 0 where they are asked
  for (std::size_t s = first; s < end; ++s) {
    T seed[n];
    for (int i = 0; i < n; ++i) seed[i] = T(0);
    if constexpr (nobs > 0) {
      const T ts = o.save_times[s];
      T y[n], mu[nobs], mubar[nobs];
      for (int i = 0; i < n; ++i) y[i] = tape.saved(s * n + std::size_t(i));
      m.observe(ts, y, 1, pc, 1, mu, 1);
      for (int k = 0; k < nobs; ++k) mubar[k] = T(0);
      adjoint_terms<M> terms{data, pc, 1, s, mu, mubar, pbar, previous, &tape, outputs};
      lik.each(terms);
      *value += terms.value;
      if (terms.any) {
        if constexpr (ox::nnz > 0) {
          T v[ox::nnz];
          m.template jacobian_values<M::jacobian::obs_x>(ts, y, 1, pc, 1, v, 1);
          add_seeded_transpose(v, mubar, seed, typename ox::rows{}, typename ox::columns{});
        }
        if constexpr (op::nnz > 0) {
          T v[op::nnz];
          m.template jacobian_values<M::jacobian::obs_p>(ts, y, 1, pc, 1, v, 1);
          add_seeded_transpose(v, mubar, pbar, typename op::rows{}, typename op::columns{});
        }
      }
    }
    for (int i = 0; i < n; ++i) tape.saved(s * n + std::size_t(i)) = seed[i];
  }
}

// 3. The backward pass from the seeds on the tape (rec: the forward pass's
// recorder, its steps), then the priors: value and pbar (the terms' sums on
// entry) are the log-density and its derivatives with respect to the
// parameters, ybar those with respect to the initial state. aligned_to:
// adjoint_backward's.
template <class Method, class M, class Pri>
FLUXION_HOST_DEVICE void adjoint_finish(const M& m, const ode_options<typename M::scalar>& o, const Pri& pri,
                                        const typename M::scalar* pc, const adjoint_recorder<M>& rec,
                                        typename M::scalar* value, typename M::scalar* pbar,
                                        typename M::scalar* ybar, solve_statistics& st,
                                        std::int32_t aligned_to = 0) {
  adjoint_backward<Method>(m, o, pc, 1, rec, ybar, pbar, st, aligned_to);
  prior_sum<typename M::scalar, true> add{pc, 1, value, pbar};
  pri.each(add);
}

// Writes a trajectory's log-density and gradient (columns grad_stride apart:
// the parameters, then the initial state); a failed one's -inf and zeros,
// and zeros for one whose log-density is -inf (has_gradient).
template <class M>
FLUXION_HOST_DEVICE void write_adjoint_result(const ode_options<typename M::scalar>& o, bool ok,
                                              typename M::scalar value, const typename M::scalar* pbar,
                                              const typename M::scalar* ybar, typename M::scalar* value_out,
                                              typename M::scalar* grad_out, std::ptrdiff_t grad_stride) {
  using T = typename M::scalar;
  constexpr int n = int(given_states_of<M>), np = int(M::n_params);
  *value_out = ok ? value : -math::special::infinity<T>();
  const bool graded = has_gradient(ok, value);
  for (int j = 0; j < np; ++j) grad_out[std::ptrdiff_t(j) * grad_stride] = graded ? pbar[j] : T(0);
  for (int i = 0; i < n; ++i) grad_out[std::ptrdiff_t(np + i) * grad_stride] = graded ? ybar[i] : T(0);
  zero_driven(o, grad_out, grad_stride);
}

// One trajectory's log-density and gradient by the discrete adjoint, its
// tape given: the three parts above, one after another (the host's path).
template <class Method, class M, class Lik, class Pri>
FLUXION_HOST_DEVICE solve_status trajectory_log_density_adjoint(
    const M& m, const ode_options<typename M::scalar>& o, const Lik& lik, const series_view<typename M::scalar>* data,
    const Pri& pri, const typename M::scalar* x0, std::ptrdiff_t xs, const typename M::scalar* p, std::ptrdiff_t ps,
    typename M::scalar* value_out, typename M::scalar* grad_out, std::ptrdiff_t grad_stride, solve_statistics& st,
    adjoint_tape<typename M::scalar> tape, term_outputs<typename M::scalar> terms = {}) {
  using T = typename M::scalar;
  constexpr int n = int(M::n_states), np = int(M::n_params);
  adjoint_recorder<M> rec{tape, o.n_save};
  const solve_status status = adjoint_forward<Method>(m, o, x0, xs, p, ps, rec, st);
  const bool ok = status == solve_status::success;
  // The parameters, read at every stage of the backward pass: a local copy.
  T pc[np > 0 ? np : 1];
  for (int j = 0; j < np; ++j) pc[j] = p[std::ptrdiff_t(j) * ps];
  T value = T(0), pbar[np > 0 ? np : 1], ybar[n];
  for (int j = 0; j < np; ++j) pbar[j] = T(0);
  for (int i = 0; i < n; ++i) ybar[i] = T(0);
  terms.clear_series(Lik::size);  // sums of nothing where there are no save times
  if (ok) {
    const std::size_t group = adjoint_save_group_size(o.n_save, Lik::accumulates || terms.series != nullptr);
    for (std::size_t first = 0; first < o.n_save; first += group) {
      const std::size_t end = first + group < o.n_save ? first + group : o.n_save;
      T group_value, group_pbar[np > 0 ? np : 1];
      adjoint_save_terms(m, o, lik, data, pc, first, end, tape, &group_value, group_pbar, terms);
      value += group_value;
      for (int j = 0; j < np; ++j) pbar[j] += group_pbar[j];
    }
    adjoint_finish<Method>(m, o, pri, pc, rec, &value, pbar, ybar, st);
  } else {
    terms.fail(Lik::size);
  }
  write_adjoint_result<M>(o, ok, value, pbar, ybar, value_out, grad_out, grad_stride);
  return status;
}

}  // namespace detail

namespace host {
FLUXION_HOST_ABI_BEGIN

// The log-density of every trajectory and its gradient by the discrete
// adjoint (explicit methods; one trajectory at a time per thread, each
// thread with one tape).
template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
log_density_result<typename M::scalar> log_density(const M& m, Method, const ode_problem<typename M::scalar>& pr,
                                                   const Lik& lik,
                                                   std::span<const series_data<typename M::scalar>> data,
                                                   const Pri& pri, std::size_t count,
                                                   batch<const typename M::scalar> x0,
                                                   batch<const typename M::scalar> p, discrete_adjoint how,
                                                   threads exec = threads{}) {
  using T = typename M::scalar;
  using E = fluxion::detail::integrated_model_t<M, Lik>;
  fluxion::detail::check_adjoint_settings(how);
  fluxion::detail::log_density_setup<T> setup;
  const ode_problem<T> checked = fluxion::detail::check_log_density<M>(pr, lik, data, pri, false, setup);
  const ode_options<T> o = check_problem(checked, E::n_states, E::n_params);
  const auto cx = check_buffer("initial state", x0, M::n_states, count, false);
  const auto cp = check_buffer("parameter", p, M::n_params, count, false);
  const auto views = fluxion::detail::host_series_views(data, setup.timeline);
  log_density_result<T> r = fluxion::detail::sized_log_density_result<M>(count, true, Lik::size);
  const term_outputs<T> terms{r.series_values.data(), nullptr, std::ptrdiff_t(count), setup.timeline.n_terms};
  const std::size_t tape_values = fluxion::detail::adjoint_tape<T>::template values<E>(o.n_save, how.recorded_steps);
  const E e = fluxion::detail::integrated_model(m, lik);
  const std::size_t values_per_trajectory = (M::n_states + M::n_params) * 4096 * 3;
  fluxion::host::detail::for_ranges(count, exec, 1, values_per_trajectory, [&](std::size_t begin, std::size_t end) {
    std::vector<T> tape(tape_values);
    for (std::size_t b = begin; b < end; ++b)
      r.status[b] = fluxion::detail::trajectory_log_density_adjoint<Method>(
          e, o, lik, views.data(), pri, cx.data + std::ptrdiff_t(b) * cx.instance_stride, cx.element_stride,
          cp.data + std::ptrdiff_t(b) * cp.instance_stride, cp.element_stride, &r.value[b], r.gradients.data() + b,
          std::ptrdiff_t(count), r.stats[b],
          fluxion::detail::adjoint_tape<T>::template contiguous<E>(tape.data(), o.n_save, how.recorded_steps),
          terms.at(b));
  });
  return r;
}

FLUXION_HOST_ABI_END
}  // namespace host

}  // namespace fluxion
