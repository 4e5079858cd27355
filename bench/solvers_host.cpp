// fluxion's ensemble solvers on the host, one core and all cores, beside
// Boost.Odeint (BENCHMARKS.md, issue 15):
//
//   Model B, Lorenz: u0 in [0.5, 1.5]^3, (sigma, rho, beta) in [5, 15] x
//     [20, 30] x [2, 3], t in [0, 1], final state only, f64, rtol = atol =
//     1e-6, first step 1e-3 for both: fluxion Tsit5 and Vern7 (SIMD lanes,
//     the default, and one trajectory at a time, "-scalar") against Odeint's
//     controlled runge_kutta_dopri5 through integrate_adaptive.
//   Model C, Robertson: k = (0.04, 3e7, 1e4) * uniform(0.5, 1.5)^3, y0 =
//     (1, 0, 0), t in [0, 1e5], final state only, f64, rtol 1e-6, atol 1e-10,
//     first step 1e-6 (the peers' dt0): fluxion Rodas5P and Rosenbrock23
//     (SIMD lanes, the default, and one trajectory at a time, "-scalar")
//     against Odeint's rosenbrock4 with its controller (uBLAS vectors and an
//     analytic Jacobian).
//
// Odeint (solvers_host_odeint.cpp, a C++17 translation unit) integrates one
// trajectory after another, on one thread or over std::thread in contiguous
// ranges, as fx::host::threads hands them out.
//
// Times: wall clock (std::chrono::steady_clock) around integrating all N
// trajectories, median and minimum of 5 runs after 1 warm-up; the inputs are
// ready beforehand and every output is written, for fluxion the library's
// ensemble_result (its allocation included). steps_mean / rejected_mean are
// accepted / rejected steps a trajectory (Odeint: integrate_adaptive's count,
// and the tries counted through the right-hand side or Jacobian calls minus
// it).
//
// Errors ("err"):
//   Lorenz: max |y - y_ref| / max |y_ref| over the final states of the first
//     256 trajectories (the measure of fluxion-bench-ensemble), y_ref from
//     Odeint's runge_kutta_fehlberg78 at rtol = atol = 1e-12, a reference
//     independent of fluxion; a "check" line gives its distance from fluxion
//     Tsit5 at 1e-12.
//   Robertson: the 16 trajectories of tests/solve/data/robertson_t1e5.csv
//     (SciPy Radau at rtol 1e-12, the first 16 of the peers' seed-7 draw),
//     integrated once more by every method with the benchmark's settings;
//     per state max |y - y_ref| / max(|y_ref|, 1e-12) at t = 1e5, as
//     peers/stiff_peers.py measures ("max_rel_err_final"); err is the largest.
//
// One JSON object a line:
//   {"impl": "odeint-dopri5", "model": "lorenz", "dtype": "f64", "N": 100000, "threads": 1, "median_ms": ...}
//
// Usage: fluxion-bench-solvers-host [N_LORENZ [N_ROBERTSON]] [--threads T] [--k K_FILE] [--csv CSV]
//   N_LORENZ (default 100000), N_ROBERTSON (default 10000); 0 skips a model.
//   --threads: "all cores" (default std::thread::hardware_concurrency()).
//   --k: Robertson rate constants, N x 3 doubles trajectory-major (numpy's
//     tofile of stiff_peers.py's (N, 3) draw, as bench/run_solvers.sh writes
//     it), so that the trajectories are the peers'; otherwise drawn here.
//   --csv: the Robertson reference (default: tests/solve/data of the source
//     tree this was built from, else of the current directory).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "solvers_host_odeint.hpp"

namespace fx = fluxion;

#ifndef FLUXION_SOLVE_DATA
#  define FLUXION_SOLVE_DATA "tests/solve/data"
#endif

