// Boost.Odeint's side of fluxion-bench-solvers-host: see
// solvers_host_odeint.hpp. The calls are Odeint's documented ones:
// make_controlled(abs, rel, stepper) and integrate_adaptive(stepper, system,
// state, t0, t1, dt0) as in its tutorial's Lorenz attractor, and
// make_controlled<rosenbrock4<double>>(abs, rel) over a (system, Jacobian)
// pair with uBLAS vectors and matrices as in its stiff_system example
// (libs/numeric/odeint/examples/stiff_system.cpp). Each trajectory gets a
// fresh controlled stepper: the dopri5 controller keeps the last derivative
// (first-same-as-last) and the rosenbrock4 one its step history, so reusing
// one would start a trajectory from the previous one's.
// uBLAS checks every expression and verifies each LU factorization by
// multiplying it out unless NDEBUG or BOOST_UBLAS_NDEBUG is defined (its
// documented switch); a release build of Odeint's users has them off, and
// Meson's release builds leave NDEBUG undefined (b_ndebug=false).
#ifndef BOOST_UBLAS_NDEBUG
#  define BOOST_UBLAS_NDEBUG 1
#endif

#include "solvers_host_odeint.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/ublas/matrix.hpp>
#include <boost/numeric/ublas/vector.hpp>

namespace odeint = boost::numeric::odeint;
namespace ublas = boost::numeric::ublas;

namespace odeint_peer {

namespace {

// The right-hand sides, written by hand. `evals` counts calls, from which
// the rejected steps follow (integrate_adaptive returns only the accepted
// ones); the functors are copied into integrate_adaptive, so the count lives
// outside them.
using lorenz_state = std::array<double, 3>;
struct lorenz_rhs {
  double s, r, b;
  long* evals;
  void operator()(const lorenz_state& u, lorenz_state& du, double) const {
    ++*evals;
    du[0] = s * (u[1] - u[0]);
    du[1] = u[0] * (r - u[2]) - u[1];
    du[2] = u[0] * u[1] - b * u[2];
  }
};

using vec = ublas::vector<double>;
using mat = ublas::matrix<double>;
struct robertson_rhs {
  double k1, k2, k3;
  void operator()(const vec& y, vec& dy, double) const {
    const double r1 = k1 * y[0], r2 = k2 * y[1] * y[1], r3 = k3 * y[1] * y[2];
    dy[0] = -r1 + r3;
    dy[1] = r1 - r2 - r3;
    dy[2] = r2;
  }
};
// The Jacobian and df/dt (zero: the system is autonomous); rosenbrock4
// calls it once a try.
struct robertson_jacobian {
  double k1, k2, k3;
  long* evals;
  void operator()(const vec& y, mat& J, double, vec& dfdt) const {
    ++*evals;
    J(0, 0) = -k1, J(0, 1) = k3 * y[2], J(0, 2) = k3 * y[1];
    J(1, 0) = k1, J(1, 1) = -2 * k2 * y[1] - k3 * y[2], J(1, 2) = -k3 * y[1];
    J(2, 0) = 0, J(2, 1) = 2 * k2 * y[1], J(2, 2) = 0;
    dfdt[0] = dfdt[1] = dfdt[2] = 0;
  }
};

// `evals_per_try`: right-hand sides a try after the first step's (dopri5
// reuses its last stage, so 6 of 7; Fehlberg 7(8) 13).
template <class Stepper>
steps lorenz(const double u0[3], const double p[3], double tol, double out[3], long evals_per_try, long first) {
  lorenz_state u{u0[0], u0[1], u0[2]};
  long evals = 0;
  steps s;
  try {
    s.accepted = long(odeint::integrate_adaptive(odeint::make_controlled(tol, tol, Stepper()),
                                                 lorenz_rhs{p[0], p[1], p[2], &evals}, u, 0.0, 1.0, 1e-3));
    s.rejected = (evals - first) / evals_per_try - s.accepted;
  } catch (const std::exception&) {
    s = {0, 0, false};
    u.fill(NAN);
  }
  for (int i = 0; i < 3; ++i) out[i] = u[std::size_t(i)];
  return s;
}

// A system given by plain functions over uBLAS vectors and matrices
// (contiguous storage, read and written in place).
struct plain_rhs {
  rhs_function f;
  const double* p;
  void operator()(const vec& y, vec& dy, double) const { f(&y.data()[0], p, &dy.data()[0]); }
};
struct plain_jacobian {
  jacobian_function jac;
  const double* p;
  long* evals;
  std::vector<double>* J;  // row-major scratch
  void operator()(const vec& y, mat& out, double, vec& dfdt) const {
    ++*evals;
    jac(&y.data()[0], p, J->data());
    const std::size_t n = y.size();
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t c = 0; c < n; ++c) out(r, c) = (*J)[r * n + c];
    for (std::size_t r = 0; r < n; ++r) dfdt[r] = 0;
  }
};

}  // namespace

steps system_rosenbrock4(int n, rhs_function rhs, jacobian_function jac, const double* x0, const double* p, double t1,
                         double first_step, double atol, double rtol, double* out) {
  vec y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) y[std::size_t(i)] = x0[i];
  std::vector<double> J(std::size_t(n) * std::size_t(n));
  long evals = 0;
  steps s;
  try {
    s.accepted = long(odeint::integrate_adaptive(odeint::make_controlled<odeint::rosenbrock4<double>>(atol, rtol),
                                                 std::make_pair(plain_rhs{rhs, p}, plain_jacobian{jac, p, &evals, &J}),
                                                 y, 0.0, t1, first_step));
    s.rejected = evals - s.accepted;
  } catch (const std::exception&) {
    s = {0, 0, false};
    for (int i = 0; i < n; ++i) y[std::size_t(i)] = NAN;
  }
  for (int i = 0; i < n; ++i) out[i] = y[std::size_t(i)];
  return s;
}

steps lorenz_dopri5(const double u0[3], const double p[3], double tol, double out[3]) {
  return lorenz<odeint::runge_kutta_dopri5<lorenz_state>>(u0, p, tol, out, 6, 1);
}

steps lorenz_fehlberg78(const double u0[3], const double p[3], double tol, double out[3]) {
  return lorenz<odeint::runge_kutta_fehlberg78<lorenz_state>>(u0, p, tol, out, 13, 0);
}

steps robertson_rosenbrock4(const double k[3], double atol, double rtol, double out[3]) {
  vec y(3);
  y[0] = 1, y[1] = 0, y[2] = 0;
  long evals = 0;
  steps s;
  try {
    s.accepted = long(odeint::integrate_adaptive(
        odeint::make_controlled<odeint::rosenbrock4<double>>(atol, rtol),
        std::make_pair(robertson_rhs{k[0], k[1], k[2]}, robertson_jacobian{k[0], k[1], k[2], &evals}), y, 0.0, 1e5,
        1e-6));
    s.rejected = evals - s.accepted;
  } catch (const std::exception&) {
    s = {0, 0, false};
    y[0] = y[1] = y[2] = NAN;
  }
  for (int i = 0; i < 3; ++i) out[i] = y[std::size_t(i)];
  return s;
}

}  // namespace odeint_peer
