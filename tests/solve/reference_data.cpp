// Ensembles against high-accuracy reference trajectories committed as data
// (tests/solve/data, made by the scripts there, independently of fluxion):
// Lorenz to t = 1 (mpmath's Taylor-series integrator, 40 digits), Robertson
// to t = 1e5 (SciPy Radau, rtol 1e-12, the peers' rate constants) and Van der
// Pol with mu = 1000 (SciPy Radau, rtol 1e-12). Every trajectory of a file
// is integrated in one ensemble with the file's save times, so the dense
// output is checked as well as the steps.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/lorenz63.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;

namespace {

// A reference file: per trajectory its parameters, the save times and the
// states there ("trajectory, parameters..., t, states...").
struct reference {
  std::vector<std::vector<double>> params;  // [trajectory][parameter]
  std::vector<double> times;
  std::vector<std::vector<std::vector<double>>> states;  // [trajectory][save][state]
};

reference read_reference(const std::string& name, std::size_t n_params, std::size_t n_states) {
  const std::string path = std::string(FLUXION_SOLVE_DATA) + "/" + name;
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);  // header
  reference r;
  std::map<int, std::size_t> index;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) v.push_back(std::stod(cell));
    REQUIRE(v.size() == 2 + n_params + n_states);
    const int j = int(v[0]);
    if (!index.count(j)) {
      index[j] = r.params.size();
      r.params.emplace_back(v.begin() + 1, v.begin() + 1 + std::ptrdiff_t(n_params));
      r.states.emplace_back();
    }
    const std::size_t b = index[j];
    const double t = v[1 + n_params];
    if (b == 0) r.times.push_back(t);
    REQUIRE(t == r.times[r.states[b].size()]);
    r.states[b].emplace_back(v.begin() + 2 + std::ptrdiff_t(n_params), v.end());
  }
  return r;
}

// SoA batch of per-trajectory values (value i of trajectory b at i * B + b).
std::vector<double> soa_of(const std::vector<std::vector<double>>& rows) {
  const std::size_t B = rows.size(), n = rows[0].size();
  std::vector<double> out(n * B);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < n; ++i) out[i * B + b] = rows[b][i];
  return out;
}

// Largest |got - want| / max(|want|, floor) over trajectories and save times,
// per state (the peers' error measure, floor 1e-12 there).
template <class T>
std::vector<double> max_relative_error(const fx::ensemble_result<T>& r, const reference& ref, double floor) {
  std::vector<double> worst(r.states, 0.0);
  for (std::size_t s = 0; s < ref.times.size(); ++s)
    for (std::size_t b = 0; b < ref.states.size(); ++b)
      for (std::size_t i = 0; i < r.states; ++i) {
        const double want = ref.states[b][s][i];
        const double e = std::abs(double(r.saved(s, i, b)) - want) / std::max(std::abs(want), floor);
        worst[i] = std::max(worst[i], std::isnan(e) ? INFINITY : e);
      }
  return worst;
}

using lorenz63::lorenz;

template <class T, class Method>
std::vector<double> lorenz_error(Method method, T rtol, T atol) {
  using M = fx::compiled<lorenz, T>;
  const reference ref = read_reference("lorenz_t1.csv", 6, 3);
  REQUIRE(ref.params.size() == 8);
  REQUIRE(ref.times.size() == 10);
  std::vector<std::vector<double>> p, x0;
  for (const auto& row : ref.params) {
    p.push_back({row[0], row[1], row[2]});
    x0.push_back({row[3], row[4], row[5]});
  }
  const auto pd = soa_of(p), xd = soa_of(x0);
  const std::vector<T> ps(pd.begin(), pd.end()), xs(xd.begin(), xd.end()), ts(ref.times.begin(), ref.times.end());
  fx::ode_problem<T> pr{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = rtol, .atol = atol};
  const auto r = fx::host::integrate(M{}, method, pr, p.size(), fx::soa(std::span<const T>(xs)),
                                     fx::soa(std::span<const T>(ps)));
  REQUIRE(r.all_succeeded());
  return max_relative_error(r, ref, 1e-12);
}

}  // namespace

TEST_CASE("Lorenz to t = 1 against mpmath's Taylor series: Tsit5, Rodas5P, double and float") {
  // The error stays near the tolerance asked for (Lorenz to t = 1 amplifies
  // a local error by at most about 10^2 here).
  for (double e : lorenz_error<double>(fx::tsit5{}, 1e-10, 1e-10)) CHECK(e < 1e-7);
  for (double e : lorenz_error<double>(fx::tsit5{}, 1e-6, 1e-6)) CHECK(e < 3e-3);
  for (double e : lorenz_error<double>(fx::rodas5p{}, 1e-8, 1e-8)) CHECK(e < 1e-5);
  for (double e : lorenz_error<float>(fx::tsit5{}, 1e-5f, 1e-5f)) CHECK(e < 3e-2);
}