namespace {

// ---------------------------------------------------------------- models

constexpr fx::state<"x"> X;
constexpr fx::state<"y"> Y;
constexpr fx::state<"z"> Z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;
constexpr auto lorenz = fx::model(fx::states(X, Y, Z), fx::params(sigma, rho, beta),  //
                                  fx::d(X) = sigma * (Y - X),                         //
                                  fx::d(Y) = X * (rho - Z) - Y,                       //
                                  fx::d(Z) = X * Y - beta * Z);

constexpr fx::state<"y1"> Y1;
constexpr fx::state<"y2"> Y2;
constexpr fx::state<"y3"> Y3;
constexpr fx::param<"k1"> K1;
constexpr fx::param<"k2"> K2;
constexpr fx::param<"k3"> K3;
constexpr auto robertson = fx::model(fx::states(Y1, Y2, Y3), fx::params(K1, K2, K3),  //
                                     fx::d(Y1) = -K1 * Y1 + K3 * Y2 * Y3,             //
                                     fx::d(Y2) = K1 * Y1 - K2 * Y2 * Y2 - K3 * Y2 * Y3,  //
                                     fx::d(Y3) = K2 * Y2 * Y2);

using lorenz_m = fx::compiled<lorenz, double>;
using robertson_m = fx::compiled<robertson, double>;

// ---------------------------------------------------------------- ensembles

// N trajectories: states and parameters as rows of N values (structure of
// arrays, fluxion's fx::soa), and what a method leaves behind.
struct ensemble {
  std::size_t n = 0;
  std::vector<double> x0, p;
};
struct outcome {
  std::vector<double> final_state;  // [state][trajectory]
  std::vector<long> accepted, rejected;
  std::size_t failed = 0;
};

ensemble lorenz_inputs(std::size_t n, std::uint64_t seed) {
  ensemble e{n, std::vector<double>(3 * n), std::vector<double>(3 * n)};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> a(0.5, 1.5), s(5, 15), r(20, 30), b(2, 3);
  for (double& v : e.x0) v = a(rng);
  for (std::size_t i = 0; i < n; ++i) e.p[i] = s(rng), e.p[n + i] = r(rng), e.p[2 * n + i] = b(rng);
  return e;
}

// k: n x 3, trajectory-major.
ensemble robertson_inputs(const std::vector<double>& k, std::size_t n) {
  ensemble e{n, std::vector<double>(3 * n, 0.0), std::vector<double>(3 * n)};
  for (std::size_t i = 0; i < n; ++i) {
    e.x0[i] = 1;
    for (std::size_t j = 0; j < 3; ++j) e.p[j * n + i] = k[3 * i + j];
  }
  return e;
}

outcome from_fluxion(const fx::ensemble_result<double>& r) {
  outcome o{r.final_state, std::vector<long>(r.trajectories), std::vector<long>(r.trajectories), 0};
  for (std::size_t b = 0; b < r.trajectories; ++b) {
    o.accepted[b] = r.stats[b].accepted;
    o.rejected[b] = r.stats[b].rejected;
    o.failed += r.status[b] != fx::solve_status::success;
  }
  return o;
}

// Calls f(begin, end) on up to `threads` contiguous ranges of [0, n), one a
// thread (the calling thread takes the first).
template <class F>
void spread(std::size_t n, unsigned threads, const F& f) {
  const std::size_t per = (n + threads - 1) / std::max(threads, 1u);
  std::vector<std::thread> pool;
  for (std::size_t begin = per; begin < n; begin += per)
    pool.emplace_back([&f, begin, end = std::min(n, begin + per)] { f(begin, end); });
  f(0, std::min(n, per));
  for (auto& t : pool) t.join();
}

struct timing {
  double median_ms = 0, min_ms = 0;
};

// 1 warm-up, then 5 timed runs of `run` (all N trajectories each).
template <class Run>
timing time_runs(const Run& run) {
  run();
  std::vector<double> ms;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[2], ms[0]};
}

// ---------------------------------------------------------------- methods

fx::host::threads exec_of(unsigned threads, bool simd_lanes = true) {
  fx::host::threads e(threads);
  e.simd_lanes = simd_lanes;
  return e;
}

const fx::ode_problem<double> lorenz_problem{.t0 = 0, .t1 = 1, .rtol = 1e-6, .atol = 1e-6, .initial_step = 1e-3};
const fx::ode_problem<double> robertson_problem{
    .t0 = 0, .t1 = 1e5, .rtol = 1e-6, .atol = 1e-10, .initial_step = 1e-6};

