// Jacobians of the hierarchical fixture (tests/support/hierarchy_fixture.hpp:
// hier::local and hier::connected) and of Model A (tests/support/model_a.hpp)
// at random points, for all four Jacobians (jac_x, jac_p, obs_jac_x, obs_jac_p):
//
//   * against central finite differences of the HAND-WRITTEN references
//     (double): column c from (f(u + h e_c) - f(u - h e_c)) / 2h with
//     h = 1e-6 max(1, |u_c|); |J - FD| <= 1e-6 (|FD| + max |row of J|);
//   * against complex-step differences of fluxion's own evaluators compiled
//     for std::complex<double> (host only): column c = Im f(u + i h e_c) / h,
//     h = 1e-30; |J - CS| <= 1e-12 (|CS| + max |row of J|);
//   * float against double at the same float-representable point:
//     |J_f - J_d| <= 1e-4 (|J_d| + max |row of J_d|);
//   * dense and sparse forms agree (pattern entries equal dense exactly,
//     dense entries outside the pattern are exactly 0), through the strided
//     entry points with non-unit strides too;
//   * jvp_x, jvp_p, obs_jvp_x, obs_jvp_p equal J v (1e-13 relative to sum |J_ij v_j|);
//   * inputs are unchanged (memcmp).
//
// Derivatives here flow through aliases (total, crowd, vigor; N, lambda),
// reductions (sum, prod, max, min), transport and fixed / shifted indices.
// The random points of the fixture put no ties into max/min (continuous draws).
// Model A points use a non-zero last aging rate a[K-1] (no outflow from the
// last stage, so it must be ignored).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/hierarchy_fixture.hpp"
#include "support/model_a.hpp"

// This file also serves model_a_derivatives.cpp, which includes it with
// DERIV_PROBLEMS set to Model A (two executables build in parallel).
#ifndef DERIV_PROBLEMS
#  define DERIV_PROBLEMS hier_local, hier_connected
#endif

namespace fx = fluxion;

