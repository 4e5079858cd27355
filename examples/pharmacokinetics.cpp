// Two-compartment pharmacokinetics with Michaelis-Menten elimination and a
// zero-order infusion that stops at t_inf (fx::where on time).
//
//   C = A1 / V1,  elim = Vmax C / (Km + C),  u(t) = rate if t < t_inf else 0
//   dA1/dt = u(t) - k12 A1 + k21 A2 - elim,   dA2/dt = k12 A1 - k21 A2
//
// Self-check (mass balance): amount in the body + amount eliminated (the
// 'elimination' observable integrated with the same RK4 weights) equals the
// amount infused, to rounding.
#include <array>
#include <cmath>
#include <cstdio>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr fx::state<"A1"> A1;  // central amount, mg
constexpr fx::state<"A2"> A2;  // peripheral amount, mg
constexpr fx::param<"k12"> k12;
constexpr fx::param<"k21"> k21;    // 1/h
constexpr fx::param<"Vmax"> Vmax;  // mg/h
constexpr fx::param<"Km"> Km;      // mg/L
constexpr fx::param<"V1"> V1;      // L
constexpr fx::param<"rate"> rate;  // mg/h
constexpr fx::param<"t_inf"> t_inf;  // h

constexpr auto C = fx::alias<"C">(A1 / V1);
constexpr auto elim = fx::alias<"elim">(Vmax * C / (Km + C));
constexpr auto pk = fx::model(fx::states(A1, A2), fx::params(k12, k21, Vmax, Km, V1, rate, t_inf),
                              fx::d(A1) = fx::where(fx::t < t_inf, rate, 0.0) - k12 * A1 + k21 * A2 - elim,
                              fx::d(A2) = k12 * A1 - k21 * A2,
                              fx::observe<"concentration">() = C,
                              fx::observe<"elimination">() = elim);
using M = fx::compiled<pk, double>;

int main() {
  const std::array<double, M::n_params> p{0.4, 0.15, 30.0, 2.5, 12.0, 250.0, 2.0};
  std::array<double, M::n_states> a{0.0, 0.0};
  const double h = 0.01;
  double eliminated = 0, infused = 0, cmax = 0, tmax = 0, auc = 0, c_prev = 0;

  std::puts("   t [h]   C [mg/L]   A2 [mg]");
  for (int n = 0; n < 2400; ++n) {  // 24 h
    const double t = n * h, ts[4] = {t, t + h / 2, t + h / 2, t + h}, w[4] = {1, 2, 2, 1};
    std::array<double, M::n_states> k[4], s = a;
    for (int i = 0; i < 4; ++i) {
      if (i > 0)
        for (int j = 0; j < 2; ++j) s[j] = a[j] + (i == 3 ? h : h / 2) * k[i - 1][j];
      M{}.rhs(ts[i], s.data(), p.data(), k[i].data());
      std::array<double, M::n_observables> y;
      M{}.observe(ts[i], s.data(), p.data(), y.data());
      eliminated += h / 6 * w[i] * y[1];
      infused += h / 6 * w[i] * (ts[i] < p[6] ? p[5] : 0.0);
    }
    for (int j = 0; j < 2; ++j) a[j] += h / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
    const double c = a[0] / p[4];
    auc += h / 2 * (c_prev + c);
    c_prev = c;
    if (c > cmax) cmax = c, tmax = t + h;
    if ((n + 1) % 300 == 0) std::printf("%8.1f %10.3f %9.1f\n", t + h, c, a[1]);
  }
  const double balance = a[0] + a[1] + eliminated - infused;
  std::printf("dose infused %.1f mg; Cmax %.3f mg/L at %.2f h; AUC(0-24) %.1f mg h/L\n", infused, cmax, tmax, auc);
  std::printf("mass balance: body + eliminated - infused = %.1e mg\n", balance);
  // RK4 sees the switch-off at t_inf only at its stages, so the infused amount
  // is rate * t_inf to within one step (its last stage lands on t_inf, where u = 0).
  if (!(std::abs(balance) < 1e-9 * infused) || std::abs(infused - p[5] * p[6]) > p[5] * h) {
    std::puts("FAILED: mass balance");
    return 1;
  }
  return 0;
}
