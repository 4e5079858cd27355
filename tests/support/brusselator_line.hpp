// A Brusselator line of 32 cells (64 states, Hairer and Wanner's BRUSS,
// Solving Ordinary Differential Equations II, IV.1), for the sparse
// iteration matrix's test (tests/solve/sparse_iteration.cpp) and benchmark
// (bench/brusselator_host.cpp):
//
//   u' = A + u^2 v - (B + 1) u + D (u[i-1] - 2 u[i] + u[i+1])
//   v' = B u - u^2 v + D (v[i-1] - 2 v[i] + v[i+1])
//
// with u = 1, v = 3 beyond the ends and D = alpha (N + 1)^2 (alpha = 1/50
// in BRUSS). Layout: u at 0..N-1, v at N..2N-1; parameters A, B, D.
// by_hand and rk4 are the independent reference: plain C++ loops.
#pragma once
#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace brusselator_line {

namespace fx = fluxion;

inline constexpr int N = 32;
using cell = fx::index<"cell", N>;
inline constexpr fx::ivar<cell, 0, "i"> i;
inline constexpr fx::state<"u", cell> U;
inline constexpr fx::state<"v", cell> V;
inline constexpr fx::param<"A"> A;
inline constexpr fx::param<"B"> B;
inline constexpr fx::param<"D"> D;
inline constexpr auto laplacian = [](auto w, double end) {
  return fx::where(i > 0, w(i - 1), end) + fx::where(i < N - 1, w(i + 1), end) - 2 * w(i);
};
inline constexpr auto model =
    fx::model(fx::states(U, V), fx::params(A, B, D),
              fx::d(U(i)) = A + U(i) * U(i) * V(i) - (B + 1) * U(i) + D * laplacian(U, 1.0),
              fx::d(V(i)) = B * U(i) - U(i) * U(i) * V(i) + D * laplacian(V, 3.0));

// BRUSS's initial state, u = 1 + sin(2 pi x) scaled by `amplitude`, v = 3,
// and its parameters with B given.
inline void initial(double amplitude, double b, double* x, double* p) {
  for (int c = 0; c < N; ++c) {
    x[c] = 1.0 + amplitude * std::sin(2 * std::numbers::pi * (c + 1) / (N + 1));
    x[N + c] = 3.0;
  }
  p[0] = 1.0;
  p[1] = b;
  p[2] = (N + 1) * (N + 1) / 50.0;
}

inline void by_hand(const double* x, const double* p, double* dx) {
  const double* u = x;
  const double* v = x + N;
  for (int c = 0; c < N; ++c) {
    const double ul = c > 0 ? u[c - 1] : 1.0, ur = c < N - 1 ? u[c + 1] : 1.0;
    const double vl = c > 0 ? v[c - 1] : 3.0, vr = c < N - 1 ? v[c + 1] : 3.0;
    dx[c] = p[0] + u[c] * u[c] * v[c] - (p[1] + 1) * u[c] + p[2] * (ul - 2 * u[c] + ur);
    dx[N + c] = p[1] * u[c] - u[c] * u[c] * v[c] + p[2] * (vl - 2 * v[c] + vr);
  }
}

// x(t1) by classical RK4 of by_hand at step h.
inline std::vector<double> rk4(std::vector<double> x, const double* p, double t1, double h) {
  const std::size_t m = x.size();
  std::vector<double> k1(m), k2(m), k3(m), k4(m), tmp(m);
  for (long s = 0, steps = std::lround(t1 / h); s < steps; ++s) {
    by_hand(x.data(), p, k1.data());
    for (std::size_t j = 0; j < m; ++j) tmp[j] = x[j] + 0.5 * h * k1[j];
    by_hand(tmp.data(), p, k2.data());
    for (std::size_t j = 0; j < m; ++j) tmp[j] = x[j] + 0.5 * h * k2[j];
    by_hand(tmp.data(), p, k3.data());
    for (std::size_t j = 0; j < m; ++j) tmp[j] = x[j] + h * k3[j];
    by_hand(tmp.data(), p, k4.data());
    for (std::size_t j = 0; j < m; ++j) x[j] += h / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
  }
  return x;
}

}  // namespace brusselator_line
