// Two integrations of one ensemble that must agree bit for bit (one
// trajectory at a time against SIMD lanes): every saved value, final value
// and crossing time the same (NaN where the other has NaN), and every
// status and step statistic.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>

namespace support {

template <class T>
bool same_or_both_nan(T a, T b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

template <class T>
void require_identical(const fluxion::ensemble_result<T>& one, const fluxion::ensemble_result<T>& lanes) {
  REQUIRE(one.saved_states.size() == lanes.saved_states.size());
  for (std::size_t i = 0; i < one.saved_states.size(); ++i)
    REQUIRE(same_or_both_nan(one.saved_states[i], lanes.saved_states[i]));
  REQUIRE(one.final_state.size() == lanes.final_state.size());
  for (std::size_t i = 0; i < one.final_state.size(); ++i) REQUIRE(one.final_state[i] == lanes.final_state[i]);
  REQUIRE(one.crossing_times.size() == lanes.crossing_times.size());
  for (std::size_t i = 0; i < one.crossing_times.size(); ++i)
    REQUIRE(same_or_both_nan(one.crossing_times[i], lanes.crossing_times[i]));
  REQUIRE(one.status.size() == lanes.status.size());
  for (std::size_t b = 0; b < one.status.size(); ++b) {
    REQUIRE(one.status[b] == lanes.status[b]);
    REQUIRE(one.stats[b].accepted == lanes.stats[b].accepted);
    REQUIRE(one.stats[b].rejected == lanes.stats[b].rejected);
    REQUIRE(one.stats[b].rhs_evaluations == lanes.stats[b].rhs_evaluations);
    REQUIRE(one.stats[b].jacobian_evaluations == lanes.stats[b].jacobian_evaluations);
  }
}

}  // namespace support
