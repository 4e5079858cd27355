// Sparsity patterns against the structural dependence of the hand-written
// references, found by perturbation: at several random points, input c is
// moved by a few amounts (large up, large down, small random) and every
// output that changes (a != b, NaN counting as changed) marks (row, c). The
// union over points and amounts must equal the CSR pattern exactly: no
// pattern entry that never changes, no change outside the pattern.
//   The large moves (+10 (1 + |u|), -5 (1 + |u|)) make any element the
//   maximum or minimum of its reduction, so the dependence of max/min
//   observables on every element is seen, not only on the current extremum.
//   One documented exception: pk's t_inf only switches the infusion
//   where(t < t_inf, rate, 0); values jump when t crosses t_inf but the
//   derivative is zero wherever it exists, so its Jacobian column is empty.
// Also: the constexpr patterns of the fixture equal the run-time ones, and
// Model A's pattern sizes equal counts derived by hand from its structure.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/flat_models.hpp"
#include "support/hierarchy_fixture.hpp"
#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

using eval_fn = std::function<void(double t, const double* x, const double* p, double* out)>;
using draw_fn = std::function<void(std::mt19937_64&, double& t, std::vector<double>& x, std::vector<double>& p)>;

// Rows x columns 0/1 table of which outputs change when one input moves.
std::vector<char> perturbation_dependence(std::size_t rows, std::size_t cols, bool wrt_states, const eval_fn& f,
                                          const draw_fn& draw, int points, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> small(-0.5, 0.5);
  std::vector<char> dep(rows * cols, 0);
  std::vector<double> base(rows), out(rows);
  for (int it = 0; it < points; ++it) {
    double t;
    std::vector<double> x, p;
    draw(rng, t, x, p);
    f(t, x.data(), p.data(), base.data());
    for (std::size_t c = 0; c < cols; ++c) {
      auto& v = wrt_states ? x : p;
      const double u0 = v[c], s = 1 + std::abs(u0);
      for (double delta : {10 * s, -5 * s, small(rng) * s}) {
        v[c] = u0 + delta;
        f(t, x.data(), p.data(), out.data());
        for (std::size_t r = 0; r < rows; ++r)
          if (!(out[r] == base[r])) dep[r * cols + c] = 1;
      }
      v[c] = u0;
    }
  }
  return dep;
}

std::vector<char> to_table(const fx::csr_pattern& pat) {
  std::vector<char> t(pat.rows * pat.columns, 0);
  for (std::size_t r = 0; r < pat.rows; ++r)
    for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k) t[r * pat.columns + std::size_t(pat.col_idx[std::size_t(k)])] = 1;
  return t;
}

void compare_tables(const char* name, const char* which, const fx::csr_pattern& pat, const std::vector<char>& dep,
                    std::size_t skip_column = std::size_t(-1)) {
  const auto t = to_table(pat);
  REQUIRE(t.size() == dep.size());
  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < pat.rows; ++r)
    for (std::size_t c = 0; c < pat.columns; ++c) {
      if (c == skip_column) continue;
      const char a = t[r * pat.columns + c], b = dep[r * pat.columns + c];
      if (a != b && ++mismatches <= 10) {
        INFO(name << " " << which << " row " << r << " column " << c << ": pattern " << int(a) << ", perturbation "
                  << int(b));
        CHECK(a == b);
      }
    }
  INFO(name << " " << which << ": " << mismatches << " mismatches");
  CHECK(mismatches == 0);
}

template <class M>
void check_all_four(const char* name, const eval_fn& rhs, const eval_fn& obs, const draw_fn& draw, int points,
                    std::size_t skip_param_column = std::size_t(-1)) {
  constexpr std::size_t ns = M::n_states, np = M::n_params, no = M::n_observables;
  compare_tables(name, "jac_x", fx::jacobian_pattern<M, M::jacobian::x>(),
                 perturbation_dependence(ns, ns, true, rhs, draw, points, 11), std::size_t(-1));
  compare_tables(name, "jac_p", fx::jacobian_pattern<M, M::jacobian::p>(),
                 perturbation_dependence(ns, np, false, rhs, draw, points, 12), skip_param_column);
  compare_tables(name, "obs_jac_x", fx::jacobian_pattern<M, M::jacobian::obs_x>(),
                 perturbation_dependence(no, ns, true, obs, draw, points, 13), std::size_t(-1));
  compare_tables(name, "obs_jac_p", fx::jacobian_pattern<M, M::jacobian::obs_p>(),
                 perturbation_dependence(no, np, false, obs, draw, points, 14), skip_param_column);
}

