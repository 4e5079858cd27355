// Model A (tests/support/model_a.hpp, BENCHMARKS.md) derivatives on the host:
// the time per instance of rhs, jac_x dense, jac_x sparse values (CSR order)
// and jvp_x, in double and float, over a batch of B instances (AoS, one
// thread), median of R repeats (std::chrono::steady_clock); then the size
// and density of the four Jacobian patterns. A Jacobian costs about a
// thousand rhs evaluations, so the Jacobian timings use the first
// min(B, 512) instances (the "B" of each line says which) to keep the whole
// run near 10 s. One JSON object per line:
//   {"bench": "rhs", "target": "host", "dtype": "f64", "B": 4096, "repeats": 7, "ns_per_instance": ..., "nnz": ...}
// Usage: fluxion-bench-derivatives [B] [repeats]     (defaults 4096, 7)
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

volatile double sink;  // keeps results observable

template <class F>
double median_ns_per_instance(std::size_t B, int repeats, F&& run) {
  run();  // warm-up
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(B));
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

void emit(const char* bench, const char* dtype, std::size_t B, int repeats, double ns, std::size_t nnz) {
  std::printf(
      "{\"bench\": \"%s\", \"target\": \"host\", \"dtype\": \"%s\", \"B\": %zu, \"repeats\": %d, "
      "\"ns_per_instance\": %.1f, \"nnz\": %zu}\n",
      bench, dtype, B, repeats, ns, nnz);
}

template <class T>
void run_dtype(const char* dtype, std::size_t B, int repeats) {
  using M = fx::compiled<model_a::model, T>;
  constexpr std::size_t ns = M::n_states, np = M::n_params;
  const std::size_t nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();
  std::mt19937_64 rng(2024);
  std::vector<T> x(B * ns), p(B * np), v(B * ns), dx(B * ns), vals(std::min<std::size_t>(B, 512) * nnz);
  std::vector<T> J(ns * ns);  // dense: one instance's matrix, reused (128 x 128 x B would not fit in cache)
  for (std::size_t b = 0; b < B; ++b) model_a::random_instance(rng, x.data() + b * ns, p.data() + b * np);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& e : v) e = T(u(rng));
  const T t = T(0);
  const M m{};

  const double t_rhs = median_ns_per_instance(B, repeats, [&] {
    for (std::size_t b = 0; b < B; ++b) m.rhs(t, x.data() + b * ns, p.data() + b * np, dx.data() + b * ns);
    sink = double(dx[B * ns - 1]);
  });
  emit("rhs", dtype, B, repeats, t_rhs, 0);

  const std::size_t BJ = std::min<std::size_t>(B, 512);
  const double t_dense = median_ns_per_instance(BJ, repeats, [&] {
    double acc = 0;
    for (std::size_t b = 0; b < BJ; ++b) {
      m.jac_x(t, x.data() + b * ns, p.data() + b * np, J.data());
      acc += double(J[b % (ns * ns)]);
    }
    sink = acc;
  });
  emit("jac_x_dense", dtype, BJ, repeats, t_dense, nnz);

  const double t_values = median_ns_per_instance(BJ, repeats, [&] {
    for (std::size_t b = 0; b < BJ; ++b) m.jac_x_values(t, x.data() + b * ns, p.data() + b * np, vals.data() + b * nnz);
    sink = double(vals[BJ * nnz - 1]);
  });
  emit("jac_x_sparse_values", dtype, BJ, repeats, t_values, nnz);

  const double t_jvp = median_ns_per_instance(B, repeats, [&] {
    for (std::size_t b = 0; b < B; ++b)
      m.jvp_x(t, x.data() + b * ns, p.data() + b * np, v.data() + b * ns, dx.data() + b * ns);
    sink = double(dx[B * ns - 1]);
  });
  emit("jvp_x", dtype, B, repeats, t_jvp, 0);
}

template <class M, typename M::jacobian J>
void emit_pattern(const char* name) {
  const auto pat = fx::jacobian_pattern<M, J>();
  const double entries = double(pat.rows * pat.columns);
  std::printf(
      "{\"bench\": \"pattern\", \"target\": \"host\", \"jacobian\": \"%s\", \"rows\": %zu, \"columns\": %zu, "
      "\"nnz\": %zu, \"density\": %.4f}\n",
      name, pat.rows, pat.columns, pat.nnz(), double(pat.nnz()) / entries);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t B = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  if (B == 0 || repeats < 1) {
    std::fprintf(stderr, "usage: fluxion-bench-derivatives [B > 0] [repeats >= 1]\n");
    return 2;
  }
  run_dtype<double>("f64", B, repeats);
  run_dtype<float>("f32", B, repeats);
  using M = fx::compiled<model_a::model, double>;
  emit_pattern<M, M::jacobian::x>("jac_x");
  emit_pattern<M, M::jacobian::p>("jac_p");
  emit_pattern<M, M::jacobian::obs_x>("obs_jac_x");
  emit_pattern<M, M::jacobian::obs_p>("obs_jac_p");
  return 0;
}
