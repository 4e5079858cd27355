// The sparse LU of a pattern known at compile time (solve/sparse_lu.hpp)
// against oracles written here: the residual of W x = b by a plain dense
// multiply, x against dense Gaussian elimination with partial pivoting, and
// the order's fill-in and work against a structural elimination of the
// pattern in that order. Patterns: tridiagonal, block-diagonal, the ring of
// compartments' stage coupling, an arrow, and random patterns made at
// compile time from seeds.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/compile/sparsity.hpp>
#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/sparse_lu.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using fluxion::detail::sparse_lu;

namespace {

// A static_csr_pattern of N rows from a predicate depends(r, c); Nnz must be
// count_entries<N>(depends).
template <std::size_t N, class Depends>
constexpr std::size_t count_entries(Depends depends) {
  std::size_t nnz = 0;
  for (int r = 0; r < static_cast<int>(N); ++r)
    for (int c = 0; c < static_cast<int>(N); ++c) nnz += depends(r, c);
  return nnz;
}
template <std::size_t N, std::size_t Nnz, class Depends>
constexpr auto make_pattern(Depends depends) {
  fluxion::static_csr_pattern<N, Nnz> p;
  int e = 0;
  for (int r = 0; r < static_cast<int>(N); ++r) {
    p.row_ptr[r] = e;
    for (int c = 0; c < static_cast<int>(N); ++c)
      if (depends(r, c)) p.col_idx[e++] = c;
  }
  p.row_ptr[N] = e;
  return p;
}
#define PATTERN(N, DEPENDS) make_pattern<N, count_entries<N>(DEPENDS)>(DEPENDS)

constexpr auto tridiagonal_depends = [](int r, int c) { return r - c <= 1 && c - r <= 1; };
constexpr auto tridiagonal = PATTERN(10, tridiagonal_depends);

constexpr auto blocks_depends = [](int r, int c) { return r / 5 == c / 5; };  // 3 dense blocks of 5
constexpr auto blocks = PATTERN(15, blocks_depends);

// 3 compartments x 5 stages: (c, k) at 5c + k depends on itself, on (c, k - 1)
// and on ((c - 1) mod 3, k).
constexpr auto stages_depends = [](int r, int c) {
  const int rc = r / 5, rk = r % 5, cc = c / 5, ck = c % 5;
  return r == c || (cc == rc && ck == rk - 1) || (ck == rk && cc == (rc + 2) % 3);
};
constexpr auto stages = PATTERN(15, stages_depends);

// A hub (index 0) coupled with every other state, which couple with nothing else.
constexpr auto arrow_depends = [](int r, int c) { return r == 0 || c == 0 || r == c; };
constexpr auto arrow = PATTERN(12, arrow_depends);

// Random patterns: N in 4..24 and a density of 5..44 % from a seed, each
// entry then drawn in turn (the diagonal too: W adds it anyway).
struct random_structure {
  int n = 0;
  bool present[24][24] = {};
};
constexpr random_structure random_structure_of(std::uint64_t seed) {
  random_structure s;
  std::uint64_t x = seed;
  const auto next = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    return static_cast<int>(x >> 33);
  };
  for (int warm_up = 0; warm_up < 4; ++warm_up) next();
  s.n = 4 + next() % 21;
  const int percent = 5 + next() % 40;
  for (int r = 0; r < s.n; ++r)
    for (int c = 0; c < s.n; ++c) s.present[r][c] = next() % 100 < percent;
  return s;
}
template <std::uint64_t Seed>
constexpr auto random_pattern() {
  constexpr random_structure s = random_structure_of(Seed);
  constexpr auto depends = [s](int r, int c) { return s.present[r][c]; };
  return PATTERN(static_cast<std::size_t>(s.n), depends);
}

template <auto Pattern>
bool in_pattern(int r, int c) {
  for (int e = Pattern.row_ptr[r]; e < Pattern.row_ptr[r + 1]; ++e)
    if (Pattern.col_idx[e] == c) return true;
  return false;
}

// Dense Gaussian elimination with partial pivoting: x with A x = b.
std::vector<double> dense_solve(std::vector<double> A, std::vector<double> b) {
  const int n = static_cast<int>(b.size());
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(A[r * n + c]) > std::abs(A[p * n + c])) p = r;
    for (int k = 0; k < n; ++k) std::swap(A[c * n + k], A[p * n + k]);
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < n; ++r) {
      const double l = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; ++k) A[r * n + k] -= l * A[c * n + k];
      b[r] -= l * b[c];
    }
  }
  std::vector<double> x(n);
  for (int r = n - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < n; ++k) s -= A[r * n + k] * x[k];
    x[r] = s / A[r * n + r];
  }
  return x;
}

