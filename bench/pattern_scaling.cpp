// The run-time Jacobian pattern (fx::jacobian_pattern) of a Brusselator line
// (two states per cell, zero-flux ends written with conditions on indices)
// for N = 2048 .. 32768 cells: seconds to compute it (median of 5) and its
// size. The walk visits only the columns a row's derivative can reach, so
// the time grows with nnz (3N - 2 per species block plus 2N couplings), not
// with N^2. One JSON object per line:
//   {"bench": "jacobian_pattern", "model": "brusselator_line", "N": 32768, "rows": 65536, "nnz": ..., "seconds": ...}
// Usage: fluxion-bench-pattern
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace {

template <int N>
struct line {
  using cell = fx::index<"cell", N>;
  static constexpr fx::ivar<cell, 0, "i"> i{};
  static constexpr fx::state<"u", cell> u{};
  static constexpr fx::state<"v", cell> v{};
  static constexpr fx::param<"A"> A{};
  static constexpr fx::param<"B"> B{};
  static constexpr fx::param<"D"> D{};
  static constexpr auto zero_flux(auto w) {
    return fx::where(i > 0, w(i - 1) - w(i), 0) + fx::where(i < N - 1, w(i + 1) - w(i), 0);
  }
  static constexpr auto model = fx::model(
      fx::states(u, v), fx::params(A, B, D),
      fx::d(u(i)) = A + u(i) * u(i) * v(i) - (B + 1) * u(i) + D * zero_flux(u),
      fx::d(v(i)) = B * u(i) - u(i) * u(i) * v(i) + D * zero_flux(v));
  using M = fx::compiled<model, double>;
};

template <int N>
void run() {
  using M = typename line<N>::M;
  std::vector<double> seconds;
  std::size_t nnz = 0;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto pattern = fx::jacobian_pattern<M, M::jacobian::x>();
    const auto t1 = std::chrono::steady_clock::now();
    nnz = pattern.nnz();
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf(
      "{\"bench\": \"jacobian_pattern\", \"model\": \"brusselator_line\", \"N\": %d, \"rows\": %zu, \"nnz\": %zu, "
      "\"seconds\": %.6f}\n",
      N, M::n_states, nnz, seconds[2]);
}

}  // namespace

int main() {
  run<2048>();
  run<8192>();
  run<32768>();
}
