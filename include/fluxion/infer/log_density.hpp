#pragma once
// The log-density of a trajectory given data, and its gradient.
//
// A likelihood ties observables of the model at the problem's save times to
// data series, each through an observation density; priors put densities on
// parameters. For every trajectory (an initial state x0 and parameters p)
//
//   log p = sum_series sum_{observed save times} log L(data | observable, family parameters)
//         + sum_priors log prior(p_j)
//
// and its gradient with respect to p and x0, from forward sensitivities
// integrated with the states (fluxion/solve/sensitivity.hpp): at a save time,
// d observable / d theta = obs_jac_x S + obs_jac_p (the model's exact
// observable Jacobians, over their compile-time non-zeros), chained with the
// density's closed-form partials (fluxion/infer/densities.hpp, censoring.hpp).
// The integration's error control covers the sensitivities, so the gradient
// is as accurate as the tolerances make the trajectory.
//
//   constexpr fx::series<fx::neg_binomial_2> cases{.name = "cases", .observable = 0, .parameters = {3}};
//   const fx::likelihood lik(cases);                              // one or more series
//   const fx::priors pri(fx::prior_on{0, fx::lognormal_prior{-1.0, 0.5}}, ...);   // or fx::priors<>{}
//   std::vector<fx::series_data<double>> data = {{.values = obs, .mask = mask}};
//   auto r = fx::host::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, fx::soa(x0), fx::soa(p));
//   r.value[b], r.gradient(j, b)      // columns j: the parameters, then the initial states
//   r.series_value(k, b)              // series k's log-likelihood (its terms summed, no priors)
//
// or into buffers the caller owns, in the same layout (an empty gradients
// span asks for the value alone; each series' value and each observation's
// term on request, infer/buffers.hpp):
//
//   fx::log_density_buffers<double> out{value, gradients, status, stats};
//   fx::host::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, fx::soa(x0), fx::soa(p), out);
//
// A series over intervals (fx::interval_series<F>, infer/likelihood.hpp)
// observes its observable's integral between consecutive save times: the
// log-density then integrates the model with its observables accumulated
// (integrated_model_t, compile/accumulated.hpp) and takes differences.
//
// Series: `observable` is the flat index of an observable of the model, the
// density's location: normal's mean, log-normal's median (mu = log of it),
// Poisson's and the negative binomial's mean, the binomial's and the
// beta-binomial's probability. The family's other parameters (normal sd,
// log-normal sigma, dispersion, concentration) are given in `parameters`:
// a model parameter's flat index (fitted: its gradient column), a constant
// (fx::fixed(v)) or a value per save time from the data (fx::from_data,
// series_data::parameter_values). Binomial families take the number of trials
// per save time from the data. Data: one observation per save time, or per
// time of the series' own (series_data::times, infer/series_data.hpp) (exact
// or censored, fluxion/infer/censoring.hpp), an optional mask (0: missing,
// the value is not read), trials where the family needs them; checked on the
// host before any work (fluxion::data_error names the series and the time
// index, an observation's censoring kind included; fluxion::layout_error for
// buffers, and for results too large to allocate; fluxion::problem_error for
// the problem, and for a prior on no parameter of the model or with invalid
// hyperparameters, such as a normal sd <= 0 or NaN).
//
// A trajectory whose integration does not succeed (status other than
// success) has log-density -inf and gradient 0: a sampler rejects it, an
// optimizer steps back. Its status says why. A trajectory that succeeds
// with log-density -inf (a parameter outside its prior's support, data
// outside the family's) has gradient 0 too: no direction leads back in.
//
// Every parameter a series' family needs beyond its location is given in
// `.parameters`: a slot left out is refused (fluxion::data_error naming the
// series), never read as parameter 0; so is a constant or an observed
// per-observation value that is not positive and finite.
//
// Priors are on parameters; the gradient with respect to x0 lets a caller
// whose initial state is a function of parameters chain it (dx0/dp^T grad).
// Unconstrained parameters: fluxion/infer/transforms.hpp gives each prior's
// transform and its log-Jacobian to chain with these gradients.
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fluxion/config/macros.hpp>
#include <fluxion/compile/accumulated.hpp>
#include <fluxion/infer/buffers.hpp>
#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/data_check.hpp>
#include <fluxion/infer/data_error.hpp>
#include <fluxion/infer/concepts.hpp>
#include <fluxion/infer/densities.hpp>
#include <fluxion/infer/likelihood.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/infer/priors.hpp>
#include <fluxion/infer/series_data.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/layout/error.hpp>
#include <fluxion/exec/detail/for_ranges.hpp>
#include <fluxion/exec/threads.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/sensitivity.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

