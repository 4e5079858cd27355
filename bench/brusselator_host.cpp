// The sparse iteration matrix on a larger model: the Brusselator line of
// tests/support/brusselator_line.hpp (32 cells, 64 states) integrated over
// t in [0, 10] by Rodas5P and Rosenbrock23 on one host thread (rtol 1e-6,
// atol 1e-8), N trajectories (B from 3.0 in steps of 0.01). Built twice:
// fluxion-bench-brusselator factors W by the Jacobian's pattern (the
// default), fluxion-bench-brusselator-dense with FLUXION_SPARSE_LU_MAX_ORDER=0
// (dense, partial pivoting). One JSON object a method:
//   {"bench": "rodas5p", "lu": "sparse", "N": 64, "us": ..., "steps": ..., "nnz_filled": 314, "updates": 249}
// us: microseconds a trajectory, the least of 5 runs.
// Usage: fluxion-bench-brusselator[-dense] [N]     (default 64)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "support/brusselator_line.hpp"

namespace fx = fluxion;
namespace bl = brusselator_line;

namespace {

using M = fx::compiled<bl::model, double>;
using LU = fx::detail::iteration_lu<M, double>;

template <class Method, class L = LU>  // L: dependent, for the discarded branch below
void run(const char* bench, Method method, std::size_t count) {
  constexpr int m = 2 * bl::N;
  std::vector<double> x0(m * count), p(3 * count), xb(m), pb(3);
  for (std::size_t b = 0; b < count; ++b) {
    bl::initial(1.0, 3.0 + 0.01 * double(b), xb.data(), pb.data());
    for (int j = 0; j < m; ++j) x0[j * count + b] = xb[j];
    for (int j = 0; j < 3; ++j) p[j * count + b] = pb[j];
  }
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .rtol = 1e-6, .atol = 1e-8};
  double best = 1e300;
  long long steps = 0;
  bool ok = true;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = fx::host::integrate(M{}, method, pr, count, fx::soa(std::span<const double>(x0)),
                                         fx::soa(std::span<const double>(p)), fx::host::threads(1));
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / double(count));
    steps = 0;
    for (const auto& s : res.stats) steps += s.accepted + s.rejected;
    ok = res.all_succeeded();
  }
  if constexpr (fx::detail::is_sparse_lu<L>)
    std::printf("{\"bench\": \"%s\", \"lu\": \"sparse\", \"N\": %zu, \"us\": %.1f, \"steps\": %lld, \"succeeded\": %s, "
                "\"nnz_filled\": %zu, \"updates\": %zu}\n",
                bench, count, best, steps, ok ? "true" : "false", L::nnz_filled, L::flops);
  else
    std::printf("{\"bench\": \"%s\", \"lu\": \"dense\", \"N\": %zu, \"us\": %.1f, \"steps\": %lld, \"succeeded\": %s}\n",
                bench, count, best, steps, ok ? "true" : "false");
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 64;
  if (count == 0) {
    std::fprintf(stderr, "usage: fluxion-bench-brusselator[-dense] [N > 0]\n");
    return 2;
  }
  run("rodas5p", fx::rodas5p{}, count);
  run("rosenbrock23", fx::rosenbrock23{}, count);
  return 0;
}
