#pragma once
// One trajectory's log-density and gradient computed by a group of members
// together, one member per sensitivity column (the GPU's lanes; see
// solve/sensitivity_columns.hpp): member 0 integrates y, member c + 1 the
// column c of S = dy/d(p, x0), all with the same steps.
//
// At each save time every member records one value per observable in its
// slot of the scratch memory: member 0 the observables mu, member c + 1
// their derivatives d mu / d theta_c = obs_jac_x S_c + obs_jac_p[:, c]
// (the model's exact observable Jacobians, over their non-zeros, in the
// order of detail::log_density_sink). After the integration the densities
// are shared out: member r evaluates the observation terms of the save times
// r, r + G, ... (their values and partials in the location and the family's
// other parameters, stored beside its records), then, after a sync, member
// c + 1 chains every save time's partials with its own records into
// d log p / d theta_c, in the order of save times and series that the
// one-thread sink adds them. The value is the members' partial sums summed
// (Group::sum) plus the priors.
//
// Scratch: each member has a slot, slots `stride` values apart, a group's
// members in consecutive slots; slot_values() values a slot: n_save x
// n_observables records, then n_save x (the series' parameter counts)
// partials.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/sensitivity_columns.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::detail {

// Partials an observation term has (1 + the family's other parameters) over
// the series of a likelihood.
template <class Lik>
struct likelihood_partials_count;
template <class... Series>
struct likelihood_partials_count<likelihood<Series...>> {
  static constexpr int value = (0 + ... + Series::family::parameter_count);
};

template <class M, class Lik, class Group>
struct member_log_density_sink {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int nobs = int(M::n_observables);
  static constexpr int W = likelihood_partials_count<std::remove_cv_t<Lik>>::value;
  using ox = jacobian_entries<M, M::jacobian::obs_x>;
  using op = jacobian_entries<M, M::jacobian::obs_p>;

  // Values of one member's slot for n_save save times.
  FLUXION_HOST_DEVICE static constexpr std::size_t slot_values(std::size_t n_save) {
    return n_save * std::size_t(nobs + W);
  }

  const M& model;
  const Lik& lik;
  const series_view<T>* data;
  const T* p;
  std::ptrdiff_t ps;
  deferred_terms<T> deferred;  // this member's slot
  const Group& group;
  std::size_t n_save;
  T value = T(0);  // this member's share of the observation terms
  T grad = T(0);   // d log p / d theta_column (members 1 ..)
  term_outputs<T> terms = {};  // where the terms go besides the value, when asked
  static constexpr std::size_t n_series = std::remove_cv_t<Lik>::size;
  T series_share[n_series > 0 ? n_series : 1] = {};  // this member's share of each series' sum

  FLUXION_HOST_DEVICE int column() const { return int(group.rank()) - 1; }
  // Value k of member j's slot.
  FLUXION_HOST_DEVICE T& at(int j, std::size_t k) const {
    return deferred.at[(std::ptrdiff_t(j) - std::ptrdiff_t(group.rank())) + std::ptrdiff_t(k) * deferred.stride];
  }
  FLUXION_HOST_DEVICE static std::size_t record(std::size_t s, int k) { return s * std::size_t(nobs) + std::size_t(k); }
  FLUXION_HOST_DEVICE std::size_t partial(std::size_t s, int q) const {
    return n_save * std::size_t(nobs) + s * std::size_t(W) + std::size_t(q);
  }
  // Member j's record of series sr's location at save time s, its data
  // index i there: its observable's, or for a series over intervals its
  // accumulated observable's less that at the series' time before (0
  // before the first).
  template <class Family, class Timing>
  FLUXION_HOST_DEVICE T location(int j, std::size_t s, std::ptrdiff_t i, const series<Family, Timing>& sr,
                                 const series_view<T>& d) const {
    const int k = location_observable<M>(sr);
    T v = at(j, record(s, k));
    if constexpr (series<Family, Timing>::accumulated) {
      const std::ptrdiff_t before = d.previous_save(i);
      if (before >= 0) v -= at(j, record(std::size_t(before), k));
    }
    return v;
  }