namespace detail {
template <class Family>
inline constexpr bool location_is_log = std::is_same_v<Family, lognormal>;

// The value of a density's parameter slot at the series' data index i: a
// model parameter's, a constant, or the series' value there.
template <class T>
FLUXION_HOST_DEVICE T family_parameter(const parameter_index& slot, const series_view<T>& d, std::ptrdiff_t i,
                                       const T* p, std::ptrdiff_t ps) {
  if (slot.is_model_parameter()) return p[std::ptrdiff_t(slot.value) * ps];
  if (slot.value == parameter_index::constant) return T(slot.fixed_value);
  return d.parameter_values[i];
}

// log L of one observation and its partials in (location, the family's other
// parameters), the location given as the observable's value.
// Calls rather than inlined on the device: each family's censoring branches
// hold special functions (incomplete beta, erfc) whose code, repeated at
// every call site, slows the device compiler for nothing.
template <class Family, class T, int... E>
FLUXION_HOST_DEVICE_CALL partials<T, Family::parameter_count> observation_term(const observation<T>& obs, T trials, T mu,
                                                                         const T* extra,
                                                                         std::integer_sequence<int, E...>) {
  namespace sp = math::special;
  const T loc = location_is_log<Family> ? sp::log(mu) : mu;
  partials<T, Family::parameter_count> r;
  if constexpr (takes_trials<Family>) r = log_likelihood_partials<Family>(obs, trials, loc, extra[E]...);
  else r = log_likelihood_partials<Family>(obs, loc, extra[E]...);
  if constexpr (location_is_log<Family>) r.grad[0] = r.grad[0] / mu;
  return r;
}
template <class Family, class T, int... E>
FLUXION_HOST_DEVICE_CALL T observation_value(const observation<T>& obs, T trials, T mu, const T* extra,
                                        std::integer_sequence<int, E...>) {
  namespace sp = math::special;
  const T loc = location_is_log<Family> ? sp::log(mu) : mu;
  if constexpr (takes_trials<Family>) return log_likelihood<Family>(obs, trials, loc, extra[E]...);
  else return log_likelihood<Family>(obs, loc, extra[E]...);
}

// The term of series sr at its data index i, its observable's value there
// mu: log L and its partials in (mu, the family's other parameters).
// Callers check the mask first.
template <class Family, class Timing, class T>
FLUXION_HOST_DEVICE partials<T, Family::parameter_count> series_term(const series<Family, Timing>& sr,
                                                                   const series_view<T>& d, std::ptrdiff_t i, T mu,
                                                                   const T* p, std::ptrdiff_t ps) {
  constexpr int E = series<Family, Timing>::extra_parameters;
  T extra[E > 0 ? E : 1];
  for (int e = 0; e < E; ++e) extra[e] = family_parameter(sr.parameters[e], d, i, p, ps);
  const T trials = d.trials ? d.trials[i] : T(0);
  return observation_term<Family>(d.values[i], trials, mu, extra, std::make_integer_sequence<int, E>{});
}

// The model a log-density integrates for likelihood Lik: M itself, or M with
// its observables accumulated (compile/accumulated.hpp) where a series is
// over intervals.
template <class M, class Lik>
using integrated_model_t = if_t<Lik::accumulates, with_accumulated_observables<M>, M>;
template <class M, class Lik>
constexpr integrated_model_t<M, Lik> integrated_model(const M& m, const Lik&) {
  if constexpr (Lik::accumulates) return {};
  else return m;
}

// The observable of model E (an integrated_model_t) whose value a series
// reads: its own, or its accumulation (the interval's count is that value's
// difference between two save times).
template <class E, class Family, class Timing>
FLUXION_HOST_DEVICE constexpr int location_observable(const series<Family, Timing>& sr) {
  if constexpr (series<Family, Timing>::accumulated) return int(given_observables_of<E>) + sr.observable;
  else return sr.observable;
}

// Where a sink that defers its terms keeps them: record k of save time s at
// at[(s * record + k) * stride] (the device gives each resident thread a slot
// of a scratch buffer, stride the number of slots apart, so that a warp's
// accesses coalesce).
template <class T>
struct deferred_terms {
  T* at = nullptr;
  std::ptrdiff_t stride = 0;
};

// Folds the states given at each save time into log L (and its gradient,
// when Gradient: the values then hold the sensitivity system's state).
// Deferred: save() only records the observables (and their derivatives) and
// finish() evaluates the densities after the integration. On a GPU the
// trajectories of a warp reach a save time at different steps, so densities
// evaluated inside the integration loop run once per group of lanes (a
// censored term's incomplete beta function up to 32 times over); after the
// loop the warp evaluates them together.
// M is the model integrated (integrated_model_t): a series over intervals
// reads the difference of an accumulated observable between this time of
// the series and its time before (0 before the first: the accumulation
// starts at t0). A series reads the save times that are its times alone
// (series_view::index).
template <class M, class Lik, bool Gradient, bool Deferred = false>
struct log_density_sink {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr int np = int(M::n_params);
  static constexpr int nobs = int(M::n_observables);
  static constexpr int columns = np + n;
  using ox = jacobian_entries<M, M::jacobian::obs_x>;
  using op = jacobian_entries<M, M::jacobian::obs_p>;

  // Values recorded per save time when deferred: the observables, then their derivatives.
  static constexpr int record = (nobs > 0 ? nobs : 1) * (Gradient ? 1 + columns : 1);

