// Symbolic derivatives of the elementary functions and of powers, checked
// numerically: against the derivative written by hand with <cmath>, and
// against a central finite difference of the evaluated expression, in double
// (FD agreement 1e-7 relative) and in float.
#include "support/diff_harness.hpp"

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
