// Host-side checks of observation series (fluxion/infer/data_check.hpp):
// each bad value raises fluxion::data_error naming the series and the time
// index of the first bad value; missing values (mask 0) are not read.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/infer/data_check.hpp>
#include <fluxion/infer/densities.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;

namespace {

// Runs f, which must throw data_error; returns it.
template <class F>
fx::data_error expect_data_error(F f) {
  try {
    f();
  } catch (const fx::data_error& e) {
    return e;
  }
  FAIL("no fluxion::data_error was thrown");
  return fx::data_error("", 0, "");
}

}  // namespace

TEMPLATE_TEST_CASE("valid series pass", "[infer][data_check]", float, double) {
  using T = TestType;
  const std::vector<T> counts{0, 3, 17, 250000};
  const std::vector<T> real{-2.5, 0, 1e30f};
  const std::vector<T> positive{1e-30f, 2, 7.5};
  const std::vector<T> probabilities{0, 0.25, 1};
  CHECK_NOTHROW(fx::check_observations("cases", counts, fx::data_kind::count));
  CHECK_NOTHROW(fx::check_observations("cases", counts, fx::poisson::data));
  CHECK_NOTHROW(fx::check_observations("level", real, fx::normal::data));
  CHECK_NOTHROW(fx::check_observations("titre", positive, fx::lognormal::data));
  CHECK_NOTHROW(fx::check_observations("share", probabilities, fx::data_kind::probability));
  CHECK_NOTHROW(fx::check_observations("cases", std::span<const T>(counts), std::span<const unsigned char>{}, fx::data_kind::count));
  // Missing values are not read.
  const std::vector<T> gappy{4, std::numeric_limits<T>::quiet_NaN(), -1, 6};
  const std::vector<unsigned char> mask{1, 0, 0, 1};
  CHECK_NOTHROW(fx::check_observations("cases", gappy, mask, fx::data_kind::count));
  const std::vector<T> successes{0, 3, 5}, trials{0, 10, 5};
  CHECK_NOTHROW(fx::check_binomial_observations("positives", successes, trials));
}

TEMPLATE_TEST_CASE("each bad value names the series and its time index", "[infer][data_check]", float, double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  struct bad {
    std::vector<T> data;
    fx::data_kind kind;
    std::size_t index;
    const char* says;
  };
  const bad cases[] = {
      {{1, 2, -3, 4}, fx::data_kind::count, 2, "a count must be >= 0, got -3"},
      {{1, 2.5, 3}, fx::data_kind::count, 1, "a count must be a whole number, got 2.5"},
      {{1, 2, 3, nan}, fx::data_kind::count, 3, "NaN but marked observed"},
      {{0.5, 1.25}, fx::data_kind::probability, 1, "a probability must be in [0, 1], got 1.25"},
      {{-0.5}, fx::data_kind::probability, 0, "a probability must be in [0, 1], got -0.5"},
      {{1, 0}, fx::data_kind::positive, 1, "a positive observation must be > 0, got 0"},
      {{0, inf}, fx::data_kind::real, 1, "is not finite"},
      {{nan}, fx::data_kind::real, 0, "NaN"},
  };
  for (const bad& c : cases) {
    const fx::data_error e = expect_data_error([&] { fx::check_observations("weekly cases", c.data, c.kind); });
    CHECK(e.series() == "weekly cases");
    CHECK(e.index() == c.index);
    CHECK_THAT(std::string(e.what()), ContainsSubstring("series 'weekly cases' at time index " + std::to_string(c.index)));
    CHECK_THAT(std::string(e.what()), ContainsSubstring(c.says));
  }
  // A marked value is read even where a later one is bad: the first bad index is reported.
  const std::vector<T> two_bad{1, -1, -2};
  CHECK(expect_data_error([&] { fx::check_observations("s", two_bad, fx::data_kind::count); }).index() == 1);
  // Masked out, -1 is skipped; the unmasked -2 is reported.
  const std::vector<unsigned char> mask{1, 0, 1};
  CHECK(expect_data_error([&] { fx::check_observations("s", two_bad, mask, fx::data_kind::count); }).index() == 2);
  // The error is an invalid_argument.
  CHECK_THROWS_AS(fx::check_observations("s", two_bad, fx::data_kind::count), std::invalid_argument);
}

TEST_CASE("series-level problems: mask length, binomial trials", "[infer][data_check]") {
  const std::vector<double> data{1, 2, 3};
  const std::vector<unsigned char> short_mask{1, 1};
  const fx::data_error e = expect_data_error([&] { fx::check_observations("deaths", data, short_mask, fx::data_kind::count); });
  CHECK(e.index() == fx::data_error::no_index);
  CHECK_THAT(std::string(e.what()), ContainsSubstring("series 'deaths': the mask has 2 entries but the series has 3 values"));

  const std::vector<double> successes{1, 7, 2}, trials{5, 6, 4};
  const fx::data_error over = expect_data_error([&] { fx::check_binomial_observations("positives", successes, trials); });
  CHECK(over.index() == 1);
  CHECK_THAT(std::string(over.what()), ContainsSubstring("series 'positives' at time index 1: the count 7 exceeds the number of trials 6"));
  const std::vector<unsigned char> skip{1, 0, 1};
  CHECK_NOTHROW(fx::check_binomial_observations("positives", successes, trials, skip));
  const std::vector<double> bad_trials{5, 6.5, 4};
  CHECK_THAT(std::string(expect_data_error([&] { fx::check_binomial_observations("positives", successes, bad_trials); }).what()),
             ContainsSubstring("trials: a count must be a whole number, got 6.5"));
  const std::vector<double> fewer{5, 6};
  CHECK(expect_data_error([&] { fx::check_binomial_observations("positives", successes, fewer); }).index() == fx::data_error::no_index);
}
