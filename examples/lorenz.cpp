// The Lorenz 1963 system: a short RK4 trajectory on the butterfly attractor.
//
//   dx/dt = sigma (y - x),  dy/dt = x (rho - z) - y,  dz/dt = x y - beta z
//
// Self-checks: the derivative at a known point equals the hand formula, and
// the trajectory stays bounded (x^2 + y^2 + z^2 well under 10^4).
#include <array>
#include <cmath>
#include <cstdio>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::state<"z"> z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;

constexpr auto lorenz = fx::model(fx::states(x, y, z), fx::params(sigma, rho, beta),
                                  fx::d(x) = sigma * (y - x),
                                  fx::d(y) = x * (rho - z) - y,
                                  fx::d(z) = x * y - beta * z,
                                  fx::observe<"radius2">() = fx::pow(x, 2) + fx::pow(y, 2) + fx::pow(z, 2));
using M = fx::compiled<lorenz, double>;
using vec = std::array<double, M::n_states>;

int main() {
  const std::array<double, M::n_params> p{10.0, 28.0, 8.0 / 3.0};

  // 1. One derivative against the formula, at (1, 2, 3): (10, 1*25 - 2, 2 - 8) = (10, 23, -6).
  const vec u{1.0, 2.0, 3.0};
  vec du;
  M{}.rhs(0.0, u.data(), p.data(), du.data());
  const vec want{10.0, 23.0, 2.0 - 8.0};
  for (std::size_t i = 0; i < 3; ++i)
    if (std::abs(du[i] - want[i]) > 1e-14 * (1 + std::abs(want[i]))) {
      std::printf("FAILED: derivative %zu is %.17g, expected %.17g\n", i, du[i], want[i]);
      return 1;
    }
  std::printf("d/dt at (1, 2, 3) = (%g, %g, %g)  [matches the formula]\n", du[0], du[1], du[2]);

  // 2. RK4 from (1, 1, 1) for 20 time units.
  vec s{1.0, 1.0, 1.0};
  const double h = 0.005;
  double max_r2 = 0, min_z = 1e300, max_z = -1e300;
  for (int step = 0; step < 4000; ++step) {
    vec k1, k2, k3, k4, tmp;
    M{}.rhs(0.0, s.data(), p.data(), k1.data());
    for (int i = 0; i < 3; ++i) tmp[i] = s[i] + h / 2 * k1[i];
    M{}.rhs(0.0, tmp.data(), p.data(), k2.data());
    for (int i = 0; i < 3; ++i) tmp[i] = s[i] + h / 2 * k2[i];
    M{}.rhs(0.0, tmp.data(), p.data(), k3.data());
    for (int i = 0; i < 3; ++i) tmp[i] = s[i] + h * k3[i];
    M{}.rhs(0.0, tmp.data(), p.data(), k4.data());
    for (int i = 0; i < 3; ++i) s[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    double r2;
    M{}.observe(0.0, s.data(), p.data(), &r2);
    max_r2 = std::fmax(max_r2, r2);
    min_z = std::fmin(min_z, s[2]);
    max_z = std::fmax(max_z, s[2]);
  }
  std::printf("after t = 20: (x, y, z) = (%.3f, %.3f, %.3f)\n", s[0], s[1], s[2]);
  std::printf("z ranged over [%.2f, %.2f]; max x^2 + y^2 + z^2 = %.1f\n", min_z, max_z, max_r2);
  if (!(max_r2 < 1e4) || !(max_z > 30.0)) {
    std::puts("FAILED: trajectory left the attractor region");
    return 1;
  }
  return 0;
}
