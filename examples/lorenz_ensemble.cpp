// An ensemble of Lorenz systems across the bifurcation in rho: 4096
// trajectories, rho from 0.1 to 30, integrated to t = 60 with adaptive Tsit5
// (fx::host::integrate, every trajectory with its own steps, all cores).
//
// Self-checks against the closed-form picture (Lorenz 1963; Sparrow 1982):
// for rho < 1 every trajectory (checked below 0.6) decays to the origin; for 1 < rho < 10 it (checked from 2)
// settles on one of the fixed points C+- = (+-sqrt(beta (rho - 1)),
// +-sqrt(beta (rho - 1)), rho - 1); beyond rho_H = sigma (sigma + beta + 3) /
// (sigma - beta - 1) = 24.74 no fixed point is stable and trajectories stay
// on the bounded attractor, away from every fixed point.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::state<"z"> z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;

constexpr auto lorenz = fx::model(fx::states(x, y, z), fx::params(sigma, rho, beta),  //
                                  fx::d(x) = sigma * (y - x),                         //
                                  fx::d(y) = x * (rho - z) - y,                       //
                                  fx::d(z) = x * y - beta * z);
using M = fx::compiled<lorenz, double>;

int main() {
  constexpr std::size_t B = 4096;
  constexpr double s = 10, b = 8.0 / 3.0;
  // SoA batches: value i of trajectory j at [i * B + j].
  std::vector<double> x0(3 * B), p(3 * B);
  for (std::size_t j = 0; j < B; ++j) {
    x0[j] = 1.0, x0[B + j] = 1.0, x0[2 * B + j] = 1.0;
    p[j] = s, p[B + j] = 0.1 + 29.9 * double(j) / (B - 1), p[2 * B + j] = b;
  }
  const std::vector<double> save = {10, 20, 30, 40, 50, 60};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 60, .save_times = save, .rtol = 1e-8, .atol = 1e-8};
  const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));

  int failures = 0;
  std::size_t origin = 0, fixed_point = 0, chaotic = 0;
  double steps = 0;
  for (std::size_t j = 0; j < B; ++j) {
    steps += double(r.stats[j].accepted);
    if (r.status[j] != fx::solve_status::success) {
      std::printf("trajectory %zu: %s\n", j, fx::to_string(r.status[j]));
      ++failures;
      continue;
    }
    const double rh = p[B + j];
    const double X = r.final_value(0, j), Y = r.final_value(1, j), Z = r.final_value(2, j);
    const double c = std::sqrt(b * std::max(rh - 1, 0.0));
    const double to_fixed = std::min(std::hypot(X - c, Y - c, Z - (rh - 1)), std::hypot(X + c, Y + c, Z - (rh - 1)));
    if (rh < 0.6) {
      origin += std::hypot(X, Y, Z) < 1e-3;
      failures += std::hypot(X, Y, Z) >= 1e-3;
    } else if (rh > 2 && rh < 10) {
      fixed_point += to_fixed < 1e-4 * (1 + c);
      failures += to_fixed >= 1e-4 * (1 + c);
    } else if (rh > 25) {
      bool bounded = true;
      for (std::size_t k = 0; k < save.size(); ++k)
        bounded = bounded && std::abs(r.saved(k, 0, j)) < 50 && std::abs(r.saved(k, 1, j)) < 80 &&
                  r.saved(k, 2, j) > -1 && r.saved(k, 2, j) < 100;
      chaotic += bounded && to_fixed > 1e-2;
      failures += !(bounded && to_fixed > 1e-2);
    }
  }
  std::printf("Lorenz ensemble: %zu trajectories, rho in [0.1, 30], t = 60, Tsit5 rtol 1e-8, %.0f steps on average\n",
              B, steps / B);
  std::printf("  rho < 0.6:     %zu at the origin\n", origin);
  std::printf("  2 < rho < 10:  %zu at a fixed point C+-\n", fixed_point);
  std::printf("  rho > 25:      %zu bounded, away from every fixed point\n", chaotic);
  std::printf("%s\n", failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