  // values: this member's share at save time s (y for member 0, S_c otherwise).
  // Inlined, as the system's rhs: a call that takes the step's dense output by
  // reference puts the stages in thread-local memory (ptxas, sm_90, SEIR in
  // double: 128 registers and 576 bytes of stack called, 168 registers and 144
  // bytes inlined).
  template <class Values>
  FLUXION_HOST_DEVICE void save(std::size_t s, T t, int, const Values& values) {
    if constexpr (nobs > 0) {
      T y[n], share[n], mu[nobs], dmu[nobs];
      for (int i = 0; i < n; ++i) {
        share[i] = values(i);
        y[i] = group.broadcast(share[i], 0);
      }
      model.observe(t, y, 1, p, ps, mu, 1);
      for (int k = 0; k < nobs; ++k) dmu[k] = T(0);
      if constexpr (ox::nnz > 0) {
        T v[ox::nnz];
        model.template jacobian_values<M::jacobian::obs_x>(t, y, 1, p, ps, v, 1);
        add_sparse_product(v, share, 1, dmu, 1, typename ox::rows{}, typename ox::columns{});
      }
      if constexpr (op::nnz > 0) {
        T v[op::nnz];
        model.template jacobian_values<M::jacobian::obs_p>(t, y, 1, p, ps, v, 1);
        add_sparse_column(v, column(), dmu, typename op::rows{}, typename op::columns{});
      }
      const bool state = column() < 0;
      for (int k = 0; k < nobs; ++k) at(int(group.rank()), record(s, k)) = state ? mu[k] : dmu[k];
    }
  }

  // Phase 1: the observation terms of one save time, by the member that owns it.
  struct terms_at {
    member_log_density_sink& sink;
    std::size_t s;
    int q = 0;  // the series' first partial
    template <class Family, class Timing>
    FLUXION_HOST_DEVICE void operator()(const series<Family, Timing>& sr, std::size_t k) {
      constexpr int E = series<Family, Timing>::extra_parameters;
      const series_view<T>& d = sink.data[k];
      const int me = int(sink.group.rank());
      const std::ptrdiff_t i = d.index(s);
      if (i < 0 || !d.observed(i)) {  // not a time of the series, or missing there
        for (int j = 0; j <= E; ++j) sink.at(me, sink.partial(s, q + j)) = T(0);
        if (i >= 0) sink.terms.observation(d.first_term + std::size_t(i), T(0));
      } else {
        const T mu = sink.location(0, s, i, sr, d);
        const auto r = series_term(sr, d, i, mu, sink.p, sink.ps);
        sink.value += r.value;
        sink.series_share[k] += r.value;
        sink.terms.observation(d.first_term + std::size_t(i), r.value);
        for (int j = 0; j <= E; ++j) sink.at(me, sink.partial(s, q + j)) = r.grad[j];
      }
      q += E + 1;
    }
  };
  // Phase 2: member c + 1 chains a save time's partials with its records.
  struct chain_at {
    member_log_density_sink& sink;
    std::size_t s;
    int owner;
    int q = 0;
    template <class Family, class Timing>
    FLUXION_HOST_DEVICE void operator()(const series<Family, Timing>& sr, std::size_t k) {
      constexpr int E = series<Family, Timing>::extra_parameters;
      const int me = int(sink.group.rank()), c = sink.column();
      const series_view<T>& d = sink.data[k];
      // A missing value adds nothing, not 0 times its derivatives (which a
      // singular observable could make infinite), as in log_density_sink.
      const std::ptrdiff_t i = d.index(s);
      if (i >= 0 && d.observed(i)) {
        sink.grad += sink.at(owner, sink.partial(s, q)) * sink.location(me, s, i, sr, d);
        for (int e = 0; e < E; ++e)
          if (sr.parameters[e].is_parameter(c)) sink.grad += sink.at(owner, sink.partial(s, q + 1 + e));
      }
      q += E + 1;
    }
  };

