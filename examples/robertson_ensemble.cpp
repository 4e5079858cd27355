// Robertson's stiff kinetics as an ensemble: 2000 rate-constant sets
// (k1, k2, k3) = (0.04, 3e7, 1e4) scaled by factors in [0.5, 1.5], each
// integrated to t = 1e5 with Rodas5P (fluxion's exact Jacobian and time
// derivative, every trajectory with its own steps, all cores), the states
// kept at 10 log-spaced save times.
//
//   y1' = -k1 y1 + k3 y2 y3,   y2' = k1 y1 - k2 y2^2 - k3 y2 y3,   y3' = k2 y2^2
//
// Self-checks: every trajectory succeeds; the total y1 + y2 + y3 stays 1; y3
// only grows; the unscaled constants (trajectory 0) give the published values
// at t = 40 (Hairer & Wanner II, IV.10: y1 = 0.7158270687, y3 = 0.2841637457);
// and faster conversion (a larger k1) leaves less y1 at t = 1e5.
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace kinetics {  // (y1 would clash with the Bessel function ::y1 from <cmath>)
constexpr fx::state<"y1"> y1;
constexpr fx::state<"y2"> y2;
constexpr fx::state<"y3"> y3;
constexpr fx::param<"k1"> k1;
constexpr fx::param<"k2"> k2;
constexpr fx::param<"k3"> k3;
constexpr auto robertson = fx::model(fx::states(y1, y2, y3), fx::params(k1, k2, k3),  //
                                     fx::d(y1) = -k1 * y1 + k3 * y2 * y3,             //
                                     fx::d(y2) = k1 * y1 - k2 * y2 * y2 - k3 * y2 * y3,  //
                                     fx::d(y3) = k2 * y2 * y2);
}  // namespace kinetics
using M = fx::compiled<kinetics::robertson, double>;

int main() {
  constexpr std::size_t B = 2000;
  std::vector<double> x0(3 * B, 0.0), p(3 * B);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> scale(0.5, 1.5);
  const double base[3] = {0.04, 3e7, 1e4};
  for (std::size_t j = 0; j < B; ++j) {
    x0[j] = 1.0;  // y = (1, 0, 0)
    for (std::size_t i = 0; i < 3; ++i) p[i * B + j] = base[i] * (j == 0 ? 1.0 : scale(rng));
  }
  std::vector<double> save(10);
  for (std::size_t s = 0; s < save.size(); ++s) save[s] = std::pow(10.0, -4.0 + double(s));  // 1e-4 .. 1e5
  save[6] = 40.0;                                                                             // instead of 100
  const std::vector<double> atol = {1e-10, 1e-14, 1e-10};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e5, .save_times = save, .rtol = 1e-8, .atol_per_state = atol};
  const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, B, fx::soa(std::as_const(x0)), fx::soa(std::as_const(p)));

  int failures = 0;
  double drift = 0, steps = 0, jacobians = 0;
  std::size_t not_growing = 0;
  for (std::size_t j = 0; j < B; ++j) {
    failures += r.status[j] != fx::solve_status::success;
    steps += r.stats[j].accepted, jacobians += r.stats[j].jacobian_evaluations;
    for (std::size_t s = 0; s < save.size(); ++s) {
      drift = std::max(drift, std::abs(r.saved(s, 0, j) + r.saved(s, 1, j) + r.saved(s, 2, j) - 1));
      if (s > 0 && r.saved(s, 2, j) < r.saved(s - 1, 2, j)) ++not_growing;
    }
  }
  // y1 at t = 1e5 against k1: the trajectories with k1 in the top tenth keep less y1 than those in the bottom tenth.
  double low = 0, high = 0;
  std::size_t n_low = 0, n_high = 0;
  for (std::size_t j = 0; j < B; ++j) {
    const double f = p[j] / base[0];
    if (f < 0.6) low += r.final_value(0, j), ++n_low;
    if (f > 1.4) high += r.final_value(0, j), ++n_high;
  }
  const double e1 = std::abs(r.saved(6, 0, 0) / 0.7158270687 - 1), e3 = std::abs(r.saved(6, 2, 0) / 0.2841637457 - 1);
  std::printf("Robertson ensemble: %zu rate-constant sets to t = 1e5, Rodas5P rtol 1e-8\n", B);
  std::printf("  failed: %d; mean accepted steps %.1f, Jacobians %.1f\n", failures, steps / B, jacobians / B);
  std::printf("  largest |y1 + y2 + y3 - 1|: %.1e; y3 shrinking between save times: %zu\n", drift, not_growing);
  std::printf("  unscaled constants at t = 40: y1 = %.10f, y3 = %.10f (relative errors %.1e, %.1e)\n",
              r.saved(6, 0, 0), r.saved(6, 2, 0), e1, e3);
  std::printf("  mean y1 at t = 1e5: %.4f for k1 < 0.6 k1*, %.4f for k1 > 1.4 k1*\n", low / n_low, high / n_high);
  failures += drift > 1e-10;
  failures += not_growing != 0;
  failures += e1 > 1e-7 || e3 > 1e-7;
  failures += !(high / n_high < low / n_low);
  std::printf("%s\n", failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