  const M& model;
  const Lik& lik;
  const series_view<T>* data;
  const T* p;
  std::ptrdiff_t ps;
  deferred_terms<T> deferred = {};
  T value = T(0);
  T grad[Gradient ? columns : 1] = {};
  // At the current save time:
  std::size_t save_index = 0;
  T mu[nobs > 0 ? nobs : 1] = {};
  T dmu[Gradient ? (nobs > 0 ? nobs : 1) * columns : 1] = {};
  // Each series' accumulated observable (and its derivatives) at the
  // series' time before (series over intervals).
  static constexpr int nacc = Lik::accumulates ? int(Lik::size) : 0;
  T prev_mu[nacc > 0 ? nacc : 1] = {};
  T prev_dmu[Gradient && nacc > 0 ? nacc * columns : 1] = {};
  // Where each term goes besides the value, when asked (infer/buffers.hpp).
  term_outputs<T> terms = {};

  // The terms of the current save time.
  FLUXION_HOST_DEVICE void add_terms() { lik.each(*this); }

  template <int... R, int... C>
  FLUXION_HOST_DEVICE void add_ox(const T* v, const T* sens, std::integer_sequence<int, R...>,
                                  std::integer_sequence<int, C...>) {
    int e = 0;
    ((add_row(R, v[e], sens + C), ++e), ...);
  }
  // dmu[r][j] += v S[c][j] for every column j (sens points at S[c][0], columns n apart).
  FLUXION_HOST_DEVICE void add_row(int r, T v, const T* sens) {
    for (int j = 0; j < columns; ++j) dmu[r * columns + j] += v * sens[j * n];
  }
  template <int... R, int... C>
  FLUXION_HOST_DEVICE void add_op(const T* v, std::integer_sequence<int, R...>, std::integer_sequence<int, C...>) {
    int e = 0;
    ((dmu[R * columns + C] += v[e], ++e), ...);
  }

  template <class Values>
  FLUXION_HOST_DEVICE_CALL void save(std::size_t s, T t, int, const Values& values) {
    if constexpr (nobs > 0) {
      save_index = s;
      T y[n];
      for (int i = 0; i < n; ++i) y[i] = values(i);
      model.observe(t, y, 1, p, ps, mu, 1);
      if constexpr (Gradient) {
        T sens[n * columns];
        for (int k = 0; k < n * columns; ++k) sens[k] = values(n + k);
        for (int k = 0; k < nobs * columns; ++k) dmu[k] = T(0);
        if constexpr (ox::nnz > 0) {
          T v[ox::nnz];
          model.template jacobian_values<M::jacobian::obs_x>(t, y, 1, p, ps, v, 1);
          add_ox(v, sens, typename ox::rows{}, typename ox::columns{});
        }
        if constexpr (op::nnz > 0) {
          T v[op::nnz];
          model.template jacobian_values<M::jacobian::obs_p>(t, y, 1, p, ps, v, 1);
          add_op(v, typename op::rows{}, typename op::columns{});
        }
      }
      if constexpr (Deferred) {
        T* at = deferred.at + std::ptrdiff_t(s) * record * deferred.stride;
        for (int k = 0; k < nobs; ++k) at[std::ptrdiff_t(k) * deferred.stride] = mu[k];
        if constexpr (Gradient)
          for (int k = 0; k < nobs * columns; ++k) at[std::ptrdiff_t(nobs + k) * deferred.stride] = dmu[k];
      } else {
        add_terms();
      }
    }
  }

  // The deferred terms of save times 0 .. n_save - 1 (nothing when not deferred).
  FLUXION_HOST_DEVICE void finish(std::size_t n_save) {
    if constexpr (Deferred && nobs > 0) {
      for (std::size_t s = 0; s < n_save; ++s) {
        save_index = s;
        const T* at = deferred.at + std::ptrdiff_t(s) * record * deferred.stride;
        for (int k = 0; k < nobs; ++k) mu[k] = at[std::ptrdiff_t(k) * deferred.stride];
        if constexpr (Gradient)
          for (int k = 0; k < nobs * columns; ++k) dmu[k] = at[std::ptrdiff_t(nobs + k) * deferred.stride];
        add_terms();
      }
    }
  }

