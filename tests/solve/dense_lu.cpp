// The small dense LU of the Rosenbrock steps (solve/dense_lu.hpp), both
// forms (unrolled with conditional exchanges up to order 8, recorded pivots
// above), against matrices whose solution is known: A x = b with x chosen
// and b = A x computed here, for random matrices, matrices that need row
// exchanges (a zero leading entry, permutations), and a singular matrix.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <random>

using Catch::Matchers::WithinAbs;

namespace {

template <int N>
void check_random(std::mt19937_64& rng, bool permuted) {
  std::uniform_real_distribution<double> u(-1, 1);
  fluxion::detail::dense_lu<double, N> lu;
  double A[N][N], x[N], b[N];
  for (int r = 0; r < N; ++r) {
    x[r] = u(rng);
    for (int c = 0; c < N; ++c) A[r][c] = u(rng) + (r == c ? 0.1 : 0.0);
  }
  if (permuted)  // a permutation matrix times a well-conditioned one: every column needs an exchange
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c) A[r][c] = (c == (r + 1) % N ? 4.0 : 0.0) + 0.1 * u(rng);
  for (int r = 0; r < N; ++r) {
    b[r] = 0;
    for (int c = 0; c < N; ++c) {
      b[r] += A[r][c] * x[c];
      lu.a[r][c] = A[r][c];
    }
  }
  REQUIRE(lu.factor());
  lu.solve(b);
  double scale = 0;
  for (int r = 0; r < N; ++r) scale = std::max(scale, std::abs(x[r]));
  for (int r = 0; r < N; ++r) CHECK_THAT(b[r], WithinAbs(x[r], 1e-9 * (1 + scale)));
}

}  // namespace

TEST_CASE("dense LU solves known systems, unrolled and with recorded pivots") {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 50; ++trial) {
    const bool permuted = trial % 2 == 1;
    check_random<1>(rng, permuted);
    check_random<2>(rng, permuted);
    check_random<3>(rng, permuted);
    check_random<5>(rng, permuted);
    check_random<8>(rng, permuted);   // the largest unrolled order
    check_random<9>(rng, permuted);   // the smallest with recorded pivots
    check_random<24>(rng, permuted);
  }
}

TEST_CASE("a zero leading entry needs an exchange; a singular matrix is reported") {
  fluxion::detail::dense_lu<double, 3> lu{};
  const double A[3][3] = {{0, 2, 1}, {1, 0, 0}, {0, 0, 3}};  // x = (1, 2, 3) gives b = (7, 1, 9)
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) lu.a[r][c] = A[r][c];
  REQUIRE(lu.factor());
  double b[3] = {7, 1, 9};
  lu.solve(b);
  CHECK_THAT(b[0], WithinAbs(1, 1e-15));
  CHECK_THAT(b[1], WithinAbs(2, 1e-15));
  CHECK_THAT(b[2], WithinAbs(3, 1e-15));
  fluxion::detail::dense_lu<double, 3> singular{};
  const double S[3][3] = {{1, 2, 3}, {2, 4, 6}, {0, 1, 1}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) singular.a[r][c] = S[r][c];
  CHECK_FALSE(singular.factor());
  fluxion::detail::dense_lu<double, 12> singular12{};
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 12; ++c) singular12.a[r][c] = (r == 5 ? 2.0 * (c + 1) : (r == 7 ? 1.0 * (c + 1) : (r == c)));
  CHECK_FALSE(singular12.factor());
}
