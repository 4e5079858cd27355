// Exact symbolic derivatives of a small hierarchical model: a 3-patch SIR
// whose force of infection couples the patches through a contact matrix.
//
//   N(p)      = S(p) + I(p) + R(p)                          (alias)
//   lambda(p) = beta(p) * sum_q C(p, q) I(q) / N(p)           (alias, reduction)
//   dS(p) = -lambda(p) S(p)    dI(p) = lambda(p) S(p) - gamma I(p)    dR(p) = gamma I(p)
//   observables: incidence(p) = lambda(p) S(p), mean_force = sum_q lambda(q) / 3
//
// Prints a few symbolic Jacobian entries (fx::jacobian_text), the structural
// sparsity pattern of d(rhs)/d(state) as an ASCII matrix, and checks, without
// trusting fluxion, one entry of jac_x against a central finite difference of
// rhs and by complex step, the CSR values against the dense Jacobian, and
// jvp_x against J v.
// Exits 1 on a mismatch.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr int P = 3;
using patch = fx::index<"patch", P>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::state<"S", patch> S;
constexpr fx::state<"I", patch> I;
constexpr fx::state<"R", patch> R;
constexpr fx::param<"beta", patch> beta;      // local: one per patch
constexpr fx::param<"C", patch, patch> C;     // shared contact matrix
constexpr fx::param<"gamma"> gam;             // shared scalar

constexpr auto N = fx::alias<"N">(S(p) + I(p) + R(p));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * I(q)) / N(p));
constexpr auto sir3 = fx::model(                  //
    fx::states(S, I, R), fx::params(beta, C, gam),  //
    fx::d(S(p)) = -lam(p) * S(p),                   //
    fx::d(I(p)) = lam(p) * S(p) - gam * I(p),       //
    fx::d(R(p)) = gam * I(p),                       //
    fx::group<patch>(fx::coupled),                  //
    fx::observe<"incidence">(p) = lam(p) * S(p),   //
    fx::observe<"mean_force">() = fx::sum(q, lam(q)) / P);

// Observables have no declared handle; jacobian_text takes the symbol type.
constexpr fx::symbol<fx::kind::observable, "mean_force"> mean_force;

using M = fx::compiled<sir3, double>;
using J = M::jacobian;

// The pattern is also a compile-time constant for a model this small.
constexpr auto static_pattern = fx::static_jacobian_pattern<M, J::x>();
static_assert(static_pattern.nnz == 33);

