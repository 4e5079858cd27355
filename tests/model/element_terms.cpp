// Terms for one element or a range of an index space, written with
// conditions on indices (issue 14, section 2): recruitment into stage 0,
// crowding at one stage, infection of adults only, zero-flux and periodic
// ends of a line. Each model is checked against its right-hand side written
// out by hand, its Jacobian against central differences of that hand-written
// function, and its Jacobian pattern against the entries the differences
// find non-zero (no condition here reads a value, so the pattern is exact:
// an absent term adds no entry). A condition mixing indices and values is
// checked through SIMD batches bit for bit against one instance at a time.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;

namespace {

using entries = std::set<std::pair<int, int>>;

entries pattern_entries(const fx::csr_pattern& p) {
  entries out;
  for (std::size_t r = 0; r < p.rows; ++r)
    for (int k = p.row_ptr[r]; k < p.row_ptr[r + 1]; ++k) out.insert({int(r), p.col_idx[k]});
  return out;
}

using rhs_fn = std::function<std::vector<double>(const std::vector<double>&, const std::vector<double>&)>;

// Checks rhs, jac_x, jac_p and both patterns of M against the hand-written f
// at a few random points (states and parameters in [lo, hi]).
template <class M>
void check_model(const rhs_fn& f, double lo = 0.2, double hi = 1.5) {
  constexpr int n = int(M::n_states), np = int(M::n_params);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(lo, hi);
  entries found_x, found_p;
  for (int point = 0; point < 4; ++point) {
    std::vector<double> x(n), p(np), dx(n), Jx(n * n), Jp(n * np);
    for (auto& v : x) v = u(rng);
    for (auto& v : p) v = u(rng);
    M{}.rhs(0.0, x.data(), p.data(), dx.data());
    const auto want = f(x, p);
    for (int r = 0; r < n; ++r) CHECK_THAT(dx[r], WithinAbs(want[r], 1e-12 * (1 + std::abs(want[r]))));
    M{}.jac_x(0.0, x.data(), p.data(), Jx.data());
    M{}.jac_p(0.0, x.data(), p.data(), Jp.data());
    auto differences = [&](std::vector<double>& v, int columns, const std::vector<double>& J, entries& found) {
      for (int c = 0; c < columns; ++c) {
        const double keep = v[c], h = 1e-6 * (1 + std::abs(keep));
        v[c] = keep + h;
        const auto up = f(x, p);
        v[c] = keep - h;
        const auto down = f(x, p);
        v[c] = keep;
        for (int r = 0; r < n; ++r) {
          const double fd = (up[r] - down[r]) / (2 * h);
          INFO("entry (" << r << ", " << c << ")");
          CHECK_THAT(J[r * columns + c], WithinAbs(fd, 1e-6 * (1 + std::abs(fd))));
          if (std::abs(fd) > 1e-9) found.insert({r, c});
        }
      }
    };
    differences(x, n, Jx, found_x);
    differences(p, np, Jp, found_p);
  }
  CHECK(pattern_entries(fx::jacobian_pattern<M, M::jacobian::x>()) == found_x);
  CHECK(pattern_entries(fx::jacobian_pattern<M, M::jacobian::p>()) == found_p);
}

// --- stage terms: recruitment, crowding at one stage, infection of adults only ---------------------
constexpr int K = 5;
using stage = fx::index<"stage", K, fx::ordered>;
constexpr fx::ivar<stage, 0, "k"> k;
constexpr fx::ivar<stage, 1, "m"> m;
constexpr fx::state<"M", stage> Mq;  // mosquitoes by stage
constexpr fx::state<"H"> H;          // infectious hosts
constexpr fx::param<"birth"> birth;
constexpr fx::param<"crowd"> crowd;
constexpr fx::param<"bite"> bite;
constexpr fx::param<"dev", stage> dev;

constexpr auto adults = fx::alias<"adults">(fx::sum(m, fx::where(m >= 3, Mq(m), 0)));
constexpr auto stages = fx::model(
    fx::states(Mq, H), fx::params(birth, crowd, bite, dev),
    fx::d(Mq(k)) = fx::where(k == 0, birth * adults, 0)                  // recruitment into stage 0
                   - fx::where(k == 1, crowd * Mq(k) * Mq(k), 0)         // crowding of stage 1 only
                   - fx::where(k >= 3 && k <= K - 1, bite * H * Mq(k), 0),  // adults (stages 3, 4) bite
    fx::d(H) = bite * H * adults - H,
    fx::transport<stage>(dev(k), Mq));

std::vector<double> stages_by_hand(const std::vector<double>& x, const std::vector<double>& p) {
  const double b = p[0], c = p[1], a = p[2];
  const double* d = &p[3];
  const double h = x[K];
  const double ad = x[3] + x[4];
  std::vector<double> out(K + 1);
  for (int s = 0; s < K; ++s) {
    double v = 0;
    if (s == 0) v += b * ad;
    if (s == 1) v -= c * x[s] * x[s];
    if (s >= 3) v -= a * h * x[s];
    if (s + 1 < K) v -= d[s] * x[s];
    if (s > 0) v += d[s - 1] * x[s - 1];
    out[s] = v;
  }
  out[K] = a * h * ad - h;
  return out;
}

// --- a line with zero-flux and periodic ends (Brusselator) ---------------------------------------------
constexpr int N = 9;
using cell = fx::index<"cell", N>;
constexpr fx::ivar<cell, 0, "i"> i;
constexpr fx::state<"u", cell> U;
constexpr fx::state<"v", cell> V;
constexpr fx::param<"A"> A;
constexpr fx::param<"Bc"> Bc;
constexpr fx::param<"D"> D;

// Zero flux: no exchange across the ends (the missing neighbour's term is absent).
constexpr auto zero_flux = [](auto w) {
  return fx::where(i > 0, w(i - 1) - w(i), 0) + fx::where(i < N - 1, w(i + 1) - w(i), 0);
};
// Periodic: the first cell's left neighbour is the last cell, and back.
constexpr auto periodic = [](auto w) {
  return fx::where(i > 0, w(i - 1), w(N - 1)) + fx::where(i < N - 1, w(i + 1), w(0)) - 2 * w(i);
};

template <auto Laplacian>
constexpr auto brusselator = fx::model(
    fx::states(U, V), fx::params(A, Bc, D),
    fx::d(U(i)) = A + U(i) * U(i) * V(i) - (Bc + 1) * U(i) + D * Laplacian(U),
    fx::d(V(i)) = Bc * U(i) - U(i) * U(i) * V(i) + D * Laplacian(V));

std::vector<double> brusselator_by_hand(const std::vector<double>& x, const std::vector<double>& p, bool periodic_ends) {
  const double a = p[0], b = p[1], d = p[2];
  const double* u = x.data();
  const double* v = x.data() + N;
  auto lap = [&](const double* w, int c) {
    if (periodic_ends) return w[(c + N - 1) % N] + w[(c + 1) % N] - 2 * w[c];
    double s = 0;
    if (c > 0) s += w[c - 1] - w[c];
    if (c < N - 1) s += w[c + 1] - w[c];
    return s;
  };
  std::vector<double> out(2 * N);
  for (int c = 0; c < N; ++c) {
    out[c] = a + u[c] * u[c] * v[c] - (b + 1) * u[c] + d * lap(u, c);
    out[N + c] = b * u[c] - u[c] * u[c] * v[c] + d * lap(v, c);
  }
  return out;
}

// --- a coupling that skips the diagonal: p != q -------------------------------------------------------
using patch = fx::index<"patch", 4>;
constexpr fx::ivar<patch, 0, "p"> pp;
constexpr fx::ivar<patch, 1, "q"> qq;
constexpr fx::state<"I", patch> I;
constexpr fx::param<"C", patch, patch> C;
constexpr auto off_diagonal = fx::model(fx::states(I), fx::params(C),
                                        fx::d(I(pp)) = fx::sum(qq, fx::where(pp != qq, C(pp, qq) * I(qq), 0)) - I(pp));

std::vector<double> off_diagonal_by_hand(const std::vector<double>& x, const std::vector<double>& p) {
  std::vector<double> out(4);
  for (int a = 0; a < 4; ++a) {
    double s = 0;
    for (int b = 0; b < 4; ++b)
      if (a != b) s += p[a * 4 + b] * x[b];
    out[a] = s - x[a];
  }
  return out;
}

// --- an index condition together with a condition on values (SIMD lanes) -----------------------
constexpr auto mixed = fx::model(fx::states(U), fx::params(A),
                                 fx::d(U(i)) = fx::where(i > 0 && U(i) > A, U(i - 1), -U(i)) +
                                               fx::where(!(i == 2) || U(i) < 0.5, A * U(i), 0));

}  // namespace