namespace {

template <bool Migration>
struct fixture_problem {
  static constexpr std::size_t ns = hier::flat::n_states;
  static constexpr std::size_t np = Migration ? hier::flat::n_params_connected : hier::flat::n_params_local;
  static constexpr std::size_t no = hier::flat::n_observables;
  static void ref_rhs(double t, const double* x, const double* p, double* dx) {
    hier::reference<double>{Migration}.rhs(t, x, p, dx);
  }
  static void ref_observe(double t, const double* x, const double* p, double* y) {
    hier::reference<double>{Migration}.observe(t, x, p, y);
  }
  template <class Rng>
  static void random(Rng& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    const auto pt = hier::random_point<double>(rng, Migration);
    x.assign(pt.x.begin(), pt.x.end());
    p.assign(pt.p.begin(), pt.p.begin() + std::ptrdiff_t(np));
    t = std::uniform_real_distribution<double>(0.0, 10.0)(rng);
  }
};
struct hier_local : fixture_problem<false> {
  static constexpr auto model = hier::local;
  static constexpr const char* name = "hier::local";
};
struct hier_connected : fixture_problem<true> {
  static constexpr auto model = hier::connected;
  static constexpr const char* name = "hier::connected";
};

struct model_a_problem {
  static constexpr auto model = model_a::model;
  static constexpr const char* name = "model_a";
  static constexpr std::size_t ns = model_a::n_states, np = model_a::n_params, no = model_a::n_observables;
  static void ref_rhs(double, const double* x, const double* p, double* dx) { model_a::reference_rhs(x, p, dx); }
  static void ref_observe(double, const double* x, const double* p, double* y) {
    model_a::reference_observe(x, p, y);
  }
  template <class Rng>
  static void random(Rng& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    x.resize(ns);
    p.resize(np);
    model_a::random_instance(rng, x.data(), p.data(), /*last_rate_zero=*/false);
    t = std::uniform_real_distribution<double>(0.0, 100.0)(rng);
  }
};

// Round a double point to float and back, so float and double see the same point.
void round_to_float(std::vector<double>& v) {
  for (auto& e : v) e = double(float(e));
}

enum class which { x, p, obs_x, obs_p };
constexpr const char* which_name(which w) {
  return w == which::x ? "jac_x" : w == which::p ? "jac_p" : w == which::obs_x ? "obs_jac_x" : "obs_jac_p";
}
constexpr bool of_obs(which w) { return w == which::obs_x || w == which::obs_p; }
constexpr bool wrt_x(which w) { return w == which::x || w == which::obs_x; }

template <class Pb>
constexpr std::size_t rows(which w) {
  return of_obs(w) ? Pb::no : Pb::ns;
}
template <class Pb>
constexpr std::size_t cols(which w) {
  return wrt_x(w) ? Pb::ns : Pb::np;
}

template <class M, which W>
constexpr typename M::jacobian jac_of() {
  if constexpr (W == which::x) return M::jacobian::x;
  else if constexpr (W == which::p) return M::jacobian::p;
  else if constexpr (W == which::obs_x) return M::jacobian::obs_x;
  else return M::jacobian::obs_p;
}

// fluxion's dense Jacobian (strided entry point, unit strides).
template <class Pb, class T, which W>
std::vector<T> dense(T t, const std::vector<T>& x, const std::vector<T>& p) {
  using M = fx::compiled<Pb::model, T>;
  std::vector<T> J(rows<Pb>(W) * cols<Pb>(W), T(-777));
  M{}.template jacobian_dense<jac_of<M, W>()>(t, x.data(), 1, p.data(), 1, J.data(), 1);
  return J;
}
template <class Pb, class T>
std::vector<T> dense(which w, T t, const std::vector<T>& x, const std::vector<T>& p) {
  switch (w) {
    case which::x: return dense<Pb, T, which::x>(t, x, p);
    case which::p: return dense<Pb, T, which::p>(t, x, p);
    case which::obs_x: return dense<Pb, T, which::obs_x>(t, x, p);
    default: return dense<Pb, T, which::obs_p>(t, x, p);
  }
}

template <class Pb, which W>
fx::csr_pattern pattern() {
  using M = fx::compiled<Pb::model, double>;
  return fx::jacobian_pattern<M, jac_of<M, W>()>();
}

template <class Pb>
fx::csr_pattern pattern(which w) {
  switch (w) {
    case which::x: return pattern<Pb, which::x>();
    case which::p: return pattern<Pb, which::p>();
    case which::obs_x: return pattern<Pb, which::obs_x>();
    default: return pattern<Pb, which::obs_p>();
  }
}

// Compares J (rows x cols) with an oracle: |J - O| <= tol (|O| + max |row of J|).
void compare(const char* what, const char* name, which w, std::size_t R, std::size_t C, const double* J,
             const double* O, double tol) {
  for (std::size_t r = 0; r < R; ++r) {
    double rowmax = 0;
    for (std::size_t c = 0; c < C; ++c) rowmax = std::max(rowmax, std::abs(J[r * C + c]));
    for (std::size_t c = 0; c < C; ++c) {
      const double j = J[r * C + c], o = O[r * C + c];
      if (!(std::abs(j - o) <= tol * (std::abs(o) + rowmax))) {
        INFO(name << " " << which_name(w) << " vs " << what << ": row " << r << " column " << c << ": fluxion " << j
                  << ", oracle " << o << ", row max " << rowmax << ", tolerance " << tol);
        REQUIRE(std::abs(j - o) <= tol * (std::abs(o) + rowmax));
      }
    }
  }
}

template <class Pb>
void evaluate_ref(which w, double t, const std::vector<double>& x, const std::vector<double>& p, double* out) {
  if (of_obs(w)) Pb::ref_observe(t, x.data(), p.data(), out);
  else Pb::ref_rhs(t, x.data(), p.data(), out);
}

template <class Pb>
std::vector<double> central_differences(which w, double t, const std::vector<double>& x, const std::vector<double>& p) {
  const std::size_t R = rows<Pb>(w), C = cols<Pb>(w);
  std::vector<double> J(R * C), fp(R), fm(R);
  for (std::size_t c = 0; c < C; ++c) {
    auto xx = x;
    auto pp = p;
    double& u = wrt_x(w) ? xx[c] : pp[c];
    const double u0 = u, h = 1e-6 * std::max(1.0, std::abs(u0));
    u = u0 + h;
    evaluate_ref<Pb>(w, t, xx, pp, fp.data());
    u = u0 - h;
    evaluate_ref<Pb>(w, t, xx, pp, fm.data());
    for (std::size_t r = 0; r < R; ++r) J[r * C + c] = (fp[r] - fm[r]) / (2 * h);
  }
  return J;
}

template <class Pb>
std::vector<double> complex_step(which w, double t, const std::vector<double>& x, const std::vector<double>& p) {
  using Z = std::complex<double>;
  using MZ = fx::compiled<Pb::model, Z>;
  const std::size_t R = rows<Pb>(w), C = cols<Pb>(w);
  constexpr double h = 1e-30;
  std::vector<double> J(R * C);
  std::vector<Z> xz(x.begin(), x.end()), pz(p.begin(), p.end()), f(R);
  for (std::size_t c = 0; c < C; ++c) {
    Z& u = wrt_x(w) ? xz[c] : pz[c];
    const Z u0 = u;
    u = u0 + Z(0, h);
    if (of_obs(w)) MZ{}.observe(Z(t), xz.data(), pz.data(), f.data());
    else MZ{}.rhs(Z(t), xz.data(), pz.data(), f.data());
    u = u0;
    for (std::size_t r = 0; r < R; ++r) J[r * C + c] = f[r].imag() / h;
  }
  return J;
}

constexpr which all_jacobians[] = {which::x, which::p, which::obs_x, which::obs_p};

}  // namespace

