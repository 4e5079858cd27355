#pragma once
// What the infer layer's protocols require, as concepts. The log-density
// entry points (fx::host::log_density, fx::cuda::log_density) are
// constrained by them, and a misuse stops in one sentence that names the
// concept (detail::require_log_density below).
//
//   fx::observation_family<F>  F::name, F::data (a data_kind), F::discrete,
//                              F::parameter_count, and for the scalar types
//                              log_density / log_cdf / log_ccdf and their
//                              *_partials (infer/densities.hpp) over
//                              y (and the trials n of binomial families)
//                              and parameter_count parameters
//   fx::prior_density<P>       p.log_density(x), p.log_density_partials(x)
//                              (fx::partials<T, 1>), p.transform() (infer/priors.hpp)
//   fx::series_likelihood<L>   an fx::likelihood of fx::series<F> (or fx::interval_series<F>),
//                              each F an observation family
//   fx::prior_list<P>          an fx::priors of fx::prior_on<Q>, each Q a prior density
#include <concepts>
#include <cstddef>
#include <utility>

#include <fluxion/infer/data_kind.hpp>
#include <fluxion/infer/likelihood.hpp>
#include <fluxion/infer/partials.hpp>
#include <fluxion/solve/concepts.hpp>

namespace fluxion {

namespace detail {

template <std::size_t>
using real_argument = double;

// F's densities callable in double with Leading real arguments (y, or y and
// the trials n) before F::parameter_count parameters.
template <class F, std::size_t... Leading, std::size_t... Parameter>
constexpr bool family_callable(std::index_sequence<Leading...>, std::index_sequence<Parameter...>) {
  using P = partials<double, F::parameter_count>;
  return requires(real_argument<Leading>... y, real_argument<Parameter>... q) {
    { F::template log_density<double>(y..., q...) } -> std::convertible_to<double>;
    { F::template log_cdf<double>(y..., q...) } -> std::convertible_to<double>;
    { F::template log_ccdf<double>(y..., q...) } -> std::convertible_to<double>;
    { F::template log_density_partials<double>(y..., q...) } -> std::same_as<P>;
    { F::template log_cdf_partials<double>(y..., q...) } -> std::same_as<P>;
    { F::template log_ccdf_partials<double>(y..., q...) } -> std::same_as<P>;
  };
}

template <class F>
constexpr bool family_densities() {
  constexpr auto parameters = std::make_index_sequence<std::size_t(F::parameter_count)>{};
  if constexpr (takes_trials<F>)
    return family_callable<F>(std::make_index_sequence<2>{}, parameters);
  else
    return family_callable<F>(std::make_index_sequence<1>{}, parameters);
}

}  // namespace detail

template <class F>
concept observation_family = requires {
  { F::name } -> std::convertible_to<const char*>;
  { F::data } -> std::convertible_to<data_kind>;
  { F::discrete } -> std::convertible_to<bool>;
  { F::parameter_count } -> std::convertible_to<int>;
  requires F::parameter_count >= 1;
} && detail::family_densities<F>();

template <class P>
concept prior_density = requires(const P& p, double x) {
  { p.log_density(x) } -> std::convertible_to<double>;
  { p.log_density_partials(x) } -> std::same_as<partials<double, 1>>;
  p.transform();
};

namespace detail {
template <class L>
inline constexpr bool is_series_likelihood = false;
template <class... F, class... Timing>
inline constexpr bool is_series_likelihood<likelihood<series<F, Timing>...>> = (observation_family<F> && ...);
template <class P>
inline constexpr bool is_prior_list = false;
template <class... Q>
inline constexpr bool is_prior_list<priors<prior_on<Q>...>> = (prior_density<Q> && ...);
}  // namespace detail

template <class L>
concept series_likelihood = detail::is_series_likelihood<L>;

template <class P>
concept prior_list = detail::is_prior_list<P>;

namespace detail {

template <class M, class Method, class Lik, class Pri>
concept log_density_parts = ode_system<M> && explicit_tableau<Method> && series_likelihood<Lik> && prior_list<Pri>;

// The one sentence for a log-density whose model, method, likelihood or
// priors are not ones: the entry points' fallback overloads call it.
template <class M, class Method, class Lik, class Pri>
constexpr auto require_log_density() {
  static_assert(ode_system<M>,
                "fluxion: the model of a log-density must satisfy fluxion::ode_system "
                "(a fluxion::compiled<model, T>).");
  static_assert(explicit_tableau<Method>,
                "fluxion: the method of a log-density must satisfy fluxion::explicit_tableau (fluxion::tsit5, "
                "fluxion::vern7): its gradient integrates sensitivities or an adjoint with explicit methods only.");
  static_assert(series_likelihood<Lik>,
                "fluxion: the likelihood of a log-density must satisfy fluxion::series_likelihood: an "
                "fluxion::likelihood of fluxion::series<Family> (or fluxion::interval_series<Family>), each Family a "
                "fluxion::observation_family.");
  static_assert(prior_list<Pri>,
                "fluxion: the priors of a log-density must satisfy fluxion::prior_list: fluxion::priors of "
                "fluxion::prior_on<Prior>, each Prior a fluxion::prior_density (fluxion::priors<>{} for none).");
}

}  // namespace detail

}  // namespace fluxion
