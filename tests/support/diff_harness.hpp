// Shared by the numeric derivative tests (diff_functions.cpp, diff_operators.cpp):
// symbols, a point, an evaluation context and check_derivative, which compares
// a symbolic derivative with a hand-written formula and a central difference.
#pragma once
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

