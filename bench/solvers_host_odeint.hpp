#pragma once
// Boost.Odeint's side of fluxion-bench-solvers-host (bench/solvers_host.cpp),
// one trajectory a call. Its own translation unit, built as C++17: Odeint's
// rosenbrock4 keeps its state in Boost.uBLAS containers, whose storage
// (Boost 1.74 and older) calls std::allocator::construct, removed in C++20.
// Plain arrays cross the boundary, so neither side sees the other's headers.
namespace odeint_peer {

// How a trajectory went: accepted and rejected steps; false when Odeint gave
// up (it throws after 500 rejected steps in a row) and `out` holds NaN.
struct steps {
  long accepted = 0;
  long rejected = 0;
  bool ok = true;
};

// Lorenz (Model B) from u0 with p = (sigma, rho, beta) over t in [0, 1],
// first step 1e-3, rtol = atol = tol: the controlled runge_kutta_dopri5, or
// runge_kutta_fehlberg78 (the error reference).
steps lorenz_dopri5(const double u0[3], const double p[3], double tol, double out[3]);
steps lorenz_fehlberg78(const double u0[3], const double p[3], double tol, double out[3]);

// Robertson (Model C) with rate constants k from (1, 0, 0) over t in
// [0, 1e5], first step 1e-6: rosenbrock4 with its controller.
steps robertson_rosenbrock4(const double k[3], double atol, double rtol, double out[3]);

// An autonomous system of n states given by plain functions, rhs(x, p, dx)
// and its dense Jacobian jac(x, p, J) (row-major n x n), from x0 over t in
// [0, t1], first step first_step: rosenbrock4 with its controller (the
// stiff stage model of tests/support/stage_model.hpp, written by hand, in
// fluxion-bench-stage).
using rhs_function = void (*)(const double* x, const double* p, double* dx);
using jacobian_function = void (*)(const double* x, const double* p, double* J);
steps system_rosenbrock4(int n, rhs_function rhs, jacobian_function jac, const double* x0, const double* p, double t1,
                         double first_step, double atol, double rtol, double* out);

}  // namespace odeint_peer
