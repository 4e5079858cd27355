// Weekly case counts of the SEIR example, the log-density with its gradient
// (forward sensitivities, one host thread), written two ways:
//   - "interval": fx::interval_series on the model's reported incidence
//     (rho sigma E accumulated over each week, without a state in the model);
//   - "windows": the only way before interval series: ten window states
//     W_k' = where(t >= t_{k-1}, sigma E, 0) in the model, observed at t_k as
//     rho W_k, ten series each observed at its own week (nine masked values).
// and, for the steps, the model alone integrated to the same save times.
// Both forms give the same log-density (max_rel_diff, within the
// tolerances). Prints one JSON line per method and form: time a trajectory,
// accepted and rejected steps (means), columns.
//
//   fluxion-bench-seir-weekly [N]   (default 500 parameter sets: bench/seir_bench.hpp's)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "seir_bench.hpp"

namespace {

namespace fx = fluxion;
using namespace seir;

constexpr int weeks = days / 7;
constexpr fx::state<"W1"> W1;
constexpr fx::state<"W2"> W2;
constexpr fx::state<"W3"> W3;
constexpr fx::state<"W4"> W4;
constexpr fx::state<"W5"> W5;
constexpr fx::state<"W6"> W6;
constexpr fx::state<"W7"> W7;
constexpr fx::state<"W8"> W8;
constexpr fx::state<"W9"> W9;
constexpr fx::state<"W10"> W10;
constexpr auto incidence = sigma * E;
constexpr auto windowed = fx::model(
    fx::states(S, E, I, R, W1, W2, W3, W4, W5, W6, W7, W8, W9, W10), fx::params(beta, sigma, gam, rho, phi),  //
    fx::d(S) = -beta * S * I / (S + E + I + R),                                                                 //
    fx::d(E) = beta * S * I / (S + E + I + R) - sigma * E,                                                      //
    fx::d(I) = sigma * E - gam * I,                                                                             //
    fx::d(R) = gam * I,                                                                                         //
    fx::d(W1) = fx::where(fx::t >= 0.0, incidence, 0.0), fx::d(W2) = fx::where(fx::t >= 7.0, incidence, 0.0),
    fx::d(W3) = fx::where(fx::t >= 14.0, incidence, 0.0), fx::d(W4) = fx::where(fx::t >= 21.0, incidence, 0.0),
    fx::d(W5) = fx::where(fx::t >= 28.0, incidence, 0.0), fx::d(W6) = fx::where(fx::t >= 35.0, incidence, 0.0),
    fx::d(W7) = fx::where(fx::t >= 42.0, incidence, 0.0), fx::d(W8) = fx::where(fx::t >= 49.0, incidence, 0.0),
    fx::d(W9) = fx::where(fx::t >= 56.0, incidence, 0.0), fx::d(W10) = fx::where(fx::t >= 63.0, incidence, 0.0),
    fx::observe<"w1">() = rho * W1, fx::observe<"w2">() = rho * W2, fx::observe<"w3">() = rho * W3,
    fx::observe<"w4">() = rho * W4, fx::observe<"w5">() = rho * W5, fx::observe<"w6">() = rho * W6,
    fx::observe<"w7">() = rho * W7, fx::observe<"w8">() = rho * W8, fx::observe<"w9">() = rho * W9,
    fx::observe<"w10">() = rho * W10);

using Plain = fx::compiled<model, double>;
using Windowed = fx::compiled<windowed, double>;
static_assert(Windowed::n_states == 14 && Windowed::n_observables == 10);

using seir_bench::median_ms;

template <class R>
void print(const char* form, const char* method, std::size_t n, double ms, const R& r, std::size_t columns) {
  double accepted = 0, rejected = 0;
  for (const auto& s : r.stats) accepted += double(s.accepted), rejected += double(s.rejected);
  std::printf("{\"bench\": \"seir_weekly\", \"form\": \"%s\", \"method\": \"%s\", \"N\": %zu, \"columns\": %zu, "
              "\"us_per_trajectory\": %.3f, \"accepted_mean\": %.2f, \"rejected_mean\": %.2f}\n",
              form, method, n, columns, ms * 1e3 / double(n), accepted / double(n), rejected / double(n));
  std::fflush(stdout);
}

template <class Method>
void run(const char* method, std::size_t n, const std::vector<fx::observation<double>>& weekly, double rtol,
         double atol) {
  std::vector<double> x0, p;
  seir_bench::parameter_sets(n, x0, p);
  std::vector<double> ts;
  for (int k = 1; k <= weeks; ++k) ts.push_back(7.0 * k);
  const auto pr = problem<double>(ts, rtol, atol);
  fx::host::threads one(1);
  one.simd_lanes = false;
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(p));

