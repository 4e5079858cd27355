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

// Where a density finds one of its parameters beyond the location (a
// normal's sd, a negative binomial's dispersion): a model parameter, by its
// flat index (`.parameters = {3}`, in the gradient); a constant
// (`fx::fixed(0.3)`); or a value per save time from the series' data
// (`fx::from_data`, series_data::parameter_values). A slot not given stays
// unset, which the checks refuse, naming the series, instead of reading
// parameter 0.
struct parameter_index {
  static constexpr int unset = -1;
  static constexpr int constant = -2;
  static constexpr int per_observation = -3;
  int value = unset;
  double fixed_value = 0;  // where value == constant
  constexpr parameter_index() = default;
  FLUXION_HOST_DEVICE constexpr parameter_index(int index) : value(index) {}
  // The model parameter's flat index, or a negative marker (unset, constant, per_observation).
  FLUXION_HOST_DEVICE constexpr operator int() const { return value; }
  // Whether this slot is model parameter j (a gradient column).
  FLUXION_HOST_DEVICE constexpr bool is_parameter(int j) const { return value >= 0 && value == j; }
  FLUXION_HOST_DEVICE constexpr bool is_model_parameter() const { return value >= 0; }
};

// A density parameter fixed at `value` (not a model parameter: no gradient
// column), e.g. a known measurement sd: `.parameters = {fx::fixed(0.3)}`.
constexpr parameter_index fixed(double value) {
  parameter_index r;
  r.value = parameter_index::constant;
  r.fixed_value = value;
  return r;
}

// A density parameter read per save time from the series' data
// (series_data::parameter_values), e.g. each observation's known sd.
inline constexpr parameter_index from_data = [] {
  parameter_index r;
  r.value = parameter_index::per_observation;
  return r;
}();

// When a series observes its observable: its value at each save time (the
// default), or its integral over each interval between consecutive save
// times (from the problem's t0 to the first save time, then from each save
// time to the next): weekly cases as the incidence accumulated over the
// week, without a cumulative state in the model.
struct at_save_times {};
struct over_intervals {};

// One data series: observable `observable` under Family at every save time
// (Timing at_save_times) or accumulated over every interval between save
// times (over_intervals, fx::interval_series), whose other parameters are
// given in `parameters` (every one of them: a model parameter's index,
// fx::fixed(v) or fx::from_data).
template <class Family, class Timing = at_save_times>
struct series {
  static_assert(std::is_same_v<Timing, at_save_times> || std::is_same_v<Timing, over_intervals>,
                "fluxion::series: the timing is fluxion::at_save_times or fluxion::over_intervals.");
  using family = Family;
  using timing = Timing;
  static constexpr bool accumulated = std::is_same_v<Timing, over_intervals>;
  static constexpr int extra_parameters = Family::parameter_count - 1;
  const char* name = "series";
  int observable = 0;
  parameter_index parameters[extra_parameters > 0 ? extra_parameters : 1] = {};
};

// A series of the observable accumulated over each interval between
// consecutive save times (counts over a week, a month):
//   fx::interval_series<fx::neg_binomial_2>{.name = "weekly cases", .observable = 0, .parameters = {4}}
template <class Family>
using interval_series = series<Family, over_intervals>;

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
  // Whether a series is accumulated over intervals: the log-density then
  // integrates the model with its observables accumulated
  // (compile/accumulated.hpp); otherwise the model as it is.
  static constexpr bool accumulates = (Series::accumulated || ...);
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
