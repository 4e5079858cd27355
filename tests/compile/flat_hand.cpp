// Jacobians of the four flat models (tests/support/flat_models.hpp) against
// the formulas derived by hand in tests/support/flat_jacobians.hpp, at random
// points, in double and float, for all four Jacobians (jac_x, jac_p,
// obs_jac_x, obs_jac_p), dense and sparse (CSR values), plus the structural
// patterns (run time and constexpr) against the hand patterns, Jacobian-vector
// products against J v, inputs left unchanged, and jacobian_text of SIR.
//
// Tolerances: |got - want| <= tol * (|want| + max |row of want|), i.e.
// relative to the entry with a floor at the size of the row (the hand
// formulas and fluxion's expressions round differently where terms cancel,
// e.g. d inf/dS = b I / N - b S I / N^2 = b I (I + R) / N^2):
//   double  1e-13      float (fluxion in float vs hand formula in double at the same point)  1e-5
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/flat_jacobians.hpp"
#include "support/flat_models.hpp"

namespace fx = fluxion;

namespace {

struct sir_c : flat::sir_case {
  using hand = flat_jac::sir;
};
struct lorenz_c : flat::lorenz_case {
  using hand = flat_jac::lorenz;
};
struct robertson_c : flat::robertson_case {
  using hand = flat_jac::robertson;
};
struct pk_c : flat::pk_case {
  using hand = flat_jac::pk;
};

constexpr int n_points = 100;

template <class T>
constexpr double tol() {
  return sizeof(T) == 8 ? 1e-13 : 1e-5;
}

enum class which { x, p, obs_x, obs_p };
constexpr const char* which_name[] = {"jac_x", "jac_p", "obs_jac_x", "obs_jac_p"};

template <class Case, class T>
struct setup {
  using Ref = typename Case::reference;
  using Hand = typename Case::hand;
  using M = fx::compiled<Case::model, T>;
  static constexpr std::size_t ns = Ref::n_states, np = Ref::n_params, no = Ref::n_observables;
  static constexpr std::size_t rows(which w) { return (w == which::x || w == which::p) ? ns : no; }
  static constexpr std::size_t cols(which w) { return (w == which::x || w == which::obs_x) ? ns : np; }
};

// The hand Jacobian, evaluated in double.
template <class Hand>
std::vector<double> hand_dense(which w, double t, const double* x, const double* p, std::size_t n) {
  std::vector<double> J(n, -999.0);
  switch (w) {
    case which::x: Hand::jac_x(t, x, p, J.data()); break;
    case which::p: Hand::jac_p(t, x, p, J.data()); break;
    case which::obs_x: Hand::obs_jac_x(t, x, p, J.data()); break;
    case which::obs_p: Hand::obs_jac_p(t, x, p, J.data()); break;
  }
  return J;
}

template <class Hand>
int hand_pattern(which w, std::size_t r, std::size_t c) {
  switch (w) {
    case which::x: return Hand::jac_x_pattern[r][c];
    case which::p: return Hand::jac_p_pattern[r][c];
    case which::obs_x: return Hand::obs_jac_x_pattern[r][c];
    default: return Hand::obs_jac_p_pattern[r][c];
  }
}

template <class M>
constexpr typename M::jacobian to_j(which w) {
  switch (w) {
    case which::x: return M::jacobian::x;
    case which::p: return M::jacobian::p;
    case which::obs_x: return M::jacobian::obs_x;
    default: return M::jacobian::obs_p;
  }
}

// fluxion's dense Jacobian through the named entry points.
template <class M, class T>
std::vector<T> lib_dense(which w, T t, const T* x, const T* p, std::size_t n) {
  std::vector<T> J(n, T(-777));
  M m;
  switch (w) {
    case which::x: m.jac_x(t, x, p, J.data()); break;
    case which::p: m.jac_p(t, x, p, J.data()); break;
    case which::obs_x: m.obs_jac_x(t, x, p, J.data()); break;
    case which::obs_p: m.obs_jac_p(t, x, p, J.data()); break;
  }
  return J;
}
template <class M, class T>
std::vector<T> lib_values(which w, T t, const T* x, const T* p, std::size_t nnz) {
  std::vector<T> v(nnz + 1, T(-555));  // one sentinel past the end
  M m;
  switch (w) {
    case which::x: m.jac_x_values(t, x, p, v.data()); break;
    case which::p: m.jac_p_values(t, x, p, v.data()); break;
    case which::obs_x: m.obs_jac_x_values(t, x, p, v.data()); break;
    case which::obs_p: m.obs_jac_p_values(t, x, p, v.data()); break;
  }
  return v;
}
template <class M>
fx::csr_pattern pattern_of(which w) {
  switch (w) {
    case which::x: return fx::jacobian_pattern<M, M::jacobian::x>();
    case which::p: return fx::jacobian_pattern<M, M::jacobian::p>();
    case which::obs_x: return fx::jacobian_pattern<M, M::jacobian::obs_x>();
    default: return fx::jacobian_pattern<M, M::jacobian::obs_p>();
  }
}

template <class Case, class T>
void check_against_hand() {
  using St = setup<Case, T>;
  using M = typename St::M;
  using Ref = typename St::Ref;
  using Hand = typename St::Hand;
  std::mt19937_64 rng(20240611u + sizeof(T));
  for (int it = 0; it < n_points; ++it) {
    const auto pt = flat::random_point<Ref, T>(rng);
    const auto x0 = pt.x;
    const auto p0 = pt.p;
    std::array<double, St::ns> xd{};
    std::array<double, St::np> pd{};
    for (std::size_t i = 0; i < St::ns; ++i) xd[i] = double(pt.x[i]);
    for (std::size_t i = 0; i < St::np; ++i) pd[i] = double(pt.p[i]);
    for (which w : {which::x, which::p, which::obs_x, which::obs_p}) {
      const std::size_t R = St::rows(w), C = St::cols(w);
      const auto want = hand_dense<Hand>(w, double(pt.t), xd.data(), pd.data(), R * C);
      const auto got = lib_dense<M, T>(w, pt.t, pt.x.data(), pt.p.data(), R * C);
      REQUIRE(std::memcmp(pt.x.data(), x0.data(), sizeof x0) == 0);
      REQUIRE(std::memcmp(pt.p.data(), p0.data(), sizeof p0) == 0);
      for (std::size_t r = 0; r < R; ++r) {
        double rowmax = 0;
        for (std::size_t c = 0; c < C; ++c) rowmax = std::max(rowmax, std::abs(want[r * C + c]));
        for (std::size_t c = 0; c < C; ++c) {
          const double g = double(got[r * C + c]), h = want[r * C + c];
          INFO(Case::name << " " << which_name[w == which::x ? 0 : w == which::p ? 1 : w == which::obs_x ? 2 : 3]
                          << " row " << r << " column " << c << " t = " << pt.t << ": fluxion " << g << ", hand "
                          << h);
          REQUIRE(std::isfinite(g));
          REQUIRE(std::abs(g - h) <= tol<T>() * (std::abs(h) + rowmax));
          // Entries outside the hand pattern are exactly zero.
          if (!hand_pattern<Hand>(w, r, c)) REQUIRE(g == 0.0);
        }
      }
      // Sparse values: exactly the dense entries, in CSR order; nothing written past nnz.
      const auto pat = pattern_of<M>(w);
      const auto vals = lib_values<M, T>(w, pt.t, pt.x.data(), pt.p.data(), pat.nnz());
      REQUIRE(vals[pat.nnz()] == T(-555));
      for (std::size_t r = 0; r < R; ++r)
        for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k)
          REQUIRE(vals[std::size_t(k)] == got[r * C + std::size_t(pat.col_idx[std::size_t(k)])]);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("flat Jacobians equal the hand-derived formulas (double)", "[derivatives][flat]", sir_c, lorenz_c,
                   robertson_c, pk_c) {
  check_against_hand<TestType, double>();
}

TEMPLATE_TEST_CASE("flat Jacobians equal the hand-derived formulas (float)", "[derivatives][flat]", sir_c, lorenz_c,
                   robertson_c, pk_c) {
  check_against_hand<TestType, float>();
}

TEMPLATE_TEST_CASE("flat sparsity patterns equal the hand patterns, at run time and as constants",
                   "[derivatives][flat][sparsity]", sir_c, lorenz_c, robertson_c, pk_c) {
  using St = setup<TestType, double>;
  using M = typename St::M;
  using Hand = typename St::Hand;
  for (which w : {which::x, which::p, which::obs_x, which::obs_p}) {
    const std::size_t R = St::rows(w), C = St::cols(w);
    const auto pat = pattern_of<M>(w);
    REQUIRE(pat.rows == R);
    REQUIRE(pat.columns == C);
    REQUIRE(pat.row_ptr.size() == R + 1);
    REQUIRE(pat.row_ptr[0] == 0);
    std::vector<int> want_ptr{0}, want_col;
    for (std::size_t r = 0; r < R; ++r) {
      for (std::size_t c = 0; c < C; ++c)
        if (hand_pattern<Hand>(w, r, c)) want_col.push_back(int(c));
      want_ptr.push_back(int(want_col.size()));
    }
    INFO(TestType::name << " " << int(w));
    CHECK(pat.row_ptr == want_ptr);
    CHECK(pat.col_idx == want_col);
  }
  // The constexpr form: the same arrays, usable in constant expressions.
  constexpr auto sx = fx::static_jacobian_pattern<M, M::jacobian::x>();
  constexpr auto sp = fx::static_jacobian_pattern<M, M::jacobian::p>();
  constexpr auto so = fx::static_jacobian_pattern<M, M::jacobian::obs_x>();
  constexpr auto sq = fx::static_jacobian_pattern<M, M::jacobian::obs_p>();
  STATIC_REQUIRE(sx.nnz == fx::jacobian_nnz<M, M::jacobian::x>());
  STATIC_REQUIRE(sx.row_ptr[St::ns] == int(sx.nnz));
  STATIC_REQUIRE(sq.row_ptr[St::no] == int(sq.nnz));
  auto same = [](const auto& s, const fx::csr_pattern& r) {
    if (s.nnz != r.nnz() || s.rows != r.rows) return false;
    for (std::size_t i = 0; i <= s.rows; ++i)
      if (s.row_ptr[i] != r.row_ptr[i]) return false;
    for (std::size_t i = 0; i < s.nnz; ++i)
      if (s.col_idx[i] != r.col_idx[i]) return false;
    return true;
  };
  CHECK(same(sx, fx::jacobian_pattern<M, M::jacobian::x>()));
  CHECK(same(sp, fx::jacobian_pattern<M, M::jacobian::p>()));
  CHECK(same(so, fx::jacobian_pattern<M, M::jacobian::obs_x>()));
  CHECK(same(sq, fx::jacobian_pattern<M, M::jacobian::obs_p>()));
}

TEST_CASE("flat SIR: constexpr pattern and nnz values derived by hand", "[derivatives][flat][sparsity]") {
  using M = fx::compiled<flat::sir::model, double>;
  // jac_x rows: S' and I' read S, I, R (through N and infection); R' reads I only.
  constexpr auto sx = fx::static_jacobian_pattern<M, M::jacobian::x>();
  STATIC_REQUIRE(sx.nnz == 7);
  STATIC_REQUIRE(sx.row_ptr[0] == 0 && sx.row_ptr[1] == 3 && sx.row_ptr[2] == 6 && sx.row_ptr[3] == 7);
  STATIC_REQUIRE(sx.col_idx[6] == 1);
  STATIC_REQUIRE(fx::jacobian_nnz<M, M::jacobian::p>() == 6);
  STATIC_REQUIRE(fx::jacobian_nnz<M, M::jacobian::obs_x>() == 6);
  STATIC_REQUIRE(fx::jacobian_nnz<M, M::jacobian::obs_p>() == 2);
  using Mp = fx::compiled<flat::pk::model, float>;
  // t_inf only switches the infusion: no derivative column for it.
  STATIC_REQUIRE(fx::jacobian_nnz<Mp, Mp::jacobian::p>() == 8);
}

TEMPLATE_TEST_CASE("flat Jacobian-vector products equal J v", "[derivatives][flat][jvp]", sir_c, lorenz_c,
                   robertson_c, pk_c) {
  using St = setup<TestType, double>;
  using M = typename St::M;
  using Ref = typename St::Ref;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int it = 0; it < 50; ++it) {
    const auto pt = flat::random_point<Ref, double>(rng);
    for (which w : {which::x, which::p, which::obs_x, which::obs_p}) {
      const std::size_t R = St::rows(w), C = St::cols(w);
      std::vector<double> v(C);
      for (auto& e : v) e = u(rng);
      const auto v0 = v;
      const auto J = lib_dense<M, double>(w, pt.t, pt.x.data(), pt.p.data(), R * C);
      std::vector<double> out(R + 1, -3.0);
      M m;
      switch (w) {
        case which::x: m.jvp_x(pt.t, pt.x.data(), pt.p.data(), v.data(), out.data()); break;
        case which::p: m.jvp_p(pt.t, pt.x.data(), pt.p.data(), v.data(), out.data()); break;
        case which::obs_x: m.obs_jvp_x(pt.t, pt.x.data(), pt.p.data(), v.data(), out.data()); break;
        case which::obs_p: m.obs_jvp_p(pt.t, pt.x.data(), pt.p.data(), v.data(), out.data()); break;
      }
      REQUIRE(v == v0);
      REQUIRE(out[R] == -3.0);
      for (std::size_t r = 0; r < R; ++r) {
        double s = 0, scale = 0;
        for (std::size_t c = 0; c < C; ++c) {
          s += J[r * C + c] * v[c];
          scale += std::abs(J[r * C + c] * v[c]);
        }
        INFO(TestType::name << " " << int(w) << " row " << r);
        REQUIRE(std::abs(out[r] - s) <= 1e-13 * scale);
      }
    }
  }
}

// Printing conventions (tests/symbolic/print.cpp, diff_text.cpp): unindexed
// symbols print bare, aliases by name, a product keeps its written order,
// d(a/b) = da/b - a db/b^2 with b^2 printed pow(b, 2), 1 * x = x, 0 + x = x,
// and a negation of a sum is parenthesized.
//   infection = beta_t * S * I / N, with (beta_t * S) * I parsed left to right:
//   d infection/dI = (beta_t * S) / N - beta_t * S * I * dN/dI / pow(N, 2), dN/dI = 1
//   d(S)/d(I)  = -(d infection/dI)
//   d(R)/d(I)  = gamma;   d(I)/d(gamma) = -I;   d(S)/d(gamma): no term (0)
TEST_CASE("jacobian_text of flat SIR entries", "[derivatives][flat][text]") {
  using M = fx::compiled<flat::sir::model, double>;
  CHECK(fx::jacobian_text<M>(flat::sir::S, flat::sir::I) ==
        "d(S)/d(I) = -(beta_t * S / N - beta_t * S * I / pow(N, 2))");
  CHECK(fx::jacobian_text<M>(flat::sir::R, flat::sir::I) == "d(R)/d(I) = gamma");
  CHECK(fx::jacobian_text<M>(flat::sir::I, flat::sir::gam) == "d(I)/d(gamma) = -I");
  CHECK(fx::jacobian_text<M>(flat::sir::S, flat::sir::gam) == "d(S)/d(gamma) = 0");
  CHECK(fx::jacobian_text<M>(flat::sir::R, flat::sir::S) == "d(R)/d(S) = 0");
}
