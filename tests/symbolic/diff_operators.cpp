// Symbolic derivatives of the arithmetic operators, negation, min, max,
// where and time, checked numerically: against the derivative written by
// hand, and against a central finite difference of the evaluated expression,
// in double (FD agreement 1e-7 relative) and in float.
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

TEST_CASE("d of + and -", "[symbolic][diff][numeric]") {
  check_derivative<x + y * k, wrt::x>([](point) { return 1.0; });
  check_derivative<x + y * k, wrt::k>([](point q) { return q.y; });
  check_derivative<x - y * k, wrt::y>([](point q) { return -q.k; });
  check_derivative<x * x * x - k * x, wrt::x>([](point q) { return 3 * q.x * q.x - q.k; });
  check_derivative<k - 2 * x, wrt::x>([](point) { return -2.0; });
}

TEST_CASE("d of * and /", "[symbolic][diff][numeric]") {
  check_derivative<x * y * k, wrt::y>([](point q) { return q.x * q.k; });
  check_derivative<(x + 1) * (y - k), wrt::k>([](point q) { return -(q.x + 1); });
  check_derivative<(x + k) / (y - x), wrt::x>([](point q) { return (q.y + q.k) / ((q.y - q.x) * (q.y - q.x)); });
  check_derivative<(x + k) / (y - x), wrt::y>([](point q) { return -(q.x + q.k) / ((q.y - q.x) * (q.y - q.x)); });
  check_derivative<k / x, wrt::x>([](point q) { return -q.k / (q.x * q.x); });
  check_derivative<x / 4, wrt::x>([](point) { return 0.25; });
}

TEST_CASE("d of negation", "[symbolic][diff][numeric]") {
  check_derivative<-x, wrt::x>([](point) { return -1.0; });
  check_derivative<-(x * k), wrt::k>([](point q) { return -q.x; });
  check_derivative<-x * fx::exp(x), wrt::x>([](point q) { return -(1 + q.x) * std::exp(q.x); });
  check_derivative<-(-x * y), wrt::x>([](point q) { return q.y; });
}

TEST_CASE("d of min and max", "[symbolic][diff][numeric]") {
  // x^2 <= k at the first and third points, not at the second.
  check_derivative<fx::min(x * x, k), wrt::x>([](point q) { return q.x * q.x <= q.k ? 2 * q.x : 0.0; });
  check_derivative<fx::min(x * x, k), wrt::k>([](point q) { return q.x * q.x <= q.k ? 0.0 : 1.0; });
  // x >= 2 y + k at the first two points, not at the third.
  check_derivative<fx::max(x, 2 * y + k), wrt::y>([](point q) { return q.x >= 2 * q.y + q.k ? 0.0 : 2.0; });
  check_derivative<fx::max(x, 2 * y + k), wrt::x>([](point q) { return q.x >= 2 * q.y + q.k ? 1.0 : 0.0; });
}

TEST_CASE("d of where", "[symbolic][diff][numeric]") {
  check_derivative<fx::where(x < k, x * x, fx::exp(x)), wrt::x>([](point q) {
    return q.x < q.k ? 2 * q.x : std::exp(q.x);
  });
  check_derivative<fx::where((x > 0) && (y < 0), x * y, x - y), wrt::x>([](point q) {
    return (q.x > 0 && q.y < 0) ? q.y : 1.0;
  });
  check_derivative<fx::where((x > 0) && (y < 0), x * y, x - y), wrt::y>([](point q) {
    return (q.x > 0 && q.y < 0) ? q.x : -1.0;
  });
  check_derivative<fx::where(!(x < k) || fx::equal(y, k), k * k, x * k), wrt::k>([](point q) {
    return (!(q.x < q.k) || q.y == q.k) ? 2 * q.k : q.x;
  });
}

TEST_CASE("d of expressions of time", "[symbolic][diff][numeric]") {
  check_derivative<x * fx::sin(fx::t) + fx::t, wrt::x>([](point q) { return std::sin(q.t); });
  check_derivative<fx::exp(-k * fx::t) * x, wrt::k>([](point q) { return -q.t * std::exp(-q.k * q.t) * q.x; });
}

TEST_CASE("d of the documentation example", "[symbolic][diff][numeric]") {
  constexpr auto e = -0.5 * x * k + fx::pow(x, 2) + fx::exp(x) / (1 + x);
  check_derivative<e, wrt::x>([](point q) {
    const double u = 1 + q.x;
    return -0.5 * q.k + 2 * q.x + std::exp(q.x) / u - std::exp(q.x) / (u * u);
  });
  check_derivative<e, wrt::k>([](point q) { return -0.5 * q.x; });
  check_derivative<e, wrt::y>([](point) { return 0.0; });
}