  // The model alone to the same save times: its steps.
  fx::ensemble_result<double> plain;
  const double plain_ms = median_ms([&] { plain = fx::host::integrate(Plain{}, Method{}, pr, n, xs, ps, one); });
  print("model alone (integrate)", method, n, plain_ms, plain, 0);

  // The model's incidence observed at the save times (not accumulated): the
  // steps of the same sensitivities without the accumulated state.
  const fx::likelihood at_times(
      fx::series<fx::neg_binomial_2>{.name = "incidence", .observable = 0, .parameters = {p_phi}});
  const std::vector<fx::series_data<double>> at_times_data = {{.values = weekly}};
  fx::log_density_result<double> by_times;
  const double times_ms = median_ms([&] {
    by_times = fx::host::log_density(Plain{}, Method{}, pr, at_times, std::span(at_times_data), fx::priors<>{}, n, xs,
                                     ps, true, one);
  });
  print("at save times (no accumulation)", method, n, times_ms, by_times, by_times.columns);

  // Interval series.
  const fx::likelihood interval(
      fx::interval_series<fx::neg_binomial_2>{.name = "weekly cases", .observable = 0, .parameters = {p_phi}});
  const std::vector<fx::series_data<double>> data = {{.values = weekly}};
  fx::log_density_result<double> by_interval;
  const double interval_ms = median_ms([&] {
    by_interval = fx::host::log_density(Plain{}, Method{}, pr, interval, std::span(data), fx::priors<>{}, n, xs, ps,
                                        true, one);
  });

  // Ten windows, ten series, each observed at its own week.
  std::vector<double> xw(Windowed::n_states * n, 0.0);
  std::copy(x0.begin(), x0.end(), xw.begin());  // S E I R, then W1..W10 = 0
  std::vector<std::vector<unsigned char>> masks(weeks, std::vector<unsigned char>(weeks, 0));
  std::vector<fx::series_data<double>> windows_data;
  for (int k = 0; k < weeks; ++k) {
    masks[std::size_t(k)][std::size_t(k)] = 1;
    windows_data.push_back({.values = weekly, .mask = masks[std::size_t(k)]});
  }
  const auto week = [](int k) {
    return fx::series<fx::neg_binomial_2>{.name = "week", .observable = k, .parameters = {p_phi}};
  };
  const fx::likelihood windows(week(0), week(1), week(2), week(3), week(4), week(5), week(6), week(7), week(8),
                               week(9));
  fx::log_density_result<double> by_windows;
  const double windows_ms = median_ms([&] {
    by_windows = fx::host::log_density(Windowed{}, Method{}, pr, windows, std::span(windows_data), fx::priors<>{}, n,
                                       fx::soa(std::span<const double>(xw)), ps, true, one);
  });
  // The same log-density (to the tolerances), and the same gradient in the
  // parameters (the windows' initial states are extra columns).
  double worst = 0, worst_gradient = 0;
  for (std::size_t b = 0; b < n; ++b) {
    worst = std::max(worst, std::abs(by_interval.value[b] - by_windows.value[b]) / std::abs(by_windows.value[b]));
    double scale = 1;
    for (std::size_t j = 0; j < Plain::n_params; ++j) scale = std::max(scale, std::abs(by_windows.gradient(j, b)));
    for (std::size_t j = 0; j < Plain::n_params; ++j)
      worst_gradient = std::max(worst_gradient, std::abs(by_interval.gradient(j, b) - by_windows.gradient(j, b)) / scale);
  }
  print("interval series", method, n, interval_ms, by_interval, by_interval.columns);
  print("window states", method, n, windows_ms, by_windows, by_windows.columns);
  std::printf("{\"bench\": \"seir_weekly\", \"method\": \"%s\", \"rtol\": %.0e, \"windows_over_interval\": %.2f, "
              "\"value_rel_diff\": %.2e, \"gradient_rel_diff\": %.2e}\n",
              method, rtol, windows_ms / interval_ms, worst, worst_gradient);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 500;
  // Weekly sums of the example's synthetic daily counts (the draws before
  // the cap), at the true parameters.
  const synthetic daily = make_data();
  std::vector<fx::observation<double>> weekly;
  for (int k = 0; k < weeks; ++k) {
    double sum = 0;
    for (int d = 7 * k; d < 7 * k + 7; ++d) sum += daily.counts[std::size_t(d)];
    weekly.push_back(fx::observation<double>::exact(sum));
  }
  // The example's tolerances, then tight ones: the two forms agree to them.
  run<fx::tsit5>("tsit5", n, weekly, 1e-6, 1e-4);
  run<fx::vern7>("vern7", n, weekly, 1e-6, 1e-4);
  run<fx::vern7>("vern7", n / 10 > 0 ? n / 10 : 1, weekly, 1e-10, 1e-8);
  return 0;
}