TEMPLATE_TEST_CASE("Jacobians equal central differences of the hand reference (double)",
                   "[derivatives][hierarchy][fd]", DERIV_PROBLEMS) {
  using Pb = TestType;
  std::mt19937_64 rng(1234);
  for (int it = 0; it < 8; ++it) {
    double t;
    std::vector<double> x, p;
    Pb::random(rng, t, x, p);
    const auto x0 = x, p0 = p;
    for (which w : all_jacobians) {
      const auto J = dense<Pb, double>(w, t, x, p);
      REQUIRE(std::memcmp(x.data(), x0.data(), x.size() * sizeof(double)) == 0);
      REQUIRE(std::memcmp(p.data(), p0.data(), p.size() * sizeof(double)) == 0);
      const auto fd = central_differences<Pb>(w, t, x, p);
      compare("central differences", Pb::name, w, rows<Pb>(w), cols<Pb>(w), J.data(), fd.data(), 1e-6);
    }
  }
}

TEMPLATE_TEST_CASE("Jacobians equal complex-step differences of the complex evaluators (host)",
                   "[derivatives][hierarchy][complex-step]", DERIV_PROBLEMS) {
  using Pb = TestType;
  std::mt19937_64 rng(99);
  for (int it = 0; it < 8; ++it) {
    double t;
    std::vector<double> x, p;
    Pb::random(rng, t, x, p);
    for (which w : all_jacobians) {
      const auto J = dense<Pb, double>(w, t, x, p);
      const auto cs = complex_step<Pb>(w, t, x, p);
      compare("complex step", Pb::name, w, rows<Pb>(w), cols<Pb>(w), J.data(), cs.data(), 1e-12);
    }
  }
}