TEST_CASE("stage terms: recruitment into stage 0, crowding at stage 1, adults only") {
  using M = fx::compiled<stages, double>;
  check_model<M>(stages_by_hand);
  // Recruitment reads only the adult stages, in row 0 only; crowding is on the diagonal of row 1.
  const auto jx = pattern_entries(fx::jacobian_pattern<M, M::jacobian::x>());
  CHECK(jx.count({0, 3}) == 1);
  CHECK(jx.count({0, 2}) == 0);
  CHECK(jx.count({1, 3}) == 0);
  CHECK(jx.count({2, K}) == 0);  // stage 2 is not bitten
  CHECK(jx.count({3, K}) == 1);
}

TEST_CASE("zero-flux ends: the missing neighbour adds no entry") {
  using M = fx::compiled<brusselator<zero_flux>, double>;
  check_model<M>([](const auto& x, const auto& p) { return brusselator_by_hand(x, p, false); });
  // u's block is tridiagonal: 3 N - 2 entries, plus the diagonal coupling to v.
  const auto jx = pattern_entries(fx::jacobian_pattern<M, M::jacobian::x>());
  CHECK(jx.size() == std::size_t(2 * (3 * N - 2) + 2 * N));
  CHECK(jx.count({0, N - 1}) == 0);
}

