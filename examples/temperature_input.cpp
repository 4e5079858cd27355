// A transmission rate that follows the daily temperature (an input from
// data, solve/events.hpp): a vector-borne SIR over a year, its rate
//
//   beta(t) = beta0 exp(q (celsius(t) - 20)),   celsius(t) = temp + temp_slope t,
//
// where temp and temp_slope are parameters that the day's readings drive:
// between two readings the model reads the line through them, and the
// integration stops at every reading. 64 trajectories (beta0 from 0.12 to
// 0.31 a day) integrated with Tsit5 in SIMD lanes.
//
// Self-check: trajectory 0 against a hand-written RK4 with 100 steps a day
// that interpolates the readings itself (no fluxion code), and the
// population S + I + R conserved in every trajectory.
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta0"> beta0;  // the rate at 20 degrees, per day
constexpr fx::param<"q"> q;          // its rise per degree (log scale)
constexpr fx::param<"gamma"> gam;    // recovery rate, per day
constexpr fx::param<"temp"> temp;          // driven by the readings: the line's level
constexpr fx::param<"temp_slope"> slope;  // and its slope

constexpr auto celsius = fx::alias<"celsius">(temp + slope * fx::t);
constexpr auto beta = fx::alias<"beta">(beta0 * fx::exp(q * (celsius - 20.0)));
constexpr auto vector_borne = fx::model(fx::states(S, I, R), fx::params(beta0, q, gam, temp, slope),
                                        fx::d(S) = -beta * S * I / (S + I + R),
                                        fx::d(I) = beta * S * I / (S + I + R) - gam * I,
                                        fx::d(R) = gam * I);
using M = fx::compiled<vector_borne, double>;

// A year of daily readings (day -1 to 365): a seasonal swing and a
// deterministic "weather" wobble.
double reading(int day) { return 20 + 8 * std::sin(6.283185307179586 * (day - 100) / 365.0) + 1.5 * std::sin(0.7 * day); }

int main() {
  std::vector<double> days, readings;
  for (int d = -1; d <= 365; ++d) days.push_back(d), readings.push_back(reading(d));
  const int level = int(M::layout::param::offset(temp)), rise = int(M::layout::param::offset(slope));
  fx::timed_events<double> ev;
  ev.piecewise_linear(level, rise, days, readings);

  constexpr std::size_t B = 64;
  std::vector<double> weeks;
  for (int w = 1; w <= 52; ++w) weeks.push_back(7.0 * w);
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 364, .save_times = weeks, .rtol = 1e-9, .atol = 1e-6, .events = ev};
  // Struct-of-arrays inputs: x0[state][b], p[param][b]; temp and slope are
  // the table's from t0 on (their values here are never read).
  std::vector<double> x0(3 * B), p(5 * B, 0.0);
  for (std::size_t b = 0; b < B; ++b) {
    x0[b] = 99'990, x0[B + b] = 10, x0[2 * B + b] = 0;
    p[b] = 0.12 + 0.003 * double(b), p[B + b] = 0.08, p[2 * B + b] = 0.1;
  }
  const auto r = fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const double>(x0)),
                                     fx::soa(std::span<const double>(p)));

  // The oracle: RK4, 100 steps a day, the readings interpolated by hand.
  const auto celsius_at = [&](double t) {
    const int d = int(std::floor(t));
    return reading(d) + (reading(d + 1) - reading(d)) * (t - d);
  };
  const auto f = [&](double t, const std::array<double, 3>& x) {
    const double n = x[0] + x[1] + x[2], inf = p[0] * std::exp(0.08 * (celsius_at(t) - 20)) * x[0] * x[1] / n;
    return std::array<double, 3>{-inf, inf - 0.1 * x[1], 0.1 * x[1]};
  };
  std::array<double, 3> x{99'990, 10, 0};
  double t = 0, worst = 0;
  const double h = 0.01;
  for (std::size_t s = 0; s < weeks.size(); ++s) {
    while (t < weeks[s] - h / 2) {
      const auto k1 = f(t, x);
      std::array<double, 3> a, b, c;
      for (int i = 0; i < 3; ++i) a[i] = x[i] + h / 2 * k1[i];
      const auto k2 = f(t + h / 2, a);
      for (int i = 0; i < 3; ++i) b[i] = x[i] + h / 2 * k2[i];
      const auto k3 = f(t + h / 2, b);
      for (int i = 0; i < 3; ++i) c[i] = x[i] + h * k3[i];
      const auto k4 = f(t + h, c);
      for (int i = 0; i < 3; ++i) x[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
      t += h;
    }
    for (int i = 0; i < 3; ++i) worst = std::fmax(worst, std::abs(r.saved(s, std::size_t(i), 0) - x[i]) / 1e5);
  }

  double drift = 0;
  std::puts("beta0   peak week   infected at the peak   recovered after a year");
  for (std::size_t b = 0; b < B; ++b) {
    if (r.status[b] != fx::solve_status::success) {
      std::printf("FAILED: trajectory %zu did not succeed\n", b);
      return 1;
    }
    std::size_t peak = 0;
    for (std::size_t s = 0; s < weeks.size(); ++s) {
      if (r.saved(s, 1, b) > r.saved(peak, 1, b)) peak = s;
      drift = std::fmax(drift, std::abs(r.saved(s, 0, b) + r.saved(s, 1, b) + r.saved(s, 2, b) - 1e5) / 1e5);
    }
    if (b % 9 == 0)
      std::printf("%.3f   %9zu   %20.0f   %22.0f\n", p[b], peak + 1, r.saved(peak, 1, b), r.final_value(2, b));
  }
  std::printf("trajectory 0 against a hand-written RK4: %.1e of the population at worst\n", worst);
  std::printf("max relative drift of S + I + R: %.1e\n", drift);
  if (worst > 1e-7 || drift > 1e-9) {
    std::puts("FAILED: the integration with the temperature input is off");
    return 1;
  }
  return 0;
}
