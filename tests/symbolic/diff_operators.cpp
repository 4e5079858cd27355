// Symbolic derivatives of the arithmetic operators, negation, min, max,
// where and time, checked numerically: against the derivative written by
// hand, and against a central finite difference of the evaluated expression,
// in double (FD agreement 1e-7 relative) and in float.
#include "support/diff_harness.hpp"

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
