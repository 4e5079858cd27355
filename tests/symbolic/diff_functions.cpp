// Symbolic derivatives of the elementary functions and of powers, checked
// numerically: against the derivative written by hand with <cmath>, and
// against a central finite difference of the evaluated expression, in double
// (FD agreement 1e-7 relative) and in float.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <type_traits>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;

// Which symbol a derivative is taken with respect to.
enum class wrt { x, y, k };
template <wrt W>
using wrt_ref = std::conditional_t<
    W == wrt::x, fx::ref<std::remove_cvref_t<decltype(x)>>,
    std::conditional_t<W == wrt::y, fx::ref<std::remove_cvref_t<decltype(y)>>, fx::ref<std::remove_cvref_t<decltype(k)>>>>;

// An evaluation point.
struct point {
  double x, y, k, t;
};
// The points every derivative is checked at (x > 0 so that log, sqrt and
// real powers are defined; each piecewise case is hit on both sides by some point).
constexpr point points[] = {{0.7, -1.3, 2.2, 0.25}, {1.9, 0.4, 0.6, 1.5}, {0.35, 2.1, 1.3, -0.7}};

template <class T>
struct ctx {
  using scalar = T;
  T tv{}, xv{}, yv{}, kv{};
  T time() const { return tv; }
  template <class Sym, class... I>
  T read(I...) const {
    static_assert(sizeof...(I) == 0);
    constexpr std::string_view n = fluxion::text<Sym::name>;
    if constexpr (n == "x") return xv;
    else if constexpr (n == "y") return yv;
    else return kv;
  }
  T& slot(wrt w) { return w == wrt::x ? xv : (w == wrt::y ? yv : kv); }
};

template <class T>
ctx<T> at(point q) {
  ctx<T> c;
  c.xv = T(q.x);
  c.yv = T(q.y);
  c.kv = T(q.k);
  c.tv = T(q.t);
  return c;
}

// Checks d E / d W at every point: against the hand formula `hand` and against
// a central finite difference of E, in double and in float.
template <auto E, wrt W, class Hand>
void check_derivative(Hand hand) {
  using F = fx::lowered<E>;
  using D = fx::derivative_t<F, wrt_ref<W>>;
  for (const point& q : points) {
    const double expected = hand(q);
    INFO("at x = " << q.x << ", y = " << q.y << ", k = " << q.k << ", t = " << q.t
                   << "; derivative: " << fx::to_string<D>());
    {  // double
      auto c = at<double>(q);
      const double dv = D::eval(c, fx::env<>{});
      const double v = c.slot(W);
      const double h = 1e-5 * std::max(1.0, std::fabs(v));
      auto cp = c, cm = c;
      cp.slot(W) = v + h;
      cm.slot(W) = v - h;
      const double fd = (double(F::eval(cp, fx::env<>{})) - double(F::eval(cm, fx::env<>{}))) /
                        (cp.slot(W) - cm.slot(W));
      CHECK_THAT(dv, WithinRel(expected, 1e-12) || WithinAbs(expected, 1e-13));
      CHECK_THAT(dv, WithinRel(fd, 1e-7) || WithinAbs(fd, 1e-9));
    }
    {  // float
      auto c = at<float>(q);
      const float dv = D::eval(c, fx::env<>{});
      STATIC_REQUIRE(std::is_same_v<decltype(D::eval(c, fx::env<>{})), float>);
      const float v = c.slot(W);
      const float h = 0x1p-7f * std::max(1.0f, std::fabs(v));
      auto cp = c, cm = c;
      cp.slot(W) = v + h;
      cm.slot(W) = v - h;
      const double fx_p = F::eval(cp, fx::env<>{}), fx_m = F::eval(cm, fx::env<>{});
      const double fd = (fx_p - fx_m) / double(cp.slot(W) - cm.slot(W));
      CHECK_THAT(double(dv), WithinRel(expected, 1e-5) || WithinAbs(expected, 1e-6));
      CHECK_THAT(double(dv), WithinRel(fd, 2e-3) || WithinAbs(fd, 1e-4 * (1 + std::fabs(fx_p))));
    }
  }
}

}  // namespace

TEST_CASE("d exp", "[symbolic][diff][numeric]") {
  check_derivative<fx::exp(k * x), wrt::x>([](point q) { return q.k * std::exp(q.k * q.x); });
  check_derivative<fx::exp(k * x), wrt::k>([](point q) { return q.x * std::exp(q.k * q.x); });
  check_derivative<fx::exp(-x * x), wrt::x>([](point q) { return -2 * q.x * std::exp(-q.x * q.x); });
}

TEST_CASE("d log", "[symbolic][diff][numeric]") {
  check_derivative<fx::log(x * x + k), wrt::x>([](point q) { return 2 * q.x / (q.x * q.x + q.k); });
  check_derivative<fx::log(x * x + k), wrt::k>([](point q) { return 1 / (q.x * q.x + q.k); });
  check_derivative<fx::log(x), wrt::x>([](point q) { return 1 / q.x; });
}