int main() {
  std::printf("%zu states, %zu parameters, %zu observables\n\n", M::n_states, M::n_params, M::n_observables);

  std::puts("Symbolic entries (j is the with-respect-to variable):");
  std::puts(fx::jacobian_text<M>(S, S).c_str());
  std::puts(fx::jacobian_text<M>(S, I).c_str());
  std::puts(fx::jacobian_text<M>(I, R).c_str());
  std::puts(fx::jacobian_text<M>(R, I).c_str());
  std::puts(fx::jacobian_text<M>(S, C).c_str());
  std::puts(fx::jacobian_text<M>(mean_force, I).c_str());  // lambda(q) renames its own q to q'

  // Structural pattern of jac_x, rows and columns in layout order.
  const fx::csr_pattern pat = fx::jacobian_pattern<M, J::x>();
  const char* names = "SIR";
  std::printf("\nPattern of jac_x (%zu x %zu, nnz = %zu):\n     ", pat.rows, pat.columns, pat.nnz());
  for (std::size_t c = 0; c < pat.columns; ++c) std::printf(" %c%zu", names[c / P], c % P);
  std::printf("\n");
  for (std::size_t r = 0; r < pat.rows; ++r) {
    std::vector<char> row(pat.columns, '.');
    for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k) row[std::size_t(pat.col_idx[std::size_t(k)])] = 'x';
    std::printf("  %c%zu ", names[r / P], r % P);
    for (char ch : row) std::printf("  %c", ch);
    std::printf("\n");
  }
  std::printf("nnz of jac_p = %zu, obs_jac_x = %zu, obs_jac_p = %zu\n", fx::jacobian_pattern<M, J::p>().nnz(),
              fx::jacobian_pattern<M, J::obs_x>().nnz(), fx::jacobian_pattern<M, J::obs_p>().nnz());

  // A point: S, I, R per patch; beta per patch, C row-major, gamma.
  const double x[M::n_states] = {0.90, 0.80, 0.95, 0.05, 0.15, 0.02, 0.05, 0.05, 0.03};
  const double prm[M::n_params] = {0.30, 0.25, 0.40,                      //
                                   0.80, 0.10, 0.10, 0.20, 0.70, 0.10, 0.05, 0.15, 0.80,  //
                                   0.10};
  const double t = 0.0;
  M m;
  std::vector<double> Jd(M::n_states * M::n_states);
  m.jac_x(t, x, prm, Jd.data());

  bool ok = true;
  // 1. One entry against a central finite difference of rhs: d(dS[0])/d(I[2]).
  const std::size_t row = M::layout::state::offset(S, 0), col = M::layout::state::offset(I, 2);
  const double h = 1e-6;
  double xp[M::n_states], xm[M::n_states], fp[M::n_states], fm[M::n_states];
  for (std::size_t i = 0; i < M::n_states; ++i) xp[i] = xm[i] = x[i];
  xp[col] += h;
  xm[col] -= h;
  m.rhs(t, xp, prm, fp);
  m.rhs(t, xm, prm, fm);
  const double fd = (fp[row] - fm[row]) / (2 * h);
  const double exact = Jd[row * M::n_states + col];
  const double fd_err = std::abs(fd - exact) / std::abs(exact);
  std::printf("\nd(dS[0])/d(I[2]): jac_x %.12f, central difference %.12f, relative error %.1e\n", exact, fd, fd_err);
  ok = ok && fd_err < 1e-6;

  // 2. The same entry by complex step: Im f(x + i h e_col) / h, exact to rounding.
  using MC = fx::compiled<sir3, std::complex<double>>;
  std::complex<double> xc[M::n_states], pc[M::n_params], fc[M::n_states];
  for (std::size_t i = 0; i < M::n_states; ++i) xc[i] = x[i];
  for (std::size_t i = 0; i < M::n_params; ++i) pc[i] = prm[i];
  xc[col] += std::complex<double>(0.0, 1e-20);
  MC{}.rhs(std::complex<double>(t), xc, pc, fc);
  const double cs = fc[row].imag() / 1e-20;
  const double cs_err = std::abs(cs - exact) / std::abs(exact);
  std::printf("d(dS[0])/d(I[2]): complex step %.12f, relative error %.1e\n", cs, cs_err);
  ok = ok && cs_err < 1e-14;

  // 3. CSR values, in the order of the pattern, equal the dense entries.
  std::vector<double> vals(pat.nnz());
  m.jac_x_values(t, x, prm, vals.data());
  double csr_err = 0;
  for (std::size_t r = 0; r < pat.rows; ++r)
    for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k)
      csr_err = std::max(csr_err, std::abs(vals[std::size_t(k)] - Jd[r * M::n_states + std::size_t(pat.col_idx[std::size_t(k)])]));
  std::printf("CSR values vs dense: max difference %.1e\n", csr_err);
  ok = ok && csr_err == 0.0;

  // 4. jvp_x(v) equals J v without forming J.
  double v[M::n_states], jv[M::n_states];
  for (std::size_t i = 0; i < M::n_states; ++i) v[i] = 0.1 * double(i + 1);
  m.jvp_x(t, x, prm, v, jv);
  double jvp_err = 0;
  for (std::size_t r = 0; r < M::n_states; ++r) {
    double want = 0;
    for (std::size_t c = 0; c < M::n_states; ++c) want += Jd[r * M::n_states + c] * v[c];
    jvp_err = std::max(jvp_err, std::abs(jv[r] - want));
  }
  std::printf("jvp_x vs J v: max difference %.1e\n", jvp_err);
  ok = ok && jvp_err < 1e-14;

  std::puts(ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