template <class Case>
void check_flat(std::size_t skip_param_column = std::size_t(-1)) {
  using Ref = typename Case::reference;
  using M = fx::compiled<Case::model, double>;
  const draw_fn draw = [](std::mt19937_64& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    const auto pt = flat::random_point<Ref, double>(rng);
    t = pt.t;
    x.assign(pt.x.begin(), pt.x.end());
    p.assign(pt.p.begin(), pt.p.end());
  };
  check_all_four<M>(Case::name, &Ref::template rhs<double>, &Ref::template observe<double>, draw, 16,
                    skip_param_column);
}

template <bool Migration>
draw_fn fixture_draw() {
  return [](std::mt19937_64& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    const auto pt = hier::random_point<double>(rng, Migration);
    const std::size_t np = Migration ? hier::flat::n_params_connected : hier::flat::n_params_local;
    x.assign(pt.x.begin(), pt.x.end());
    p.assign(pt.p.begin(), pt.p.begin() + std::ptrdiff_t(np));
    t = 0;
  };
}

}  // namespace

TEST_CASE("flat patterns equal the dependence found by perturbation", "[derivatives][sparsity][perturbation]") {
  check_flat<flat::sir_case>();
  check_flat<flat::lorenz_case>();
  check_flat<flat::robertson_case>();
  check_flat<flat::pk_case>(6);  // t_inf: see the header comment
  // ... and that t_inf's column is empty in the pattern.
  using M = fx::compiled<flat::pk::model, double>;
  for (const auto& pat : {fx::jacobian_pattern<M, M::jacobian::p>(), fx::jacobian_pattern<M, M::jacobian::obs_p>()})
    for (int c : pat.col_idx) CHECK(c != 6);
}

TEST_CASE("fixture patterns equal the dependence found by perturbation", "[derivatives][sparsity][perturbation]") {
  {
    using M = fx::compiled<hier::local, double>;
    const hier::reference<double> ref{false};
    check_all_four<M>(
        "hier::local", [&](double t, const double* x, const double* p, double* o) { ref.rhs(t, x, p, o); },
        [&](double t, const double* x, const double* p, double* o) { ref.observe(t, x, p, o); }, fixture_draw<false>(),
        6);
  }
  {
    using M = fx::compiled<hier::connected, double>;
    const hier::reference<double> ref{true};
    check_all_four<M>(
        "hier::connected", [&](double t, const double* x, const double* p, double* o) { ref.rhs(t, x, p, o); },
        [&](double t, const double* x, const double* p, double* o) { ref.observe(t, x, p, o); }, fixture_draw<true>(),
        6);
  }
}

TEST_CASE("Model A patterns equal the dependence found by perturbation", "[derivatives][sparsity][perturbation]") {
  using M = fx::compiled<model_a::model, double>;
  const draw_fn draw = [](std::mt19937_64& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    x.resize(model_a::n_states);
    p.resize(model_a::n_params);
    model_a::random_instance(rng, x.data(), p.data(), /*last_rate_zero=*/false);  // a[K-1] != 0 must not count
    t = 0;
  };
  check_all_four<M>(
      "model_a", [](double, const double* x, const double* p, double* o) { model_a::reference_rhs(x, p, o); },
      [](double, const double* x, const double* p, double* o) { model_a::reference_observe(x, p, o); }, draw, 3);
}

