// A two-patch SIR with a contact matrix written by hand in plain C++ (no
// fluxion code), the oracle of tests/solve/sensitivity.cpp and
// tests/infer/log_density.cpp: its right-hand side and a classical RK4
// over any scalar Z (std::complex<double> for the complex step).
//
// State (S0, S1, I0, I1, R0, R1); parameters (beta0, beta1, C00, C01, C10,
// C11, gamma, ...) in the symbol-major layout's order of the tests' models:
//   lambda_a = beta_a sum_b C_ab I_b / N_a,  S' = -lambda S,
//   I' = lambda S - gamma I,  R' = gamma I.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace two_patch_sir {

constexpr int patches = 2;
constexpr int states = 6;

template <class Z>
Z force(const Z* x, const Z* th, int a) {  // lambda_a
  Z contacts = 0;
  for (int b = 0; b < patches; ++b) contacts += th[2 + a * patches + b] * x[2 + b];
  return th[a] * contacts / (x[a] + x[2 + a] + x[4 + a]);
}

template <class Z>
void rhs(const Z* x, const Z* th, Z* dx) {
  for (int a = 0; a < patches; ++a) {
    const Z l = force(x, th, a);
    dx[a] = -l * x[a];
    dx[2 + a] = l * x[a] - th[6] * x[2 + a];
    dx[4 + a] = th[6] * x[2 + a];
  }
}

// Classical RK4 from t = 0, `per_unit` equal steps per unit of time (at
// least one) to each save time in turn; the states there.
template <class Z>
std::vector<std::array<Z, states>> rk4(std::array<Z, states> x, const Z* th, const std::vector<double>& save,
                                       int per_unit) {
  std::vector<std::array<Z, states>> out;
  double t = 0;
  for (double ts : save) {
    const int steps = std::max(1, int(std::ceil((ts - t) * per_unit)));
    const double h = (ts - t) / steps;
    for (int s = 0; s < steps; ++s) {
      std::array<Z, states> k1, k2, k3, k4, tmp;
      rhs(x.data(), th, k1.data());
      for (int i = 0; i < states; ++i) tmp[i] = x[i] + Z(h / 2) * k1[i];
      rhs(tmp.data(), th, k2.data());
      for (int i = 0; i < states; ++i) tmp[i] = x[i] + Z(h / 2) * k2[i];
      rhs(tmp.data(), th, k3.data());
      for (int i = 0; i < states; ++i) tmp[i] = x[i] + Z(h) * k3[i];
      rhs(tmp.data(), th, k4.data());
      for (int i = 0; i < states; ++i) x[i] += Z(h / 6) * (k1[i] + Z(2) * k2[i] + Z(2) * k3[i] + k4[i]);
    }
    t = ts;
    out.push_back(x);
  }
  return out;
}

}  // namespace two_patch_sir