  // One series at the current save time, where it is one of its times.
  template <class Family, class Timing>
  FLUXION_HOST_DEVICE void operator()(const series<Family, Timing>& sr, std::size_t k) {
    const series_view<T>& d = data[k];
    const std::ptrdiff_t i = d.index(save_index);
    if (i < 0) return;
    constexpr int E = series<Family, Timing>::extra_parameters;
    constexpr bool interval = series<Family, Timing>::accumulated;
    const int at = location_observable<M>(sr);
    if (d.observed(i)) {
      T m = mu[at];
      if constexpr (interval) m -= prev_mu[k];
      if constexpr (Gradient) {
        const auto r = series_term(sr, d, i, m, p, ps);
        value += r.value;
        terms.add(k, d.first_term + std::size_t(i), r.value);
        for (int j = 0; j < columns; ++j) {
          T dm = dmu[at * columns + j];
          if constexpr (interval) dm -= prev_dmu[k * columns + j];
          grad[j] += r.grad[0] * dm;
        }
        for (int e = 0; e < E; ++e)
          if (sr.parameters[e].is_model_parameter()) grad[sr.parameters[e].value] += r.grad[1 + e];
      } else {
        T extra[E > 0 ? E : 1];
        for (int e = 0; e < E; ++e) extra[e] = family_parameter(sr.parameters[e], d, i, p, ps);
        const T trials = d.trials ? d.trials[i] : T(0);
        const T term =
            observation_value<Family>(d.values[i], trials, m, extra, std::make_integer_sequence<int, E>{});
        value += term;
        terms.add(k, d.first_term + std::size_t(i), term);
      }
    } else {
      terms.observation(d.first_term + std::size_t(i), T(0));  // missing: its term is 0
    }
    if constexpr (interval) {  // the start of the series' next interval, observed or not
      prev_mu[k] = mu[at];
      if constexpr (Gradient)
        for (int j = 0; j < columns; ++j) prev_dmu[k * columns + j] = dmu[at * columns + j];
    }
  }
};

// Whether a trajectory's gradient is written (else zeros): it succeeded and
// its log-density is not -inf (data, or a parameter under a prior, outside
// the support, where no direction leads back in).
template <class T>
FLUXION_HOST_DEVICE constexpr bool has_gradient(bool succeeded, T value) {
  return succeeded && value != -math::special::infinity<T>();
}

// Adds the priors' log densities (and their derivatives) at parameters p.
template <class T, bool Gradient>
struct prior_sum {
  const T* p;
  std::ptrdiff_t ps;
  T* value;
  T* grad;
  template <class Prior>
  FLUXION_HOST_DEVICE void operator()(const prior_on<Prior>& pr, std::size_t) const {
    const T x = p[std::ptrdiff_t(pr.parameter) * ps];
    if constexpr (Gradient) {
      const auto r = pr.prior.log_density_partials(x);
      *value += r.value;
      grad[pr.parameter] += r.grad[0];
    } else {
      *value += pr.prior.log_density(x);
    }
  }
};

// One trajectory's log-density (and gradient: columns values grad_stride
// apart, the parameters then the initial states). Host and device; with
// Deferred, the densities are evaluated after the integration from the
// records kept in `deferred` (see log_density_sink). M is the model
// integrated (integrated_model_t): x0 holds the given model's states (an
// accumulated state starts at 0) and the gradient has its columns.
template <class Method, bool Gradient, bool Deferred = false, class M, class Lik, class Pri>
FLUXION_HOST_DEVICE solve_status trajectory_log_density(const M& m, const ode_options<typename M::scalar>& o,
                                                        const Lik& lik, const series_view<typename M::scalar>* data,
                                                        const Pri& pri, const typename M::scalar* x0,
                                                        std::ptrdiff_t xs, const typename M::scalar* p,
                                                        std::ptrdiff_t ps, typename M::scalar* value_out,
                                                        typename M::scalar* grad_out, std::ptrdiff_t grad_stride,
                                                        solve_statistics& st,
                                                        deferred_terms<typename M::scalar> deferred = {},
                                                        term_outputs<typename M::scalar> terms = {}) {
  using T = typename M::scalar;
  using System = if_t<Gradient, sensitivity_system<M>, M>;
  constexpr int columns = int(M::n_params + given_states_of<M>);
  log_density_sink<M, Lik, Gradient, Deferred> sink{m, lik, data, p, ps, deferred};
  sink.terms = terms;
  terms.clear_series(Lik::size);
  T z0[System::n_states], last[System::n_states];
  if constexpr (Gradient) {
    System::initial_state(x0, xs, z0);
  } else {
    for (std::size_t i = 0; i < given_states_of<M>; ++i) z0[i] = x0[std::ptrdiff_t(i) * xs];
    for (std::size_t i = given_states_of<M>; i < M::n_states; ++i) z0[i] = T(0);
  }
  const System system{m};
  const trajectory_io<T> io{z0, 1, p, ps, nullptr, 0, 0, last, 1};
  const solve_status status = stepper_of<Method, System>::type::run(system, o, io, st, sink);
  if (status == solve_status::success) sink.finish(o.n_save);  // a failed trajectory's value is -inf anyway
  prior_sum<T, Gradient> add{p, ps, &sink.value, sink.grad};
  pri.each(add);
  const bool ok = status == solve_status::success;
  *value_out = ok ? sink.value : -math::special::infinity<T>();
  if (!ok) terms.fail(Lik::size);
  if constexpr (Gradient) {
    const bool graded = has_gradient(ok, sink.value);
    for (int j = 0; j < columns; ++j) grad_out[std::ptrdiff_t(j) * grad_stride] = graded ? sink.grad[j] : T(0);
    zero_driven(o, grad_out, grad_stride);
  }
  return status;
}

// --- host-side checks ---------------------------------------------------------------

template <class M>
struct series_checker {
  std::span<const series_data<typename M::scalar>> data;
  std::size_t n_save;
  typename M::scalar t0, t1;  // the problem's span, which a series' own times lie in
  template <class Family, class Timing>
  void operator()(const series<Family, Timing>& sr, std::size_t k) const {
    const series_data<typename M::scalar>& d = data[k];
    const std::string name = sr.name ? sr.name : "series";
    // One value per save time, or per time of the series' own.
    const std::size_t n_values = series_length(d, n_save);
    const std::string per = d.times.empty() ? "save time" : "time of the series";
    if ((sr.observable) < 0 || std::size_t(sr.observable) >= M::n_observables)
      throw data_error(name, data_error::no_index,
                       "observable index " + std::to_string(sr.observable) + " is not among the model's " +
                           std::to_string(M::n_observables) + " observables");
    bool reads_data = false;
    for (int e = 0; e < series<Family, Timing>::extra_parameters; ++e) {
      const parameter_index& slot = sr.parameters[e];
      const std::string which = std::string("the ") + Family::name + " density's parameter " + std::to_string(e + 1);
      if (slot.value == parameter_index::unset)
        throw data_error(name, data_error::no_index,
                         which + " is not given: name the model parameter it is in .parameters (" +
                             std::to_string(series<Family, Timing>::extra_parameters) +
                             " index(es), after the location), or give fx::fixed(value) or fx::from_data");
      if (slot.value == parameter_index::constant) {
        if (!positive_and_finite(slot.fixed_value))
          throw data_error(name, data_error::no_index,
                           which + " is fixed at " + show_value(slot.fixed_value) + "; it must be positive and finite");
      } else if (slot.value == parameter_index::per_observation) {
        reads_data = true;
      } else if (slot.value < 0 || std::size_t(slot.value) >= M::n_params) {
        throw data_error(name, data_error::no_index,
                         "parameter index " + std::to_string(slot.value) + " (" + which +
                             ") is not among the model's " + std::to_string(M::n_params) + " parameters");
      }
    }
    check_not_null(name, "parameter values", d.parameter_values.data(), d.parameter_values.size());
    if (reads_data && d.parameter_values.size() != n_values)
      throw data_error(name, data_error::no_index,
                       std::string("the ") + Family::name +
                           " density reads a parameter from the data (fx::from_data): it needs one parameter value "
                           "per " + per + " (" + std::to_string(n_values) + "), got " +
                           std::to_string(d.parameter_values.size()));
    if (!reads_data && !d.parameter_values.empty())
      throw data_error(name, data_error::no_index,
                       "parameter values were given, but no parameter of the series is fx::from_data");
    check_not_null(name, "times", d.times.data(), d.times.size());
    for (std::size_t i = 0; i < d.times.size(); ++i) {
      const auto t = d.times[i];
      if (!std::isfinite(double(t)))
        throw data_error(name, i, "the series' time " + show_value(t) + " is not finite");
      if (t < t0 || t > t1)
        throw data_error(name, i,
                         "the series' time " + show_value(t) + " is outside the problem's span [" + show_value(t0) +
                             ", " + show_value(t1) + "]");
      if (i > 0 && !(t > d.times[i - 1]))
        throw data_error(name, i,
                         "the series' times must be strictly increasing; " + show_value(t) + " follows " +
                             show_value(d.times[i - 1]));
    }
    check_not_null(name, "values", d.values.data(), d.values.size());
    check_not_null(name, "mask entries", d.mask.data(), d.mask.size());
    check_not_null(name, "trials", d.trials.data(), d.trials.size());
    if (d.values.size() != n_values)
      throw data_error(name, data_error::no_index,
                       d.times.empty() ? "the series has " + std::to_string(d.values.size()) +
                                             " values but the problem has " + std::to_string(n_save) +
                                             " save times (one value per save time, or give the series' own times)"
                                       : "the series has " + std::to_string(d.values.size()) + " values but " +
                                             std::to_string(n_values) + " times of its own (one value per time)");
    check_mask_length(name, d.values.size(), d.mask);
    if constexpr (takes_trials<Family>) {
      if (d.trials.size() != n_values)
        throw data_error(name, data_error::no_index,
                         "the " + std::string(Family::name) + " density needs one number of trials per " + per +
                             " (" + std::to_string(n_values) + "), got " + std::to_string(d.trials.size()));
    } else if (!d.trials.empty()) {
      throw data_error(name, data_error::no_index,
                       "trials were given, but the " + std::string(Family::name) + " density takes none");
    }
    for (std::size_t s = 0; s < n_values; ++s) {
      if (!d.mask.empty() && d.mask[s] == 0) continue;
      const observation<typename M::scalar>& ob = d.values[s];
      std::string problem;
      if constexpr (takes_trials<Family>) {
        problem = observation_problem(d.trials[s], data_kind::count);
        if (!problem.empty()) throw data_error(name, s, "trials: " + problem);
      }
      if (reads_data && !positive_and_finite(d.parameter_values[s]))
        throw data_error(name, s,
                         std::string("the ") + Family::name + " density's parameter value " +
                             show_value(d.parameter_values[s]) + " must be positive and finite");
      if (ob.kind != censoring::none && ob.kind != censoring::left && ob.kind != censoring::right &&
          ob.kind != censoring::interval)
        throw data_error(name, s,
                         "the censoring kind " + std::to_string(int(ob.kind)) +
                             " is not one of none (0), left (1), right (2) or interval (3)");
      if (ob.kind == censoring::none) {
        problem = observation_problem(ob.value, Family::data);
        if (problem.empty() && takes_trials<Family> && d.trials[s] < ob.value)
          problem = "the count " + show_value(ob.value) + " exceeds the number of trials " + show_value(d.trials[s]);
      } else {
        if (ob.value != ob.value || (ob.kind == censoring::interval && ob.upper != ob.upper))
          problem = "a censoring bound is NaN but the value is marked observed";
        else if (ob.kind == censoring::interval && !(ob.value < ob.upper))
          problem = "an interval (a, b] needs a < b, got (" + show_value(ob.value) + ", " + show_value(ob.upper) + "]";
      }
      if (!problem.empty()) throw data_error(name, s, problem);
    }
  }
};

// What is wrong with a prior's hyperparameters (empty: nothing), for the
// priors of fluxion/infer/priors.hpp; another prior type is not checked.
// Bad hyperparameters would give every trajectory a NaN log-density.
struct hyperparameter_check {
  std::string problem;
  template <class R>
  hyperparameter_check& finite(const char* prior, const char* what, R v) {
    if (problem.empty() && !std::isfinite(double(v)))
      problem = std::string("the ") + prior + " prior's " + what + " must be finite, got " + show_value(v);
    return *this;
  }
  template <class R>
  hyperparameter_check& positive(const char* prior, const char* what, R v) {
    if (problem.empty() && !positive_and_finite(v))
      problem = std::string("the ") + prior + " prior's " + what + " must be positive and finite, got " + show_value(v);
    return *this;
  }
  // lower < upper, neither NaN; infinite bounds only where `infinite_ok`.
  template <class R>
  hyperparameter_check& bounds(const char* prior, R lower, R upper, bool infinite_ok) {
    if (!problem.empty()) return *this;
    if (!infinite_ok && (!std::isfinite(double(lower)) || !std::isfinite(double(upper))))
      problem = std::string("the ") + prior + " prior's bounds must be finite, got [" + show_value(lower) + ", " +
                show_value(upper) + "]";
    else if (!(lower < upper))
      problem = std::string("the ") + prior + " prior's lower bound must be below its upper bound, got [" +
                show_value(lower) + ", " + show_value(upper) + "]";
    return *this;
  }
};
template <class Prior>
std::string hyperparameter_problem(const Prior&) {
  return {};
}
template <class R>
std::string hyperparameter_problem(const normal_prior<R>& q) {
  return hyperparameter_check{}.finite("normal", "mean", q.mean).positive("normal", "sd", q.sd).problem;
}
template <class R>
std::string hyperparameter_problem(const lognormal_prior<R>& q) {
  return hyperparameter_check{}.finite("lognormal", "mu", q.mu).positive("lognormal", "sigma", q.sigma).problem;
}
template <class R>
std::string hyperparameter_problem(const half_normal_prior<R>& q) {
  return hyperparameter_check{}.positive("half-normal", "sd", q.sd).problem;
}
template <class R>
std::string hyperparameter_problem(const gamma_prior<R>& q) {
  return hyperparameter_check{}.positive("gamma", "shape", q.shape).positive("gamma", "rate", q.rate).problem;
}
template <class R>
std::string hyperparameter_problem(const beta_prior<R>& q) {
  return hyperparameter_check{}.positive("beta", "a", q.a).positive("beta", "b", q.b).problem;
}
template <class R>
std::string hyperparameter_problem(const uniform_prior<R>& q) {
  return hyperparameter_check{}.bounds("uniform", q.lower, q.upper, false).problem;
}
template <class R>
std::string hyperparameter_problem(const truncated_normal_prior<R>& q) {
  return hyperparameter_check{}
      .finite("truncated normal", "mean", q.mean)
      .positive("truncated normal", "sd", q.sd)
      .bounds("truncated normal", q.lower, q.upper, true)
      .problem;
}

// Each prior on a parameter of the model, its hyperparameters valid.
template <class M>
struct prior_checker {
  template <class Prior>
  void operator()(const prior_on<Prior>& pr, std::size_t k) const {
    if (pr.parameter < 0 || std::size_t(pr.parameter) >= M::n_params)
      throw problem_error("fluxion: prior " + std::to_string(k) + " is on parameter " + std::to_string(pr.parameter) +
                          ", which is not among the model's " + std::to_string(M::n_params) + " parameters");
    const std::string problem = hyperparameter_problem(pr.prior);
    if (!problem.empty())
      throw problem_error("fluxion: prior " + std::to_string(k) + " (on parameter " + std::to_string(pr.parameter) +
                          "): " + problem);
  }
};

// Inputs from data (events that set parameters) reach a log-density
// through the integration alone: the observables, the series' density
// parameters and the priors read the trajectory's own parameters, so none
// may read a parameter an input drives (whose own value is never read).
template <class M>
struct driven_reads_checker {
  std::vector<bool> driven;
  template <class Family, class Timing>
  void operator()(const series<Family, Timing>& sr, std::size_t) const {
    for (int e = 0; e < series<Family, Timing>::extra_parameters; ++e) {
      const int k = sr.parameters[e].value;
      if (k >= 0 && std::size_t(k) < driven.size() && driven[std::size_t(k)])
        throw problem_error(std::string("fluxion: series '") + (sr.name ? sr.name : "series") + "' reads parameter " +
                            std::to_string(k) + " (its " + Family::name + " density's parameter " +
                            std::to_string(e + 1) + "), which an input from data drives");
    }
  }
  template <class Prior>
  void operator()(const prior_on<Prior>& pr, std::size_t k) const {
    if (pr.parameter >= 0 && std::size_t(pr.parameter) < driven.size() && driven[std::size_t(pr.parameter)])
      throw problem_error("fluxion: prior " + std::to_string(k) + " is on parameter " + std::to_string(pr.parameter) +
                          ", which an input from data drives (a driven parameter is data, not fitted)");
  }
  void observables() const {
    using op = jacobian_entries<M, M::jacobian::obs_p>;
    for (std::size_t r = 0; r < M::n_observables; ++r)
      for (int e = op::pattern.row_ptr[r]; e < op::pattern.row_ptr[r + 1]; ++e)
        if (driven[std::size_t(op::pattern.col_idx[std::size_t(e)])])
          throw problem_error("fluxion: observable " + std::to_string(r) + " reads parameter " +
                              std::to_string(op::pattern.col_idx[std::size_t(e)]) +
                              ", which an input from data drives: a log-density's observables read the "
                              "trajectory's own parameters");
  }
};
template <class M, class Lik, class Pri>
void check_driven_reads(const ode_problem<typename M::scalar>& pr, const Lik& lik, const Pri& pri) {
  if (!sets_params(pr.events)) return;
  driven_reads_checker<M> check{driven_parameters(pr.events, M::n_params)};
  check.observables();
  lik.each_on_host(check);
  pri.each_on_host(check);
}

// What a checked log-density call keeps for its duration: the problem it
// integrates points into it (per-state tolerances of the system integrated,
// the save times of the observation timeline), so it outlives the call's
// use of that problem and is neither copied nor moved.
template <class T>
struct log_density_setup {
  std::vector<T> atol;
  observation_timeline<T> timeline;
  log_density_setup() = default;
  log_density_setup(const log_density_setup&) = delete;
  log_density_setup& operator=(const log_density_setup&) = delete;
};

// Everything a log-density needs, checked before any work: the problem, the
// series and their data (and their own times, merged into the save times:
// series_data.hpp), the priors. Returns the problem of the system
// integrated, whose spans point into `setup`.
template <class M, class Lik, class Pri>
ode_problem<typename M::scalar> check_log_density(const ode_problem<typename M::scalar>& pr, const Lik& lik,
                                                  std::span<const series_data<typename M::scalar>> data,
                                                  const Pri& pri, bool gradient,
                                                  log_density_setup<typename M::scalar>& setup) {
  using T = typename M::scalar;
  using E = integrated_model_t<M, Lik>;
  if (data.size() != Lik::size)
    throw data_error("likelihood", data_error::no_index,
                     "the likelihood has " + std::to_string(Lik::size) + " series but " +
                         std::to_string(data.size()) + " data series were given");
  refuse_crossings(pr, "a log-density");
  check_problem(pr, M::n_states, M::n_params);
  series_checker<M> check_one{data, pr.save_times.size(), pr.t0, pr.t1};
  lik.each_on_host(check_one);
  prior_checker<M> check_prior;
  pri.each_on_host(check_prior);
  check_driven_reads<M>(pr, lik, pri);
  setup.timeline = make_timeline<T>(pr.save_times, data);
  // The problem for the model integrated: an accumulated state's absolute
  // tolerance is the problem's atol (the given states keep theirs). The
  // problem itself is checked with the system it integrates, by the caller.
  ode_problem<T> base = pr;
  if (setup.timeline.own_times) base.save_times = setup.timeline.save_times;
  if constexpr (Lik::accumulates) {
    if (!pr.atol_per_state.empty()) {
      setup.atol.assign(E::n_states, pr.atol);
      for (std::size_t i = 0; i < M::n_states; ++i) setup.atol[i] = pr.atol_per_state[i];
      base.atol_per_state = setup.atol;
    }
  }
  if (!gradient) return base;
  std::vector<T> sensitivity_atol;
  ode_problem<T> out = sensitivity_problem<E>(base, sensitivity_atol);
  setup.atol = std::move(sensitivity_atol);
  if (!out.atol_per_state.empty()) out.atol_per_state = setup.atol;
  return out;
}

}  // namespace detail

