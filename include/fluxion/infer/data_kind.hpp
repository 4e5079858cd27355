#pragma once
// What values an observation series may hold, as the observation densities
// declare it (fx::poisson::data is data_kind::count) and as
// fx::check_observations checks it.
namespace fluxion {

enum class data_kind : unsigned char {
  real,         // any finite number (normal)
  positive,     // finite and > 0 (log-normal)
  count,        // a non-negative integer (Poisson, negative binomial, binomial, beta-binomial)
  probability,  // in [0, 1]
};

// "real", "positive", "count", "probability".
constexpr const char* to_string(data_kind k) {
  switch (k) {
    case data_kind::real: return "real";
    case data_kind::positive: return "positive";
    case data_kind::count: return "count";
    case data_kind::probability: return "probability";
  }
  return "unknown";
}

}  // namespace fluxion
