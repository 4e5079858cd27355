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

}  // namespace odeint_peer