template <class M, class Method>
fx::ensemble_result<double> fluxion_run(const ensemble& e, Method method, const fx::ode_problem<double>& pr,
                                        fx::host::threads exec) {
  return fx::host::integrate(M{}, method, pr, e.n, fx::soa(std::span<const double>(e.x0)),
                             fx::soa(std::span<const double>(e.p)), exec);
}

// fluxion timed as a user calls it: the result is the library's own, turned
// into an outcome after the clock stops.
template <class M, class Method>
outcome fluxion_timed(const ensemble& e, Method method, const fx::ode_problem<double>& pr, fx::host::threads exec,
                      timing& t) {
  fx::ensemble_result<double> r;
  t = time_runs([&] { r = fluxion_run<M>(e, method, pr, exec); });
  return from_fluxion(r);
}

// Odeint over all trajectories of `e` on `threads` threads: one
// solve(u0, p, y_final) call a trajectory, returning odeint_peer::steps.
template <class Solve>
outcome odeint_run(const ensemble& e, unsigned threads, const Solve& solve) {
  const std::size_t n = e.n;
  outcome o{std::vector<double>(3 * n), std::vector<long>(n), std::vector<long>(n), 0};
  std::vector<char> ok(n);
  spread(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const double x0[3] = {e.x0[b], e.x0[n + b], e.x0[2 * n + b]};
      const double p[3] = {e.p[b], e.p[n + b], e.p[2 * n + b]};
      double y[3];
      const odeint_peer::steps s = solve(x0, p, y);
      o.accepted[b] = s.accepted;
      o.rejected[b] = s.rejected;
      ok[b] = s.ok;
      for (std::size_t i = 0; i < 3; ++i) o.final_state[i * n + b] = y[i];
    }
  });
  for (char v : ok) o.failed += !v;
  return o;
}

// ---------------------------------------------------------------- errors and output

// Largest |y - ref| over the first R trajectories, relative to the largest |ref|.
double scaled_error(const outcome& o, std::size_t n, const std::vector<double>& ref, std::size_t R) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t b = 0; b < R; ++b) {
      const double e = std::abs(o.final_state[i * n + b] - ref[i * R + b]);
      err = std::max(err, std::isnan(e) ? INFINITY : e);
      scale = std::max(scale, std::abs(ref[i * R + b]));
    }
  return err / scale;
}

// The Robertson reference: 16 rate-constant sets and their states at t = 1e5.
struct stiff_reference {
  std::vector<double> k;       // 16 x 3, trajectory-major
  std::vector<double> final_;  // [state][trajectory]
  std::size_t n = 0;
};

stiff_reference read_csv_reference(const std::string& path) {
  std::ifstream in(path);
  stiff_reference r;
  if (!in) return r;
  std::string line;
  std::getline(in, line);  // trajectory,k1,k2,k3,t,y1,y2,y3
  std::vector<std::array<double, 8>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::array<double, 8> v{};
    std::stringstream ss(line);
    std::string cell;
    for (double& x : v) {
      if (!std::getline(ss, cell, ',')) throw std::runtime_error("short line in " + path);
      x = std::stod(cell);
    }
    rows.push_back(v);
  }
  // Each trajectory's last row is its latest save time, t = 1e5.
  std::vector<std::array<double, 8>> last;
  for (const auto& v : rows) {
    if (last.empty() || last.back()[0] != v[0]) last.push_back(v);
    else if (v[4] > last.back()[4]) last.back() = v;
  }
  r.n = last.size();
  r.final_.resize(3 * r.n);
  for (std::size_t b = 0; b < r.n; ++b) {
    if (last[b][4] != 1e5) throw std::runtime_error(path + ": a trajectory does not end at t = 1e5");
    for (std::size_t j = 0; j < 3; ++j) r.k.push_back(last[b][1 + j]), r.final_[j * r.n + b] = last[b][5 + j];
  }
  return r;
}

std::array<double, 3> relative_error_final(const outcome& o, const stiff_reference& ref) {
  std::array<double, 3> err{0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t b = 0; b < ref.n; ++b) {
      const double want = ref.final_[i * ref.n + b];
      const double e = std::abs(o.final_state[i * ref.n + b] - want) / std::max(std::abs(want), 1e-12);
      err[i] = std::max(err[i], std::isnan(e) ? INFINITY : e);
    }
  return err;
}