double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double e : x) m = std::max(m, std::abs(e));
  return m;
}

// The order is a permutation, and its fill-in and update count are those of
// a structural elimination of the pattern (plus the diagonal) in that order.
template <auto Pattern>
void check_symbolic() {
  using LU = sparse_lu<double, Pattern>;
  constexpr int n = static_cast<int>(Pattern.rows);
  std::vector<int> sorted(LU::order.begin(), LU::order.end());
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) REQUIRE(sorted[i] == i);
  std::vector<std::vector<bool>> nz(n, std::vector<bool>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) nz[i][j] = i == j || in_pattern<Pattern>(LU::order[i], LU::order[j]);
  std::size_t updates = 0;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i)
      for (int j = k + 1; j < n; ++j)
        if (nz[i][k] && nz[k][j]) nz[i][j] = true, ++updates;
  std::size_t filled = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) filled += nz[i][j];
  CHECK(LU::nnz_filled == filled);
  CHECK(LU::flops == updates);
}

// Random values on the pattern, W = diag I - J strictly diagonally dominant;
// factor, solve for a random b, and compare with the dense oracles. Both
// ways of assigning W give the same factors.
template <auto Pattern>
void check_solves(std::mt19937_64& rng) {
  using LU = sparse_lu<double, Pattern>;
  constexpr int n = static_cast<int>(Pattern.rows);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> J(n * n, 0.0), csr(Pattern.col_idx.size(), 0.0), b(n);
    for (int r = 0; r < n; ++r)
      for (int e = Pattern.row_ptr[r]; e < Pattern.row_ptr[r + 1]; ++e) J[r * n + Pattern.col_idx[e]] = csr[e] = u(rng);
    double row_sum = 0;
    for (int r = 0; r < n; ++r) {
      double s = 0;
      for (int c = 0; c < n; ++c) s += std::abs(J[r * n + c]);
      row_sum = std::max(row_sum, s);
    }
    const double diag = 1 + row_sum;
    for (double& e : b) e = u(rng);

    LU lu, from_csr;
    lu.assign_from_dense(diag, J.data());
    from_csr.assign_from_csr(diag, csr.data());
    for (std::size_t p = 0; p < LU::nnz_filled; ++p) REQUIRE(lu.v[p] == from_csr.v[p]);
    REQUIRE(lu.factor());
    std::vector<double> x = b;
    lu.solve(x.data());

    std::vector<double> W(n * n), residual(n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) W[r * n + c] = (r == c ? diag : 0.0) - J[r * n + c];
    for (int r = 0; r < n; ++r) {
      double s = -b[r];
      for (int c = 0; c < n; ++c) s += W[r * n + c] * x[c];
      residual[r] = s;
    }
    CHECK(max_abs(residual) <= 1e-12 * max_abs(b));
    std::vector<double> difference = dense_solve(W, b);
    const double scale = max_abs(difference);
    for (int i = 0; i < n; ++i) difference[i] -= x[i];
    CHECK(max_abs(difference) <= 1e-12 * scale);
  }
}

template <auto Pattern>
void check_pattern(std::mt19937_64& rng) {
  INFO("N = " << Pattern.rows << ", nnz = " << Pattern.row_ptr[Pattern.rows]);
  check_symbolic<Pattern>();
  check_solves<Pattern>(rng);
}

template <auto Pattern>
constexpr std::size_t nnz_with_diagonal() {
  std::size_t nnz = Pattern.rows;
  for (int r = 0; r < static_cast<int>(Pattern.rows); ++r)
    for (int e = Pattern.row_ptr[r]; e < Pattern.row_ptr[r + 1]; ++e) nnz += Pattern.col_idx[e] != r;
  return nnz;
}

}  // namespace

TEST_CASE("banded and block-diagonal patterns produce no fill-in") {
  std::mt19937_64 rng(3);
  STATIC_CHECK(sparse_lu<double, tridiagonal>::nnz_filled == nnz_with_diagonal<tridiagonal>());
  STATIC_CHECK(sparse_lu<double, blocks>::nnz_filled == nnz_with_diagonal<blocks>());
  check_pattern<tridiagonal>(rng);
  check_pattern<blocks>(rng);
}

TEST_CASE("the ring of compartments' stage pattern fills in little") {
  using LU = sparse_lu<double, stages>;
  STATIC_CHECK(LU::nnz_filled < 15 * 15);
  STATIC_CHECK(LU::flops < 14 * 15 * 29 / 6);  // dense: the sum of (N - 1 - k)^2
  std::mt19937_64 rng(5);
  check_pattern<stages>(rng);
}