TEST_CASE("d sqrt", "[symbolic][diff][numeric]") {
  check_derivative<fx::sqrt(x * k + 1), wrt::x>([](point q) { return q.k / (2 * std::sqrt(q.x * q.k + 1)); });
  check_derivative<fx::sqrt(x), wrt::x>([](point q) { return 0.5 / std::sqrt(q.x); });
}

TEST_CASE("d sin and d cos", "[symbolic][diff][numeric]") {
  check_derivative<fx::sin(x * y), wrt::x>([](point q) { return q.y * std::cos(q.x * q.y); });
  check_derivative<fx::sin(x * y), wrt::y>([](point q) { return q.x * std::cos(q.x * q.y); });
  check_derivative<fx::cos(x * x), wrt::x>([](point q) { return -2 * q.x * std::sin(q.x * q.x); });
  check_derivative<fx::cos(x + k), wrt::k>([](point q) { return -std::sin(q.x + q.k); });
}

TEST_CASE("d tanh", "[symbolic][diff][numeric]") {
  check_derivative<fx::tanh(2 * x - k), wrt::x>([](point q) {
    const double th = std::tanh(2 * q.x - q.k);
    return 2 * (1 - th * th);
  });
  check_derivative<fx::tanh(2 * x - k), wrt::k>([](point q) {
    const double th = std::tanh(2 * q.x - q.k);
    return -(1 - th * th);
  });
}

TEST_CASE("d abs", "[symbolic][diff][numeric]") {
  // x - k changes sign between the points.
  check_derivative<fx::abs(x - k), wrt::x>([](point q) { return q.x - q.k > 0 ? 1.0 : -1.0; });
  check_derivative<fx::abs(x * y), wrt::x>([](point q) { return q.x * q.y > 0 ? q.y : -q.y; });
  check_derivative<fx::abs(x * y), wrt::y>([](point q) { return q.x * q.y > 0 ? q.x : -q.x; });
}

TEST_CASE("d pow with an integer exponent", "[symbolic][diff][numeric]") {
  check_derivative<fx::pow(x, 2), wrt::x>([](point q) { return 2 * q.x; });
  check_derivative<fx::pow(x, 3), wrt::x>([](point q) { return 3 * q.x * q.x; });
  check_derivative<fx::pow(x * k + 1, 4), wrt::x>([](point q) {
    const double u = q.x * q.k + 1;
    return 4 * q.k * u * u * u;
  });
  check_derivative<fx::pow(x, -2), wrt::x>([](point q) { return -2 / (q.x * q.x * q.x); });
  check_derivative<fx::pow(y, 5), wrt::y>([](point q) { return 5 * std::pow(q.y, 4); });
  check_derivative<fx::pow(x, 3.0), wrt::x>([](point q) { return 3 * q.x * q.x; });
}

TEST_CASE("d pow with a real exponent", "[symbolic][diff][numeric]") {
  check_derivative<fx::pow(x, 0.5), wrt::x>([](point q) { return 0.5 * std::pow(q.x, -0.5); });
  check_derivative<fx::pow(x, 2.5), wrt::x>([](point q) { return 2.5 * std::pow(q.x, 1.5); });
  check_derivative<fx::pow(x, -1.5), wrt::x>([](point q) { return -1.5 * std::pow(q.x, -2.5); });
  check_derivative<fx::pow(x * x + 1, 0.3), wrt::x>([](point q) {
    return 0.3 * std::pow(q.x * q.x + 1, -0.7) * 2 * q.x;
  });
}

TEST_CASE("d pow with an expression exponent", "[symbolic][diff][numeric]") {
  // base only
  check_derivative<fx::pow(x, k), wrt::x>([](point q) { return q.k * std::pow(q.x, q.k - 1); });
  // exponent only
  check_derivative<fx::pow(x, k), wrt::k>([](point q) { return std::pow(q.x, q.k) * std::log(q.x); });
  check_derivative<fx::pow(k, x), wrt::x>([](point q) { return std::pow(q.k, q.x) * std::log(q.k); });
  check_derivative<fx::pow(2.0, x), wrt::x>([](point q) { return std::pow(2.0, q.x) * std::log(2.0); });
  // both: d x^(x y) / dx = x^(x y) (y log x + y)
  check_derivative<fx::pow(x, x * y), wrt::x>([](point q) {
    return std::pow(q.x, q.x * q.y) * (q.y * std::log(q.x) + q.y);
  });
  check_derivative<fx::pow(x, x * y), wrt::y>([](point q) {
    return std::pow(q.x, q.x * q.y) * q.x * std::log(q.x);
  });
}