// A JSON number, or null where there is none (no reference, a failed trajectory).
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void print_row(const char* impl, const char* model, std::size_t n, unsigned threads, const fx::ode_problem<double>& pr,
               const timing& t, const outcome& o, double err, const std::array<double, 3>* err3 = nullptr) {
  double acc = 0, rej = 0;
  for (std::size_t b = 0; b < n; ++b) acc += double(o.accepted[b]), rej += double(o.rejected[b]);
  std::printf(
      "{\"impl\": \"%s\", \"model\": \"%s\", \"dtype\": \"f64\", \"N\": %zu, \"mode\": \"final\", \"threads\": %u, "
      "\"rtol\": %g, \"atol\": %g, \"median_ms\": %.4f, \"min_ms\": %.4f, \"traj_per_s\": %.4g, "
      "\"steps_mean\": %.2f, \"rejected_mean\": %.2f, \"failed\": %zu, \"err\": %s",
      impl, model, n, threads, pr.rtol, pr.atol, t.median_ms, t.min_ms, double(n) / (t.median_ms * 1e-3),
      acc / double(n), rej / double(n), o.failed, json_number(err).c_str());
  if (err3)
    std::printf(", \"max_rel_err_final\": [%s, %s, %s]", json_number((*err3)[0]).c_str(),
                json_number((*err3)[1]).c_str(), json_number((*err3)[2]).c_str());
  std::printf("}\n");
  std::fflush(stdout);
}

std::vector<unsigned> thread_counts(unsigned all) {
  return all > 1 ? std::vector<unsigned>{1, all} : std::vector<unsigned>{1};
}

// ---------------------------------------------------------------- the two models

void bench_lorenz(std::size_t n, unsigned all) {
  const ensemble e = lorenz_inputs(n, 3);
  // The reference: the first R trajectories by Fehlberg 7(8) at 1e-12.
  const std::size_t R = std::min<std::size_t>(256, n);
  ensemble first{R, std::vector<double>(3 * R), std::vector<double>(3 * R)};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t b = 0; b < R; ++b) first.x0[i * R + b] = e.x0[i * n + b], first.p[i * R + b] = e.p[i * n + b];
  const outcome ref = odeint_run(first, 1, [](const double* u0, const double* p, double* y) {
    return odeint_peer::lorenz_fehlberg78(u0, p, 1e-12, y);
  });
  {
    fx::ode_problem<double> tight = lorenz_problem;
    tight.rtol = tight.atol = 1e-12;
    const outcome own = from_fluxion(fluxion_run<lorenz_m>(first, fx::tsit5{}, tight, exec_of(1)));
    std::printf("{\"check\": \"lorenz_reference\", \"reference\": \"odeint-rkf78 rtol=atol=1e-12\", \"N\": %zu, "
                "\"fluxion_tsit5_1e-12_err\": %s}\n",
                R, json_number(scaled_error(own, R, ref.final_state, R)).c_str());
  }
  for (unsigned th : thread_counts(all)) {
    for (bool lanes : {true, false}) {
      timing t;
      const outcome o = fluxion_timed<lorenz_m>(e, fx::tsit5{}, lorenz_problem, exec_of(th, lanes), t);
      print_row(lanes ? "fluxion-host-tsit5" : "fluxion-host-tsit5-scalar", "lorenz", n, th, lorenz_problem, t, o,
                scaled_error(o, n, ref.final_state, R));
    }
    for (bool lanes : {true, false}) {
      timing t;
      const outcome o = fluxion_timed<lorenz_m>(e, fx::vern7{}, lorenz_problem, exec_of(th, lanes), t);
      print_row(lanes ? "fluxion-host-vern7" : "fluxion-host-vern7-scalar", "lorenz", n, th, lorenz_problem, t, o,
                scaled_error(o, n, ref.final_state, R));
    }
    outcome o;
    const timing t = time_runs([&] {
      o = odeint_run(e, th, [](const double* u0, const double* p, double* y) {
        return odeint_peer::lorenz_dopri5(u0, p, 1e-6, y);
      });
    });
    print_row("odeint-dopri5", "lorenz", n, th, lorenz_problem, t, o, scaled_error(o, n, ref.final_state, R));
  }
}