  FLUXION_HOST_DEVICE void finish() {
    if constexpr (nobs > 0) {
      const std::size_t G = group.size();
      group.sync();  // member 0's last records are written
      for (std::size_t s = group.rank(); s < n_save; s += G) {
        terms_at f{*this, s};
        lik.each(f);
      }
      group.sync();
      if (terms.series)  // the same on every member
        for (std::size_t k = 0; k < n_series; ++k) {
          const T sum = group.sum(series_share[k]);
          if (column() < 0) terms.series[std::ptrdiff_t(k) * terms.stride] = sum;
        }
      if (column() >= 0)
        for (std::size_t s = 0; s < n_save; ++s) {
          chain_at f{*this, s, int(s % G)};
          lik.each(f);
        }
      group.sync();  // every member is done with the slots before the next trajectory writes them
    }
  }
};

// A member's part of the priors: every member adds their values (the same
// on all), member c + 1 the derivatives in parameter c.
template <class T>
struct member_prior_sum {
  const T* p;
  std::ptrdiff_t ps;
  int column;
  T* value;
  T* grad;
  template <class Prior>
  FLUXION_HOST_DEVICE void operator()(const prior_on<Prior>& pr, std::size_t) const {
    const T x = p[std::ptrdiff_t(pr.parameter) * ps];
    const auto r = pr.prior.log_density_partials(x);
    *value += r.value;
    if (pr.parameter == column) *grad += r.grad[0];
  }
};

// One trajectory's log-density and gradient by the 1 + n_params + n_states
// members of g (all call it with the same arguments but `deferred`, each
// member's own slot): member 0 writes *value_out, member c + 1
// grad_out[c grad_stride]. o: the augmented system's options (its per-state
// tolerances start with the model's, which is all a member reads).
template <class Method, class M, class Lik, class Pri, class Group>
FLUXION_HOST_DEVICE solve_status trajectory_log_density_members(
    const M& m, const Group& g, const ode_options<typename M::scalar>& o, const Lik& lik,
    const series_view<typename M::scalar>* data, const Pri& pri, const typename M::scalar* x0, std::ptrdiff_t xs,
    const typename M::scalar* p, std::ptrdiff_t ps, typename M::scalar* value_out, typename M::scalar* grad_out,
    std::ptrdiff_t grad_stride, solve_statistics& st, deferred_terms<typename M::scalar> deferred,
    term_outputs<typename M::scalar> terms = {}) {
  using T = typename M::scalar;
  using system = sensitivity_columns_system<M, Group>;
  constexpr int n = int(M::n_states);
  const system sys{m, g};
  T z0[n], last[n];
  sys.initial_share(x0, xs, z0);
  const trajectory_io<T> io{z0, 1, p, ps, nullptr, 0, 0, last, 1};
  member_log_density_sink<M, Lik, Group> sink{m, lik, data, p, ps, deferred, g, o.n_save};
  sink.terms = terms;
  const solve_status status = stepper_of<Method, system>::type::run(sys, o, io, st, sink);
  const bool ok = status == solve_status::success;
  if (ok) sink.finish();  // the same on every member: the status is the group's
  T value = g.sum(sink.value);
  member_prior_sum<T> add{p, ps, sys.column(), &value, &sink.grad};
  pri.each(add);
  const int c = sys.column();
  if (c < 0) {
    *value_out = ok ? value : -math::special::infinity<T>();
    if (!ok) terms.fail(Lik::size);
  } else if (c < int(M::n_params + given_states_of<M>)) {  // the given model's columns
    grad_out[std::ptrdiff_t(c) * grad_stride] = has_gradient(ok, value) && !drives(o, c) ? sink.grad : T(0);
  }
  return status;
}

}  // namespace fluxion::detail
