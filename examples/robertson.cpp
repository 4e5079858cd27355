// Robertson's stiff chemical kinetics (1966), a classic ODE-solver benchmark.
//
//   y1' = -k1 y1 + k3 y2 y3,   y2' = k1 y1 - k3 y2 y3 - k2 y2^2,   y3' = k2 y2^2
//   k1 = 0.04, k2 = 3e7, k3 = 1e4;  y(0) = (1, 0, 0)
//
// Integrated to t = 40 with classical RK4 and a step small enough for
// stability. Self-checks: total mass y1 + y2 + y3 (an observable) is conserved
// to rounding, and y(40) matches the published reference solution
// (Hairer & Wanner, Solving ODEs II): y1 = 0.7158270687, y3 = 0.2841637457.
#include <array>
#include <cmath>
#include <cstdio>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace kinetics {  // (y1 would clash with the Bessel function ::y1 from <cmath>)
constexpr fx::state<"y1"> y1;
constexpr fx::state<"y2"> y2;
constexpr fx::state<"y3"> y3;
constexpr fx::param<"k1"> k1;
constexpr fx::param<"k2"> k2;
constexpr fx::param<"k3"> k3;

constexpr auto robertson = fx::model(fx::states(y1, y2, y3), fx::params(k1, k2, k3),
                                     fx::d(y1) = -k1 * y1 + k3 * y2 * y3,
                                     fx::d(y2) = k1 * y1 - k3 * y2 * y3 - k2 * fx::pow(y2, 2),
                                     fx::d(y3) = k2 * fx::pow(y2, 2),
                                     fx::observe<"mass">() = y1 + y2 + y3);
}  // namespace kinetics
using M = fx::compiled<kinetics::robertson, double>;
using vec = std::array<double, M::n_states>;

int main() {
  const std::array<double, M::n_params> k{0.04, 3.0e7, 1.0e4};
  vec y{1.0, 0.0, 0.0};
  const double h = 2.0e-4;  // explicit RK4 is stable here for h < ~8e-4
  const int steps = 200'000;  // t = 40
  double max_mass_error = 0, next_print = 1e-3;

  std::puts("        t          y1          y2          y3");
  for (int n = 1; n <= steps; ++n) {
    vec a, b, c, d, tmp;
    M{}.rhs(0.0, y.data(), k.data(), a.data());
    for (int i = 0; i < 3; ++i) tmp[i] = y[i] + h / 2 * a[i];
    M{}.rhs(0.0, tmp.data(), k.data(), b.data());
    for (int i = 0; i < 3; ++i) tmp[i] = y[i] + h / 2 * b[i];
    M{}.rhs(0.0, tmp.data(), k.data(), c.data());
    for (int i = 0; i < 3; ++i) tmp[i] = y[i] + h * c[i];
    M{}.rhs(0.0, tmp.data(), k.data(), d.data());
    for (int i = 0; i < 3; ++i) y[i] += h / 6 * (a[i] + 2 * b[i] + 2 * c[i] + d[i]);

    double mass;
    M{}.observe(0.0, y.data(), k.data(), &mass);
    max_mass_error = std::fmax(max_mass_error, std::abs(mass - 1.0));
    const double t = n * h;
    if (t >= next_print * (1 - 1e-9)) {
      std::printf("%9.3g %11.7f %11.4e %11.7f\n", t, y[0], y[1], y[2]);
      next_print *= 10;
    }
  }
  std::printf("%9.3g %11.7f %11.4e %11.7f\n", steps * h, y[0], y[1], y[2]);
  std::printf("max |mass - 1| over the run = %.1e\n", max_mass_error);
  const bool mass_ok = max_mass_error < 1e-11;
  const bool ref_ok = std::abs(y[0] - 0.7158270687) < 1e-6 && std::abs(y[2] - 0.2841637457) < 1e-6;
  if (!mass_ok || !ref_ok) {
    std::printf("FAILED:%s%s\n", mass_ok ? "" : " mass not conserved", ref_ok ? "" : " y(40) off the reference");
    return 1;
  }
  std::puts("mass conserved and y(40) matches the reference solution");
  return 0;
}
