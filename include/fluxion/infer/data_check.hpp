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
#include <charconv>
#include <iterator>
#include <type_traits>
#include <span>
#include <string>
#include <string_view>

#include <fluxion/infer/data_error.hpp>
#include <fluxion/infer/data_kind.hpp>

namespace fluxion {

namespace detail {

// The value as the shortest text that reads back to it.
template <class T>
std::string show_value(T v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v));
  return std::string(buf, r.ptr);
}

// A null pointer with a length (std::span(nullptr, k)) has no values to read.
inline void check_not_null(std::string_view name, const char* field, const void* data, std::size_t size) {
  if (data == nullptr && size > 0)
    throw data_error(std::string(name), data_error::no_index,
                     std::string("the ") + field + " are a null pointer with a length of " + std::to_string(size) +
                         " (no value can be read)");
}

inline void check_mask_length(std::string_view name, std::size_t values, std::span<const unsigned char> mask) {
  if (!mask.empty() && mask.size() != values)
    throw data_error(std::string(name), data_error::no_index,
                     "the mask has " + std::to_string(mask.size()) + " entries but the series has " +
                         std::to_string(values) + " values (a mask is empty or one entry per value)");
}

// Whether v is positive and finite (a scale, a dispersion, a hyperparameter).
template <class T>
bool positive_and_finite(T v) {
  const double x = static_cast<double>(v);
  return x > 0 && std::isfinite(x);
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
  detail::check_not_null(name, "values", data.data(), data.size());
  detail::check_not_null(name, "mask entries", mask.data(), mask.size());
  detail::check_mask_length(name, data.size(), mask);
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (!mask.empty() && mask[k] == 0) continue;
    const std::string problem = detail::observation_problem(data[k], kind);
    if (!problem.empty()) throw data_error(std::string(name), k, problem);
  }
}

// Any contiguous range of float or double (std::vector, std::array, a span):
// std::data and std::size give its values (no <ranges>: it costs an nvcc
// translation unit about a second).
template <class Data>
using series_value_t = std::remove_cvref_t<decltype(*std::data(std::declval<const Data&>()))>;
template <class Data>
concept float_series = requires(const Data& d) {
  std::data(d);
  std::size(d);
} && std::floating_point<series_value_t<Data>>;

template <float_series Data>
void check_observations(std::string_view name, const Data& data, std::span<const unsigned char> mask,
                        data_kind kind) {
  using T = series_value_t<Data>;
  check_observations(name, std::span<const T>(std::data(data), std::size(data)), mask, kind);
}

template <float_series Data>
void check_observations(std::string_view name, const Data& data, data_kind kind) {
  check_observations(name, data, std::span<const unsigned char>{}, kind);
}

// Binomial-type series: successes and trials are counts and successes <= trials
// at every observed time point.
template <float_series Data>
void check_binomial_observations(std::string_view name, const Data& successes, const Data& trials,
                                 std::span<const unsigned char> mask = {}) {
  const std::size_t size = std::size(successes);
  if (std::size(trials) != size)
    throw data_error(std::string(name), data_error::no_index,
                     "the trials series has " + std::to_string(std::size(trials)) +
                         " values but the successes series has " + std::to_string(size));
  const auto* y = std::data(successes);
  const auto* n = std::data(trials);
  detail::check_not_null(name, "successes", y, size);
  detail::check_not_null(name, "trials", n, size);
  detail::check_not_null(name, "mask entries", mask.data(), mask.size());
  detail::check_mask_length(name, size, mask);
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