TEST_CASE("minimum degree leaves an arrow's hub to the end") {
  using LU = sparse_lu<double, arrow>;
  // Each leaf has degree 1, the hub 11 until its leaves go: they go first, in
  // index order, until the hub and the last leaf remain, both of degree 1,
  // and the tie goes to the lower index, the hub's. No fill-in either way.
  STATIC_CHECK(LU::order[10] == 0);
  STATIC_CHECK(LU::order[11] == 11);
  STATIC_CHECK(LU::nnz_filled == nnz_with_diagonal<arrow>());
  STATIC_CHECK(LU::flops == 11);  // each pivot updates the one entry left on the hub's diagonal
  std::mt19937_64 rng(7);
  check_pattern<arrow>(rng);
}

TEST_CASE("random patterns made at compile time solve as dense elimination does") {
  std::mt19937_64 rng(11);
  [&rng]<std::uint64_t... Seed>(std::integer_sequence<std::uint64_t, Seed...>) {
    (check_pattern<random_pattern<Seed + 1>()>(rng), ...);
  }(std::make_integer_sequence<std::uint64_t, 20>{});
}

TEST_CASE("a zero pivot is reported") {
  using LU = sparse_lu<double, tridiagonal>;
  STATIC_CHECK(LU::order[0] == 0);
  double J[100] = {};
  for (int r = 0; r < 10; ++r)
    for (int c = 0; c < 10; ++c) J[r * 10 + c] = tridiagonal_depends(r, c) ? 0.25 : 0.0;
  LU lu;
  lu.assign_from_dense(1.0, J);
  REQUIRE(lu.factor());
  J[0] = 1.0;  // W's first pivot, in the order, is 0
  lu.assign_from_dense(1.0, J);
  CHECK_FALSE(lu.factor());

  // A pivot that becomes zero in the elimination: W's leading 2 x 2 block
  // all ones (in the order: the blocks are kept as they are).
  using Blocks = sparse_lu<double, blocks>;
  STATIC_CHECK(Blocks::order[0] == 0 && Blocks::order[1] == 1);
  double B[225] = {};
  for (int r = 0; r < 15; ++r)
    for (int c = 0; c < 15; ++c) B[r * 15 + c] = blocks_depends(r, c) ? 0.1 : 0.0;
  B[0 * 15 + 1] = B[1 * 15 + 0] = -1.0;  // W = 1 I - J: W(0, 1) = W(1, 0) = 1
  B[0] = B[1 * 15 + 1] = 0.0;            // W(0, 0) = W(1, 1) = 1
  Blocks singular;
  singular.assign_from_dense(1.0, B);
  CHECK_FALSE(singular.factor());
}

TEST_CASE("SIMD lanes factor and solve each lane's matrix as one matrix alone") {
  constexpr int W = 4, n = 15;
  using L = fluxion::lanes<double, W>;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const int singular_lane : {-1, 2}) {
    double J[W][n * n] = {}, diag[W], b[W][n];
    for (int w = 0; w < W; ++w) {
      for (int r = 0; r < n; ++r) {
        b[w][r] = u(rng);
        for (int c = 0; c < n; ++c)
          if (stages_depends(r, c)) J[w][r * n + c] = u(rng);
      }
      diag[w] = 4 + u(rng);
    }
    if (singular_lane >= 0) {  // its first pivot is 0
      const int first = sparse_lu<double, stages>::order[0];
      J[singular_lane][first * n + first] = diag[singular_lane];
    }

    L J_lanes[n * n], b_lanes[n];
    double gather[W];
    for (int i = 0; i < n * n; ++i) {
      for (int w = 0; w < W; ++w) gather[w] = J[w][i];
      J_lanes[i] = L::load(gather);
    }
    for (int i = 0; i < n; ++i) {
      for (int w = 0; w < W; ++w) gather[w] = b[w][i];
      b_lanes[i] = L::load(gather);
    }
    sparse_lu<L, stages> lanes_lu;
    lanes_lu.assign_from_dense(L::load(diag), J_lanes);
    const auto regular = lanes_lu.factor();
    lanes_lu.solve(b_lanes);

    for (int w = 0; w < W; ++w) {
      sparse_lu<double, stages> lu;
      lu.assign_from_dense(diag[w], J[w]);
      const bool scalar_regular = lu.factor();
      CHECK(regular[w] == scalar_regular);
      CHECK(scalar_regular == (w != singular_lane));
      if (!scalar_regular) continue;
      lu.solve(b[w]);
      for (int i = 0; i < n; ++i) CHECK(b_lanes[i][w] == b[w][i]);
      for (std::size_t p = 0; p < lu.nnz_filled; ++p) CHECK(lanes_lu.v[p][w] == lu.v[p]);
    }
  }
}