// Log-densities of a host ensemble: value[b] and the gradient's columns
// (the parameters, then the initial states) as [column][trajectory].
template <class T>
struct log_density_result {
  std::size_t trajectories = 0;
  std::size_t columns = 0;
  std::vector<T> value;
  std::vector<T> gradients;  // [column][trajectory]; empty when not asked for
  std::vector<solve_status> status;
  std::vector<solve_statistics> stats;
  std::vector<T> series_values;  // [series][trajectory]: each series' log-likelihood, no priors
  T gradient(std::size_t j, std::size_t b) const { return gradients[j * trajectories + b]; }
  T series_value(std::size_t k, std::size_t b) const { return series_values[k * trajectories + b]; }
};

namespace detail {

// A host result for count trajectories (zero values, success), with room
// for the gradient's columns when asked; its sizes checked first.
template <class M>
log_density_result<typename M::scalar> sized_log_density_result(std::size_t count, bool gradient,
                                                                std::size_t n_series) {
  using T = typename M::scalar;
  constexpr std::size_t columns = M::n_params + M::n_states;
  // The sizes first (result_values: a layout_error naming the block and
  // the count, before anything is allocated).
  const std::size_t values = result_values<T>("log-density", count, 1);
  const std::size_t gradients = gradient ? result_values<T>("gradient", count, columns) : 0;
  const std::size_t statuses = result_values<solve_status>("status", count, 1);
  const std::size_t stats = result_values<solve_statistics>("statistics", count, 1);
  const std::size_t series_values = n_series > 0 ? result_values<T>("series values", count, n_series) : 0;
  log_density_result<T> r;
  r.trajectories = count;
  r.columns = columns;
  r.value.assign(values, T(0));
  r.gradients.assign(gradients, T(0));
  r.status.assign(statuses, solve_status::success);
  r.stats.assign(stats, solve_statistics{});
  r.series_values.assign(series_values, T(0));
  return r;
}

}  // namespace detail

