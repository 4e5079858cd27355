// How far apart the SEIR bench's trajectories run (bench/seir_bench.hpp's
// parameter sets, Tsit5 in double, rtol 1e-6, atol 1e-4, as
// bench/seir_log_density.cu integrates them on the GPU): accepted steps per
// trajectory, and within each warp of 32 consecutive trajectories their
// spread and the share of lane-steps that do work (a warp runs as many
// steps as its longest lane), as launched and with the trajectories sorted
// by their step counts first (what a backward pass, which knows them, could
// do). One JSON line:
//   fluxion-bench-seir-steps [N]     (default 100000 parameter sets)
#include <cstdlib>

#include "seir_bench.hpp"

namespace {

namespace fx = fluxion;

struct warp_figures {
  double mean_spread = 0, busy = 0;
};

warp_figures by_warps(const std::vector<long>& steps) {
  const std::size_t warps = steps.size() / 32;
  double spread = 0, work = 0, held = 0;
  for (std::size_t w = 0; w < warps; ++w) {
    const auto first = steps.begin() + std::ptrdiff_t(w * 32), last = first + 32;
    const long lo = *std::min_element(first, last), hi = *std::max_element(first, last);
    spread += double(hi - lo);
    held += 32.0 * double(hi);
    for (auto s = first; s != last; ++s) work += double(*s);
  }
  return {spread / double(warps), work / held};
}

}  // namespace

int main(int argc, char** argv) {
  using M = fx::compiled<seir::model, double>;
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  if (n < 32) {
    std::fprintf(stderr, "fluxion-bench-seir-steps: N must be at least 32\n");
    return 2;
  }
  std::vector<double> x0, p;
  seir_bench::parameter_sets(n, x0, p);
  const auto ts = seir::save_times<double>();
  const auto r = fx::host::integrate(M{}, fx::tsit5{}, seir::problem<double>(ts, 1e-6, 1e-4), n,
                                     fx::soa(std::span<const double>(x0)), fx::soa(std::span<const double>(p)));
  std::vector<long> steps(n);
  double sum = 0;
  for (std::size_t b = 0; b < n; ++b) sum += double(steps[b] = long(r.stats[b].accepted));
  const warp_figures launched = by_warps(steps);
  std::sort(steps.begin(), steps.end());
  const warp_figures sorted = by_warps(steps);
  std::printf("{\"what\": \"seir_accepted_steps\", \"N\": %zu, \"mean\": %.2f, \"min\": %ld, \"max\": %ld, "
              "\"warp_spread\": %.2f, \"warp_busy\": %.4f, \"sorted_warp_spread\": %.2f, \"sorted_warp_busy\": %.4f}\n",
              n, sum / double(n), steps.front(), steps.back(), launched.mean_spread, launched.busy, sorted.mean_spread,
              sorted.busy);
}
