#pragma once
// Host-side checks of observation series before a fit: each raises
// fluxion::data_error naming the series and the time index of the first bad
// value (fluxion/infer/data_error.hpp). Host only.
//
//   fx::check_observations("cases", cases, mask, fx::data_kind::count);
//   fx::check_observations("cases", cases, fx::neg_binomial_2::data);      // no mask: all observed
//   fx::check_binomial_observations("positives", positives, tested, mask);
//
// The mask marks which time points are observed: empty (all observed) or
// one byte per value, 0 for missing (the value is not read: NaN is the usual
// filler) and nonzero for observed. Checks by data_kind:
//
//   real         finite
//   positive     finite and > 0
//   count        finite, a whole number, >= 0
//   probability  finite and in [0, 1]
#include <cmath>
#include <concepts>
#include <cstddef>
#include <ranges>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include <fluxion/infer/data_error.hpp>
#include <fluxion/infer/data_kind.hpp>

namespace fluxion {

namespace detail {

template <class T>
std::string show_value(T v) {
  std::ostringstream out;
  out.precision(17);
  out << static_cast<double>(v);
  return out.str();
}

inline void check_mask_length(std::string_view name, std::size_t values, std::span<const unsigned char> mask) {
  if (!mask.empty() && mask.size() != values)
    throw data_error(std::string(name), data_error::no_index,
                     "the mask has " + std::to_string(mask.size()) + " entries but the series has " +
                         std::to_string(values) + " values (a mask is empty or one entry per value)");
}

// Empty when v is a valid observation of the kind; else what is wrong.
template <class T>
std::string observation_problem(T v, data_kind kind) {
  const double x = static_cast<double>(v);
  if (std::isnan(x)) return "the value is NaN but marked observed (mark it missing with a 0 in the mask)";
  if (!std::isfinite(x)) return "the value " + show_value(v) + " is not finite";
  switch (kind) {
    case data_kind::real: return {};
    case data_kind::positive:
      if (!(x > 0)) return "a positive observation must be > 0, got " + show_value(v);
      return {};
    case data_kind::count:
      if (x < 0) return "a count must be >= 0, got " + show_value(v);
      if (x != std::floor(x)) return "a count must be a whole number, got " + show_value(v);
      return {};
    case data_kind::probability:
      if (!(x >= 0 && x <= 1)) return "a probability must be in [0, 1], got " + show_value(v);
      return {};
  }
  return {};
}

}  // namespace detail

// Checks every observed value of one series.
template <class T>
void check_observations(std::string_view name, std::span<const T> data, std::span<const unsigned char> mask,
                        data_kind kind) {
  detail::check_mask_length(name, data.size(), mask);
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (!mask.empty() && mask[k] == 0) continue;
    const std::string problem = detail::observation_problem(data[k], kind);
    if (!problem.empty()) throw data_error(std::string(name), k, problem);
  }
}

// Any contiguous range of float or double (std::vector, std::array, a span).
template <std::ranges::contiguous_range Data>
  requires std::floating_point<std::ranges::range_value_t<Data>>
void check_observations(std::string_view name, const Data& data, std::span<const unsigned char> mask,
                        data_kind kind) {
  using T = std::ranges::range_value_t<Data>;
  check_observations(name, std::span<const T>(std::ranges::data(data), std::ranges::size(data)), mask, kind);
}

template <std::ranges::contiguous_range Data>
  requires std::floating_point<std::ranges::range_value_t<Data>>
void check_observations(std::string_view name, const Data& data, data_kind kind) {
  check_observations(name, data, std::span<const unsigned char>{}, kind);
}

// Binomial-type series: successes and trials are counts and successes <= trials
// at every observed time point.
template <std::ranges::contiguous_range Data>
  requires std::floating_point<std::ranges::range_value_t<Data>>
void check_binomial_observations(std::string_view name, const Data& successes, const Data& trials,
                                 std::span<const unsigned char> mask = {}) {
  const std::size_t size = std::ranges::size(successes);
  if (std::ranges::size(trials) != size)
    throw data_error(std::string(name), data_error::no_index,
                     "the trials series has " + std::to_string(std::ranges::size(trials)) +
                         " values but the successes series has " + std::to_string(size));
  detail::check_mask_length(name, size, mask);
  const auto* y = std::ranges::data(successes);
  const auto* n = std::ranges::data(trials);
  for (std::size_t k = 0; k < size; ++k) {
    if (!mask.empty() && mask[k] == 0) continue;
    std::string problem = detail::observation_problem(n[k], data_kind::count);
    if (!problem.empty()) throw data_error(std::string(name), k, "trials: " + problem);
    problem = detail::observation_problem(y[k], data_kind::count);
    if (!problem.empty()) throw data_error(std::string(name), k, problem);
    if (y[k] > n[k])
      throw data_error(std::string(name), k,
                       "the count " + detail::show_value(y[k]) + " exceeds the number of trials " +
                           detail::show_value(n[k]));
  }
}

}  // namespace fluxion