namespace host {
FLUXION_HOST_ABI_BEGIN

// The log-density of every trajectory into buffers the caller owns
// (fluxion::log_density_buffers: value[b], the gradient's columns as
// [column][trajectory] when out.gradients is not empty, status[b], and
// statistics unless out.stats is empty), as fluxion::cuda::log_density
// writes them (explicit methods; one trajectory at a time per thread).
// Every output is checked (its size, and apart from the inputs and from the
// other outputs) before any work: a refused call writes nothing.
template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
void log_density(const M& m, Method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, threads exec = threads{}) {
  using T = typename M::scalar;
  using E = fluxion::detail::integrated_model_t<M, Lik>;
  constexpr std::size_t columns = M::n_params + M::n_states;
  const bool gradient = !out.gradients.empty();
  fluxion::detail::log_density_setup<T> setup;
  const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, gradient, setup);
  const ode_options<T> o = check_problem(aug, gradient ? sensitivity_system<E>::n_states : E::n_states, E::n_params);
  const auto c = fluxion::detail::check_log_density_buffers<T>(M::n_states, M::n_params, count, x0, p, out, Lik::size,
                                                               setup.timeline.n_terms);
  const auto& cx = c.x0;
  const auto& cp = c.p;
  if (count == 0) return;
  const term_outputs<T> terms = c.terms();
  const auto views = fluxion::detail::host_series_views(data, setup.timeline);
  const E e = fluxion::detail::integrated_model(m, lik);
  const std::size_t values_per_trajectory = (M::n_states + M::n_params) * 4096 * (gradient ? columns : 1);
  fluxion::host::detail::for_ranges(count, exec, 1, values_per_trajectory, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const T* xb = cx.data + std::ptrdiff_t(b) * cx.instance_stride;
      const T* pb = cp.data + std::ptrdiff_t(b) * cp.instance_stride;
      solve_statistics st{};
      if (gradient)
        c.status.data[b] = fluxion::detail::trajectory_log_density<Method, true>(
            e, o, lik, views.data(), pri, xb, cx.element_stride, pb, cp.element_stride, c.value.data + b,
            c.gradients.data + b, c.gradients.element_stride, st, {}, terms.at(b));
      else
        c.status.data[b] = fluxion::detail::trajectory_log_density<Method, false>(
            e, o, lik, views.data(), pri, xb, cx.element_stride, pb, cp.element_stride, c.value.data + b, nullptr, 0,
            st, {}, terms.at(b));
      if (c.with_stats) c.stats.data[b] = st;
    }
  });
}

