#pragma once
// Oracles shared by the infer tests, independent of the code under test:
// numerical derivatives (fourth-order central differences, complex step) and
// composite Simpson integration.
#include <cmath>
#include <complex>

namespace infer_test {

// (-f(x + 2h) + 8 f(x + h) - 8 f(x - h) + f(x - 2h)) / (12 h): error O(h^4).
template <class F>
double central_difference(F f, double x, double h) {
  return (-f(x + 2 * h) + 8 * f(x + h) - 8 * f(x - h) + f(x - 2 * h)) / (12 * h);
}

// Im f(x + i h) / h with h = 1e-30: f'(x) to rounding, no cancellation.
template <class F>
double complex_step(F f, double x) {
  constexpr double h = 1e-30;
  return std::imag(f(std::complex<double>(x, h))) / h;
}

// Composite Simpson's rule on [a, b] with n (even) subintervals.
template <class F>
double simpson(F f, double a, double b, int n) {
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4 : 2) * f(a + i * h);
  return s * h / 3;
}

// log(e^a + e^b) in the test's own words.
inline double log_add(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// |got - want| <= rel |want| + abs
inline bool near(double got, double want, double rel, double abs = 0) {
  return std::abs(got - want) <= rel * std::abs(want) + abs;
}

}  // namespace infer_test
