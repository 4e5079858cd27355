// An alias's shape declared, fx::alias<"F">(c, k)(body): its elements are read
// F(c, k) whatever order its body first reads c and k in. The body here reads
// k first (an index condition), which without the declaration shapes the
// alias (k, c), so that F(c, k) does not compile. Values, the state
// Jacobian and its pattern against a hand transcription; the same alias
// with its shape left to the body, read F(k, c), gives the same values.
#include <catch2/catch_test_macros.hpp>

#include <cmath>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace {

constexpr int C = 3, K = 4;
using comp = fx::index<"comp", C>;
using stage = fx::index<"stage", K, fx::ordered>;
constexpr fx::ivar<comp, 0, "c"> c;
constexpr fx::ivar<stage, 0, "k"> k;
constexpr fx::state<"X", comp, stage> X;
constexpr fx::param<"ktr", comp> ktr;
constexpr fx::param<"e", comp> e;

// Elimination: a saturable first stage (ktr), linear later ones (e).
constexpr auto body = fx::where(k == 0, ktr(c) * X(c, k) / (1.0 + X(c, k)), e(c) * X(c, k));
constexpr auto declared = fx::alias<"F">(c, k)(body);
constexpr auto inferred = fx::alias<"F">(body);
static_assert(std::is_same_v<typename decltype(declared)::spaces, fx::detail::type_list<comp, stage>>);
static_assert(std::is_same_v<typename decltype(inferred)::spaces, fx::detail::type_list<stage, comp>>);

constexpr auto with_declared = fx::model(fx::states(X), fx::params(ktr, e), fx::d(X(c, k)) = -declared(c, k));
constexpr auto with_inferred = fx::model(fx::states(X), fx::params(ktr, e), fx::d(X(c, k)) = -inferred(k, c));
using MD = fx::compiled<with_declared, double>;
using MI = fx::compiled<with_inferred, double>;

// By hand: X[c][k] at 4 c + k; parameters ktr[3], e[3].
double hand_rhs(const double* x, const double* p, int cc, int kk) {
  const double v = x[cc * K + kk];
  return kk == 0 ? -p[cc] * v / (1.0 + v) : -p[C + cc] * v;
}
double hand_jac(const double* x, const double* p, int row, int col) {
  if (row != col) return 0.0;
  const int cc = row / K, kk = row % K;
  const double v = x[row];
  return kk == 0 ? -p[cc] / ((1.0 + v) * (1.0 + v)) : -p[C + cc];
}

}  // namespace

TEST_CASE("an alias of declared shape is read in the declared order") {
  double x[C * K], p[2 * C] = {0.5, 1.5, 2.5, 0.1, 0.2, 0.3}, dx[C * K], di[C * K];
  for (int i = 0; i < C * K; ++i) x[i] = 0.25 + 0.5 * i;
  MD{}.rhs(0.0, x, p, dx);
  MI{}.rhs(0.0, x, p, di);
  for (int cc = 0; cc < C; ++cc)
    for (int kk = 0; kk < K; ++kk) {
      CAPTURE(cc, kk);
      CHECK(std::abs(dx[cc * K + kk] - hand_rhs(x, p, cc, kk)) <= 1e-15);
      CHECK(dx[cc * K + kk] == di[cc * K + kk]);
    }
  double J[C * K * C * K];
  MD{}.jacobian_dense<MD::jacobian::x>(0.0, x, 1, p, 1, J, 1);
  for (int r = 0; r < C * K; ++r)
    for (int q = 0; q < C * K; ++q) {
      CAPTURE(r, q);
      CHECK(std::abs(J[r * C * K + q] - hand_jac(x, p, r, q)) <= 1e-15);
    }
  const auto pattern = fx::jacobian_pattern<MD, MD::jacobian::x>();
  CHECK(pattern.nnz() == std::size_t(C * K));  // diagonal
}