TEMPLATE_TEST_CASE("float Jacobians equal double Jacobians at the same point", "[derivatives][hierarchy][float]",
                   DERIV_PROBLEMS) {
  using Pb = TestType;
  std::mt19937_64 rng(4321);
  for (int it = 0; it < 16; ++it) {
    double t;
    std::vector<double> x, p;
    Pb::random(rng, t, x, p);
    round_to_float(x);
    round_to_float(p);
    t = double(float(t));
    const std::vector<float> xf(x.begin(), x.end()), pf(p.begin(), p.end());
    for (which w : all_jacobians) {
      const auto Jd = dense<Pb, double>(w, t, x, p);
      const auto Jf = dense<Pb, float>(w, float(t), xf, pf);
      const std::vector<double> Jfd(Jf.begin(), Jf.end());
      for (double v : Jfd) REQUIRE(std::isfinite(v));
      compare("double", Pb::name, w, rows<Pb>(w), cols<Pb>(w), Jfd.data(), Jd.data(), 1e-4);
    }
  }
}

TEMPLATE_TEST_CASE("dense and sparse Jacobians agree, through contiguous and strided calls",
                   "[derivatives][hierarchy][sparse]", DERIV_PROBLEMS) {
  using Pb = TestType;
  using M = fx::compiled<Pb::model, double>;
  std::mt19937_64 rng(555);
  auto run = [&]<which W>() {
    const std::size_t R = rows<Pb>(W), C = cols<Pb>(W);
    const auto pat = pattern<Pb, W>();
    REQUIRE(pat.rows == R);
    REQUIRE(pat.columns == C);
    REQUIRE(pat.row_ptr.size() == R + 1);
    REQUIRE(std::size_t(pat.row_ptr[R]) == pat.nnz());
    REQUIRE(pat.nnz() == fx::jacobian_nnz<M, jac_of<M, W>()>());
    for (std::size_t r = 0; r < R; ++r) {
      REQUIRE(pat.row_ptr[r] <= pat.row_ptr[r + 1]);
      for (int k = pat.row_ptr[r]; k + 1 < pat.row_ptr[r + 1]; ++k)  // strictly ascending columns
        REQUIRE(pat.col_idx[std::size_t(k)] < pat.col_idx[std::size_t(k) + 1]);
    }
    for (int it = 0; it < 4; ++it) {
      double t;
      std::vector<double> x, p;
      Pb::random(rng, t, x, p);
      const auto J = dense<Pb, double, W>(t, x, p);
      std::vector<double> vals(pat.nnz() + 1, -555.0);
      M{}.template jacobian_values<jac_of<M, W>()>(t, x.data(), 1, p.data(), 1, vals.data(), 1);
      REQUIRE(vals[pat.nnz()] == -555.0);
      std::vector<char> in_pattern(R * C, 0);
      for (std::size_t r = 0; r < R; ++r)
        for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k) {
          const std::size_t c = std::size_t(pat.col_idx[std::size_t(k)]);
          in_pattern[r * C + c] = 1;
          INFO(Pb::name << " " << which_name(W) << " row " << r << " column " << c);
          REQUIRE(vals[std::size_t(k)] == J[r * C + c]);
        }
      for (std::size_t e = 0; e < R * C; ++e)
        if (!in_pattern[e]) {
          INFO(Pb::name << " " << which_name(W) << " entry " << e << " outside the pattern");
          REQUIRE(J[e] == 0.0);
        }
      // Strided inputs and outputs: every element 3 (x), 2 (p) apart; outputs 2 apart.
      std::vector<double> xs(3 * x.size(), 1e300), ps(2 * p.size(), -1e300);
      for (std::size_t i = 0; i < x.size(); ++i) xs[3 * i] = x[i];
      for (std::size_t i = 0; i < p.size(); ++i) ps[2 * i] = p[i];
      std::vector<double> Js(2 * R * C, 42.0), vs(2 * pat.nnz(), 42.0);
      M{}.template jacobian_dense<jac_of<M, W>()>(t, xs.data(), 3, ps.data(), 2, Js.data(), 2);
      M{}.template jacobian_values<jac_of<M, W>()>(t, xs.data(), 3, ps.data(), 2, vs.data(), 2);
      for (std::size_t e = 0; e < R * C; ++e) {
        REQUIRE(Js[2 * e] == J[e]);
        REQUIRE(Js[2 * e + 1] == 42.0);
      }
      for (std::size_t k = 0; k < pat.nnz(); ++k) {
        REQUIRE(vs[2 * k] == vals[k]);
        REQUIRE(vs[2 * k + 1] == 42.0);
      }
    }
  };
  run.template operator()<which::x>();
  run.template operator()<which::p>();
  run.template operator()<which::obs_x>();
  run.template operator()<which::obs_p>();
}

