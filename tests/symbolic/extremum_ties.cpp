// min and max reductions at ties: the value takes the first of tied elements
// (math::min/max fold from the first element and keep it), and the
// derivative follows the same element. Over copies of one parameter,
// min_k p X[k] with every X[k] = 1 is p itself, so its derivative in p is 1
// (a central difference says 1), not 4 as a sum over every attaining element
// gave; in X only X[0] receives p.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <array>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;

namespace {
using stage = fx::index<"stage", 4>;
constexpr fx::ivar<stage, 0, "k"> k;
constexpr fx::state<"X", stage> X;
constexpr fx::state<"Y"> Y;
constexpr fx::param<"p"> p;
constexpr auto ties = fx::model(fx::states(X, Y), fx::params(p),  //
                                fx::d(X(k)) = -X(k),              //
                                fx::d(Y) = fx::min(k, p * X(k)) + fx::max(k, 2 * p * X(k)));
}  // namespace

TEST_CASE("min and max reductions differentiate through the first of tied elements") {
  using M = fx::compiled<ties, double>;
  const std::array<double, 5> x = {1, 1, 1, 1, 0.5};
  double pv = 0.7;
  std::array<double, 5> Jp{};
  M{}.jac_p(0.0, x.data(), &pv, Jp.data());
  // d/dp (p + 2 p) = 3 at the tie, as a central difference of the value.
  std::array<double, 5> up{}, down{};
  double pu = pv + 1e-6, pd = pv - 1e-6;
  M{}.rhs(0.0, x.data(), &pu, up.data());
  M{}.rhs(0.0, x.data(), &pd, down.data());
  CHECK_THAT((up[4] - down[4]) / 2e-6, WithinAbs(3.0, 1e-8));
  CHECK_THAT(Jp[4], WithinAbs(3.0, 1e-12));
  std::array<double, 25> Jx{};
  M{}.jac_x(0.0, x.data(), &pv, Jx.data());
  CHECK_THAT(Jx[4 * 5 + 0], WithinAbs(pv + 2 * pv, 1e-12));  // X[0] is the element taken
  for (int c = 1; c < 4; ++c) CHECK(Jx[4 * 5 + c] == 0.0);
}
