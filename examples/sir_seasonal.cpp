// SIR epidemic with seasonal forcing and waning immunity (R returns to S at
// rate omega), integrated for three years with RK4: yearly winter waves.
//
//   dS/dt = -beta(t) S I / N + omega R
//   dI/dt =  beta(t) S I / N - gamma I
//   dR/dt =  gamma I - omega R
//   beta(t) = beta0 (1 + amp cos(2 pi t / 365)),  N = S + I + R
//
// Self-check: the population N is conserved by every step (to rounding).
#include <array>
#include <cmath>
#include <cstdio>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta0"> beta0;
constexpr fx::param<"amp"> amp;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"omega"> omega;
constexpr fx::constant<"two_pi", 6.283185307179586> two_pi;

constexpr auto N = fx::alias<"N">(S + I + R);
constexpr auto beta = fx::alias<"beta">(beta0 * (1.0 + amp * fx::cos(two_pi * fx::t / 365.0)));
constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta0, amp, gam, omega),
                               fx::d(S) = -beta * S * I / N + omega * R,
                               fx::d(I) = beta * S * I / N - gam * I,
                               fx::d(R) = gam * I - omega * R,
                               fx::observe<"incidence">() = beta * S * I / N);
using M = fx::compiled<sir, double>;
using vec = std::array<double, M::n_states>;

int main() {
  const std::array<double, M::n_params> p{0.3, 0.35, 1.0 / 7.0, 1.0 / 200.0};  // beta0, amp, gamma, omega (per day)
  vec x{999'000.0, 1'000.0, 0.0};
  const double n0 = x[0] + x[1] + x[2], h = 0.25;

  // x + a * k, elementwise
  auto axpy = [](const vec& x, double a, const vec& k) {
    vec r;
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = x[i] + a * k[i];
    return r;
  };
  double peak_i[3] = {}, peak_day[3] = {}, max_drift = 0;
  std::puts("  day          S          I          R   incidence/day");
  for (int step = 0; step < 3 * 365 * 4; ++step) {
    const double t = step * h;
    if (step % (73 * 4) == 0) {
      std::array<double, M::n_observables> y;
      M{}.observe(t, x.data(), p.data(), y.data());
      std::printf("%5.0f %10.0f %10.0f %10.0f %15.1f\n", t, x[0], x[1], x[2], y[0]);
    }
    const int year = step / (365 * 4);
    if (x[1] > peak_i[year]) peak_i[year] = x[1], peak_day[year] = t;
    vec k1, k2, k3, k4;
    M{}.rhs(t, x.data(), p.data(), k1.data());
    M{}.rhs(t + h / 2, axpy(x, h / 2, k1).data(), p.data(), k2.data());
    M{}.rhs(t + h / 2, axpy(x, h / 2, k2).data(), p.data(), k3.data());
    M{}.rhs(t + h, axpy(x, h, k3).data(), p.data(), k4.data());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    max_drift = std::fmax(max_drift, std::abs(x[0] + x[1] + x[2] - n0) / n0);
  }
  for (int year = 0; year < 3; ++year)
    std::printf("year %d: peak I = %.0f on day %.0f\n", year + 1, peak_i[year], peak_day[year]);
  std::printf("max relative drift of N = S + I + R: %.1e\n", max_drift);
  if (max_drift > 1e-12) {
    std::puts("FAILED: population not conserved");
    return 1;
  }
  return 0;
}