TEMPLATE_TEST_CASE("Jacobian-vector products equal J v, inputs unchanged", "[derivatives][hierarchy][jvp]",
                   DERIV_PROBLEMS) {
  using Pb = TestType;
  using M = fx::compiled<Pb::model, double>;
  std::mt19937_64 rng(8080);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int it = 0; it < 6; ++it) {
    double t;
    std::vector<double> x, p;
    Pb::random(rng, t, x, p);
    const auto x0 = x, p0 = p;
    for (which w : all_jacobians) {
      const std::size_t R = rows<Pb>(w), C = cols<Pb>(w);
      const auto J = dense<Pb, double>(w, t, x, p);
      std::vector<double> v(C);
      for (auto& e : v) e = u(rng);
      const auto v0 = v;
      std::vector<double> out(R + 1, -3.0);
      switch (w) {
        case which::x: M{}.jvp_x(t, x.data(), p.data(), v.data(), out.data()); break;
        case which::p: M{}.jvp_p(t, x.data(), p.data(), v.data(), out.data()); break;
        case which::obs_x: M{}.obs_jvp_x(t, x.data(), p.data(), v.data(), out.data()); break;
        case which::obs_p: M{}.obs_jvp_p(t, x.data(), p.data(), v.data(), out.data()); break;
      }
      REQUIRE(std::memcmp(v.data(), v0.data(), C * sizeof(double)) == 0);
      REQUIRE(std::memcmp(x.data(), x0.data(), x.size() * sizeof(double)) == 0);
      REQUIRE(std::memcmp(p.data(), p0.data(), p.size() * sizeof(double)) == 0);
      REQUIRE(out[R] == -3.0);
      for (std::size_t r = 0; r < R; ++r) {
        double s = 0, scale = 0;
        for (std::size_t c = 0; c < C; ++c) {
          s += J[r * C + c] * v[c];
          scale += std::abs(J[r * C + c] * v[c]);
        }
        INFO(Pb::name << " " << which_name(w) << " jvp row " << r << ": " << out[r] << " vs J v = " << s);
        REQUIRE(std::abs(out[r] - s) <= 1e-13 * scale);
      }
      // Strided jvp (state and parameter directions): elements 2 apart.
      if (!of_obs(w)) {
        std::vector<double> xs(2 * x.size()), ps(2 * p.size()), vs(2 * C), os(2 * R, 7.0);
        for (std::size_t i = 0; i < x.size(); ++i) xs[2 * i] = x[i];
        for (std::size_t i = 0; i < p.size(); ++i) ps[2 * i] = p[i];
        for (std::size_t i = 0; i < C; ++i) vs[2 * i] = v[i];
        if (w == which::x) M{}.jvp_x(t, xs.data(), 2, ps.data(), 2, vs.data(), 2, os.data(), 2);
        else M{}.jvp_p(t, xs.data(), 2, ps.data(), 2, vs.data(), 2, os.data(), 2);
        for (std::size_t r = 0; r < R; ++r) {
          REQUIRE(os[2 * r] == out[r]);
          REQUIRE(os[2 * r + 1] == 7.0);
        }
      }
    }
  }
}