void bench_robertson(std::size_t n, unsigned all, const std::vector<double>& k, const stiff_reference& ref) {
  const ensemble e = robertson_inputs(k, n);
  const ensemble reference_inputs = robertson_inputs(ref.k, ref.n);
  const double atol = robertson_problem.atol, rtol = robertson_problem.rtol;
  const auto errors = [&](const outcome& o) {
    std::array<double, 3> err{NAN, NAN, NAN};
    if (ref.n) err = relative_error_final(o, ref);
    return err;
  };
  const auto worst = [](const std::array<double, 3>& e) { return std::max({e[0], e[1], e[2]}); };

  const auto odeint_all = [&](const ensemble& in, unsigned th) {
    return odeint_run(in, th, [&](const double*, const double* k, double* y) {
      return odeint_peer::robertson_rosenbrock4(k, atol, rtol, y);
    });
  };
  const auto err_rodas =
      errors(from_fluxion(fluxion_run<robertson_m>(reference_inputs, fx::rodas5p{}, robertson_problem, exec_of(1))));
  const auto err_ros23 = errors(
      from_fluxion(fluxion_run<robertson_m>(reference_inputs, fx::rosenbrock23{}, robertson_problem, exec_of(1))));
  const auto err_odeint = errors(odeint_all(reference_inputs, 1));
  for (unsigned th : thread_counts(all)) {
    timing t;
    outcome o;
    for (bool lanes : {true, false}) {
      o = fluxion_timed<robertson_m>(e, fx::rodas5p{}, robertson_problem, exec_of(th, lanes), t);
      print_row(lanes ? "fluxion-host-rodas5p" : "fluxion-host-rodas5p-scalar", "robertson", n, th, robertson_problem, t,
                o, worst(err_rodas), &err_rodas);
      o = fluxion_timed<robertson_m>(e, fx::rosenbrock23{}, robertson_problem, exec_of(th, lanes), t);
      print_row(lanes ? "fluxion-host-rosenbrock23" : "fluxion-host-rosenbrock23-scalar", "robertson", n, th,
                robertson_problem, t, o, worst(err_ros23), &err_ros23);
    }
    t = time_runs([&] { o = odeint_all(e, th); });
    print_row("odeint-rosenbrock4", "robertson", n, th, robertson_problem, t, o, worst(err_odeint), &err_odeint);
  }
}

std::vector<double> read_k_file(const std::string& path, std::size_t n) {
  std::ifstream f(path, std::ios::binary);
  std::vector<double> k(3 * n);
  if (!f.read(reinterpret_cast<char*>(k.data()), std::streamsize(k.size() * sizeof(double)))) {
    std::fprintf(stderr, "%s: fewer than %zu trajectories (N x 3 doubles)\n", path.c_str(), n);
    std::exit(2);
  }
  return k;
}

std::vector<double> draw_k(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const double base[3] = {0.04, 3e7, 1e4};
  std::vector<double> k(3 * n);
  for (std::size_t i = 0; i < 3 * n; ++i) k[i] = base[i % 3] * u(rng);
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t sizes[2] = {100000, 10000};
  int positional = 0;
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  std::string k_file, csv = std::string(FLUXION_SOLVE_DATA) + "/robertson_t1e5.csv";
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--threads" && a + 1 < argc) all = unsigned(std::max(1l, std::strtol(argv[++a], nullptr, 10)));
    else if (arg == "--k" && a + 1 < argc) k_file = argv[++a];
    else if (arg == "--csv" && a + 1 < argc) csv = argv[++a];
    else if (arg[0] != '-' && positional < 2) sizes[positional++] = std::strtoull(arg.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr,
                   "usage: fluxion-bench-solvers-host [N_LORENZ [N_ROBERTSON]] [--threads T] [--k K_FILE] "
                   "[--csv CSV]\n");
      return 2;
    }
  }
  if (sizes[0]) bench_lorenz(sizes[0], all);
  if (sizes[1]) {
    const stiff_reference ref = read_csv_reference(csv);
    if (!ref.n) std::fprintf(stderr, "cannot read %s: Robertson errors are left null\n", csv.c_str());
    bench_robertson(sizes[1], all, k_file.empty() ? draw_k(sizes[1], 7) : read_k_file(k_file, sizes[1]), ref);
  }
}