// Counts derived by hand from Model A's structure (P = 8 patches, K = 4 ages):
//
// jac_x (128 x 128). lambda(p) = beta(p) sum_q C(p,q) (sum_k I(q,k)) / N(q) and
// N(q) sums S, E, I, R of patch q, so lambda(p) reads all 4 * 8 * 4 = 128 states.
//   S(p,k)' = -lambda(p) S(p,k) + aging        -> all 128 columns    32 rows: 4096
//   E(p,k)' = lambda(p) S(p,k) - sigma E + aging -> all 128 columns   32 rows: 4096
//   I(p,k)' = sigma E(p,k) - gamma I(p,k) - [k<3] a(k) I(p,k) + [k>0] a(k-1) I(p,k-1)
//             -> E(p,k), I(p,k), and I(p,k-1) for k > 0: 2 + 3 + 3 + 3 = 11 per patch: 88
//   R(p,k)' = gamma I(p,k) - [k<3] a(k) R(p,k) + [k>0] a(k-1) R(p,k-1)
//             -> I(p,k); R(p,k) for k < 3; R(p,k-1) for k > 0: 2 + 3 + 3 + 2 = 10 per patch: 80
//   total 4096 + 4096 + 88 + 80 = 8360 of 16384 (51.0 %, as BENCHMARKS.md states).
// jac_p (128 x 78). Aging columns of a row at age k: a(k) if k < 3, a(k-1) if k > 0,
// i.e. 1, 2, 2, 1 over k = 0..3: 6 per patch and compartment; a(3) never appears.
//   S rows: beta(p) + C(p, 0..7)         = 9 per row  -> 4 * 9 + 6  = 42 per patch
//   E rows: beta(p) + C(p, 0..7) + sigma = 10 per row -> 4 * 10 + 6 = 46 per patch
//   I rows: sigma + gamma                = 2 per row  -> 4 * 2 + 6  = 14 per patch
//   R rows: gamma                        = 1 per row  -> 4 * 1 + 6  = 10 per patch
//   total 8 * (42 + 46 + 14 + 10) = 896
// obs_jac_x (8 x 128): incidence(p) = sum_k sigma E(p,k) -> 4 per row: 32
// obs_jac_p (8 x 78): sigma only -> 1 per row: 8
TEST_CASE("Model A pattern sizes equal the counts derived by hand", "[derivatives][sparsity][model-a]") {
  using M = fx::compiled<model_a::model, double>;
  const auto px = fx::jacobian_pattern<M, M::jacobian::x>();
  CHECK(px.rows == 128);
  CHECK(px.columns == 128);
  CHECK(px.nnz() == 8360);
  CHECK(fx::jacobian_pattern<M, M::jacobian::p>().nnz() == 896);
  CHECK(fx::jacobian_pattern<M, M::jacobian::obs_x>().nnz() == 32);
  CHECK(fx::jacobian_pattern<M, M::jacobian::obs_p>().nnz() == 8);
  // Per-row counts of jac_x, in flat order S, E, I, R blocks of 32 rows (patch-major, age fastest).
  for (int c = 0; c < 4; ++c)
    for (int pp = 0; pp < model_a::P; ++pp)
      for (int k = 0; k < model_a::K; ++k) {
        const std::size_t r = model_a::xi(c, pp, k);
        const int n = px.row_ptr[r + 1] - px.row_ptr[r];
        const int want = c < 2 ? 128 : c == 2 ? (k == 0 ? 2 : 3) : (k == 0 || k == 3 ? 2 : 3);
        INFO("row " << r << " (compartment " << c << ", patch " << pp << ", age " << k << ")");
        CHECK(n == want);
      }
  // Model A's state Jacobian has 16384 entries: the constexpr form is still allowed.
  STATIC_REQUIRE(fx::jacobian_nnz<M, M::jacobian::obs_p>() == 8);
  constexpr auto so = fx::static_jacobian_pattern<M, M::jacobian::obs_x>();
  STATIC_REQUIRE(so.nnz == 32);
  STATIC_REQUIRE(so.col_idx[0] == int(model_a::xi(1, 0, 0)));
}

TEST_CASE("fixture constexpr patterns equal the run-time patterns", "[derivatives][sparsity][static]") {
  auto same = [](const auto& s, const fx::csr_pattern& r) {
    if (s.nnz != r.nnz() || s.rows != r.rows) return false;
    for (std::size_t i = 0; i <= s.rows; ++i)
      if (s.row_ptr[i] != r.row_ptr[i]) return false;
    for (std::size_t i = 0; i < s.nnz; ++i)
      if (s.col_idx[i] != r.col_idx[i]) return false;
    return true;
  };
  using L = fx::compiled<hier::local, double>;
  using C = fx::compiled<hier::connected, float>;
  constexpr auto lx = fx::static_jacobian_pattern<L, L::jacobian::x>();
  constexpr auto lp = fx::static_jacobian_pattern<L, L::jacobian::p>();
  constexpr auto cx = fx::static_jacobian_pattern<C, C::jacobian::x>();
  constexpr auto cp = fx::static_jacobian_pattern<C, C::jacobian::p>();
  constexpr auto co = fx::static_jacobian_pattern<C, C::jacobian::obs_x>();
  CHECK(same(lx, fx::jacobian_pattern<L, L::jacobian::x>()));
  CHECK(same(lp, fx::jacobian_pattern<L, L::jacobian::p>()));
  CHECK(same(cx, fx::jacobian_pattern<C, C::jacobian::x>()));
  CHECK(same(cp, fx::jacobian_pattern<C, C::jacobian::p>()));
  CHECK(same(co, fx::jacobian_pattern<C, C::jacobian::obs_x>()));
  // Hand count for hier::local jac_x, habitat by habitat (25 x 25, 5 blocks):
  //   X(h,s)' reads X(h,0..3) (crowd and total), F(h) (fecundity of adults): 5 columns each
  //   F(h)'   reads F(h) and X(h,0..3) (vigor):                                5 columns
  //   -> 5 rows x 5 columns per habitat = 25; 5 habitats: 125.
  STATIC_REQUIRE(lx.nnz == 125);
  // connected adds migration: X(h,s)' also reads X(h',s) for the 4 other habitats: +4 per X row.
  STATIC_REQUIRE(cx.nnz == 125 + 20 * 4);
}
