#pragma once
// The parts of a log-density the caller declares (infer/log_density.hpp):
// data series, each an observable under an observation family; the
// likelihood that lists them; priors on parameters and the list of them.
// Plain aggregates, usable in device code (no std::tuple there).
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/infer/densities/beta_binomial.hpp>
#include <fluxion/infer/densities/binomial.hpp>

namespace fluxion {

namespace detail {
template <class Family>
inline constexpr bool takes_trials = std::is_same_v<Family, binomial> || std::is_same_v<Family, beta_binomial>;
}  // namespace detail

// The flat index of a model parameter in a series' `parameters`; a slot not
// given stays `unset` (-1), which the checks refuse, naming the series,
// instead of reading parameter 0.
struct parameter_index {
  static constexpr int unset = -1;
  int value = unset;
  constexpr parameter_index() = default;
  FLUXION_HOST_DEVICE constexpr parameter_index(int index) : value(index) {}
  FLUXION_HOST_DEVICE constexpr operator int() const { return value; }
};

// One data series: observable `observable` at every save time under Family,
// whose other parameters are the model parameters at `parameters` (every
// one of them given: `.parameters = {3}` for a normal's sd).
template <class Family>
struct series {
  using family = Family;
  static constexpr int extra_parameters = Family::parameter_count - 1;
  const char* name = "series";
  int observable = 0;
  parameter_index parameters[extra_parameters > 0 ? extra_parameters : 1] = {};
};

// A prior on model parameter `parameter` (a prior of fluxion/infer/priors.hpp).
template <class Prior>
struct prior_on {
  int parameter = 0;
  Prior prior;
};
template <class Prior>
prior_on(int, Prior) -> prior_on<Prior>;

namespace detail {

// A fixed list of values of different types, usable in device code (no
// std::tuple there): each() calls f(value, index) in order.
template <std::size_t I, class V>
struct pack_leaf {
  V value;
};
template <class Seq, class... V>
struct pack_base;
template <std::size_t... I, class... V>
struct pack_base<std::index_sequence<I...>, V...> : pack_leaf<I, V>... {
  constexpr pack_base() = default;
  constexpr explicit pack_base(const V&... v)
    requires(sizeof...(V) > 0)
      : pack_leaf<I, V>{v}... {}
  template <class F>
  FLUXION_HOST_DEVICE void each(F& f) const {
    (f(static_cast<const pack_leaf<I, V>&>(*this).value, I), ...);
  }
  // The same for host-only f (checks that throw).
  template <class F>
  void each_on_host(F& f) const {
    (f(static_cast<const pack_leaf<I, V>&>(*this).value, I), ...);
  }
};

}  // namespace detail

// The series of a likelihood, in the order of their data.
template <class... Series>
struct likelihood : detail::pack_base<std::index_sequence_for<Series...>, Series...> {
  static constexpr std::size_t size = sizeof...(Series);
  constexpr explicit likelihood(const Series&... s)
      : detail::pack_base<std::index_sequence_for<Series...>, Series...>(s...) {}
};

// The priors of a log-density (fx::priors<>{} for none).
template <class... Priors>
struct priors : detail::pack_base<std::index_sequence_for<Priors...>, Priors...> {
  static constexpr std::size_t size = sizeof...(Priors);
  constexpr priors() = default;
  constexpr explicit priors(const Priors&... p)
    requires(sizeof...(Priors) > 0)
      : detail::pack_base<std::index_sequence_for<Priors...>, Priors...>(p...) {}
};

}  // namespace fluxion