TEST_CASE("periodic ends: the first and last cells are neighbours") {
  using M = fx::compiled<brusselator<periodic>, double>;
  check_model<M>([](const auto& x, const auto& p) { return brusselator_by_hand(x, p, true); });
  const auto jx = pattern_entries(fx::jacobian_pattern<M, M::jacobian::x>());
  CHECK(jx.size() == std::size_t(2 * 3 * N + 2 * N));
  CHECK(jx.count({0, N - 1}) == 1);
  CHECK(jx.count({N - 1, 0}) == 1);
}

TEST_CASE("p != q leaves the diagonal out of the coupling") {
  using M = fx::compiled<off_diagonal, double>;
  check_model<M>(off_diagonal_by_hand);
  CHECK(fx::jacobian_text<M>(I, C) == "d(I[p])/d(C[j,m]) = where(p != m, delta(p, j) * I[m], 0)");
}

TEST_CASE("conditions the space decides fold when the model is compiled") {
  using E1 = fx::lowered<fx::where(i >= 0, U(i), V(i))>;
  CHECK(fx::to_string<E1>() == "u[i]");
  using E2 = fx::lowered<fx::where(i < N, U(i), V(i))>;
  CHECK(fx::to_string<E2>() == "u[i]");
  using E3 = fx::lowered<fx::where(i - 1 >= N - 1 || i > N, U(i), V(i))>;
  CHECK(fx::to_string<E3>() == "v[i]");
  using E4 = fx::lowered<fx::where(i > 0 && U(i) > 1, U(i), V(i))>;
  CHECK(fx::to_string<E4>() == "where(i > 0 && u[i] > 1, u[i], v[i])");
  using E5 = fx::lowered<fx::where(i == i && U(i) > 1, U(i), V(i))>;
  CHECK(fx::to_string<E5>() == "where(u[i] > 1, u[i], v[i])");
}

TEST_CASE("an index condition combined with a value condition, in SIMD lanes and one at a time") {
  using M = fx::compiled<mixed, double>;
  auto by_hand = [](const std::vector<double>& x, const std::vector<double>& p) {
    std::vector<double> out(N);
    for (int c = 0; c < N; ++c) {
      out[c] = (c > 0 && x[c] > p[0]) ? x[c - 1] : -x[c];
      if (!(c == 2) || x[c] < 0.5) out[c] += p[0] * x[c];
    }
    return out;
  };
  constexpr std::size_t B = 37;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(N * B), p(B), dx(N * B), one(N);
  for (auto& v : x) v = u(rng);
  for (auto& v : p) v = u(rng);
  fx::host::rhs(M{}, 0.0, B, fx::soa(std::as_const(x)), fx::soa(std::as_const(p)), fx::soa(dx));
  int mismatches = 0, wrong = 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> xb(N), pb{p[b]};
    for (int c = 0; c < N; ++c) xb[c] = x[c * B + b];
    M{}.rhs(0.0, xb.data(), pb.data(), one.data());
    const auto want = by_hand(xb, pb);
    for (int c = 0; c < N; ++c) {
      mismatches += std::memcmp(&one[c], &dx[c * B + b], sizeof(double)) != 0;
      wrong += std::abs(one[c] - want[c]) > 1e-14;
    }
  }
  CHECK(mismatches == 0);
  CHECK(wrong == 0);
}