// The log-density of every trajectory, and with `gradient` its gradient, in
// a new log_density_result: the buffer form above into vectors. The problem,
// data, priors and inputs are checked before the vectors are allocated (a
// refused call allocates nothing), then again by that form.
template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
log_density_result<typename M::scalar> log_density(const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                                                   const Lik& lik,
                                                   std::span<const series_data<typename M::scalar>> data,
                                                   const Pri& pri, std::size_t count,
                                                   batch<const typename M::scalar> x0,
                                                   batch<const typename M::scalar> p, bool gradient = true,
                                                   threads exec = threads{}) {
  using T = typename M::scalar;
  fluxion::detail::log_density_setup<T> setup;
  using E = fluxion::detail::integrated_model_t<M, Lik>;
  const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, gradient, setup);
  check_problem(aug, gradient ? sensitivity_system<E>::n_states : E::n_states, E::n_params);
  check_buffer("initial state", x0, M::n_states, count, false);
  check_buffer("parameter", p, M::n_params, count, false);
  log_density_result<T> r = fluxion::detail::sized_log_density_result<M>(count, gradient, Lik::size);
  log_density(m, method, pr, lik, data, pri, count, x0, p,
              log_density_buffers<T>{std::span<T>(r.value), std::span<T>(r.gradients),
                                     std::span<solve_status>(r.status), std::span<solve_statistics>(r.stats),
                                     std::span<T>(r.series_values)},
              exec);
  return r;
}

// A model, method, likelihood or priors that are not ones: one sentence
// naming the concept (infer/concepts.hpp) instead of errors from inside.
// (Its return type is deduced, so that the sentence comes first.)
template <class M, class Method, class Problem, class Lik, class Data, class Pri, class... Rest>
  requires(!fluxion::detail::log_density_parts<M, Method, Lik, Pri>)
auto log_density(const M&, Method, const Problem&, const Lik&, const Data&, const Pri&, Rest&&...) {
  return fluxion::detail::require_log_density<M, Method, Lik, Pri>();
}

FLUXION_HOST_ABI_END
}  // namespace host

}  // namespace fluxion