namespace {

using stiff_models::robertson;
using stiff_models::van_der_pol;

template <class T, class Method>
std::vector<double> robertson_error(Method method, T rtol, std::vector<T> atol) {
  using M = fx::compiled<robertson, T>;
  const reference ref = read_reference("robertson_t1e5.csv", 3, 3);
  REQUIRE(ref.params.size() == 16);
  REQUIRE(ref.times.size() == 20);
  std::vector<std::vector<double>> x0(ref.params.size(), std::vector<double>{1, 0, 0});
  const auto pd = soa_of(ref.params), xd = soa_of(x0);
  const std::vector<T> ps(pd.begin(), pd.end()), xs(xd.begin(), xd.end()), ts(ref.times.begin(), ref.times.end());
  fx::ode_problem<T> pr{.t0 = 0, .t1 = T(1e5), .save_times = ts, .rtol = rtol, .atol_per_state = atol};
  const auto r = fx::host::integrate(M{}, method, pr, ref.params.size(), fx::soa(std::span<const T>(xs)),
                                     fx::soa(std::span<const T>(ps)));
  REQUIRE(r.all_succeeded());
  // Relative to the reference where it is at least the absolute tolerance:
  // below it the solver is not asked for relative accuracy.
  std::vector<double> worst(3, 0.0);
  for (std::size_t s = 0; s < ts.size(); ++s)
    for (std::size_t b = 0; b < ref.params.size(); ++b)
      for (std::size_t i = 0; i < 3; ++i) {
        const double want = ref.states[b][s][i];
        const double e = std::abs(double(r.saved(s, i, b)) - want) / std::max(std::abs(want), 1e3 * double(atol[i]));
        worst[i] = std::max(worst[i], std::isnan(e) ? INFINITY : e);
      }
  return worst;
}

}  // namespace

TEST_CASE("Robertson to t = 1e5, 16 rate-constant sets at 20 save times, against Radau at 1e-12") {
  SECTION("Rodas5P, double, rtol 1e-8") {
    const auto e = robertson_error<double>(fx::rodas5p{}, 1e-8, {1e-12, 1e-16, 1e-12});
    INFO("errors " << e[0] << " " << e[1] << " " << e[2]);
    for (double v : e) CHECK(v < 1e-5);
  }
  SECTION("Rodas5P and Rosenbrock23 at the peers' tolerances (rtol 1e-6, atol 1e-10)") {
    const auto e5 = robertson_error<double>(fx::rodas5p{}, 1e-6, {1e-10, 1e-10, 1e-10});
    const auto e2 = robertson_error<double>(fx::rosenbrock23{}, 1e-6, {1e-10, 1e-10, 1e-10});
    INFO("rodas5p " << e5[0] << " " << e5[1] << " " << e5[2] << "; rosenbrock23 " << e2[0] << " " << e2[1] << " "
                    << e2[2]);
    for (double v : e5) CHECK(v < 1e-3);
    for (double v : e2) CHECK(v < 1e-2);
  }
  SECTION("float, rtol 1e-4") {
    const auto e = robertson_error<float>(fx::rodas5p{}, 1e-4f, {1e-7f, 1e-7f, 1e-7f});
    INFO("errors " << e[0] << " " << e[1] << " " << e[2]);
    for (double v : e) CHECK(v < 2e-3);
  }
}

TEST_CASE("Van der Pol with mu = 1000 to t = 2, through two relaxation jumps, against Radau at 1e-12") {
  using M = fx::compiled<van_der_pol, double>;
  const reference ref = read_reference("van_der_pol_mu1000.csv", 1, 2);
  REQUIRE(ref.times.size() == 10);
  const std::vector<double> x0 = {2, 0}, p = {ref.params[0][0]};
  for (bool step_to_save_times : {false, true}) {
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ref.times, .rtol = 1e-9, .atol = 1e-9,
                               .step_to_save_times = step_to_save_times};
    const auto r = fx::host::integrate(M{}, fx::rodas5p{}, pr, 1, fx::soa(std::span<const double>(x0)),
                                       fx::soa(std::span<const double>(p)));
    REQUIRE(r.all_succeeded());
    const auto e = max_relative_error(r, ref, 1.0);  // y2 passes through zero: relative to max(|y|, 1)
    INFO("step_to_save_times " << step_to_save_times << ": errors " << e[0] << " " << e[1] << ", accepted steps "
                               << r.stats[0].accepted);
    CHECK(e[0] < 1e-7);
    CHECK(e[1] < 1e-6);
  }
}
