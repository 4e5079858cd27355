// A stiff stage-structured model written three ways, for the derivative
// tests and the Jacobian benchmark (bench/stage_jacobian.cpp):
//
//   stage_model::hierarchical   index spaces: X(c, k) over 3 compartments
//                               and 5 ordered maturation stages, transport
//                               along the stages, index conditions;
//   stage_model::flat           the same 15 equations written out one state
//                               at a time (no spaces);
//   stage_model::hand           plain C++ loops: rhs and the dense Jacobian
//                               d rhs / d x, never calling fluxion.
//
//   rate(c, k) = ktr(c) / (1 + X(c, 0) / Ks)   k = 0 (a saturable first transition)
//              = ktr(c)                       k > 0
//   dX(c, k)   = rate(c, k-1) X(c, k-1) [k > 0] - rate(c, k) X(c, k) [k < 4]
//                - e(c) X(c, k) + q (X(c-1 mod 3, k) - X(c, k))   (a ring of compartments)
//
// Stiff with transit rates ktr up to 1e4 against eliminations e of 1e-2.
// Layouts: X(c, k) at 5 c + k; parameters ktr[3], Ks, e[3], q (8 values).
#pragma once
#include <cmath>
#include <cstddef>
#include <random>
#include <tuple>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace stage_model {

namespace fx = fluxion;

inline constexpr int C = 3;  // compartments
inline constexpr int K = 5;  // stages
inline constexpr int n_states = C * K;
inline constexpr int n_params = 2 * C + 2;

// --- with index spaces -------------------------------------------------------
using comp = fx::index<"comp", C>;
using stage = fx::index<"stage", K, fx::ordered>;
inline constexpr fx::ivar<comp, 0, "c"> c;
inline constexpr fx::ivar<stage, 0, "k"> k;
inline constexpr fx::state<"X", comp, stage> X;
inline constexpr fx::param<"ktr", comp> ktr;
inline constexpr fx::param<"Ks"> Ks;
inline constexpr fx::param<"e", comp> e;
inline constexpr fx::param<"q"> q;

inline constexpr auto rate = fx::where(k == 0, ktr(c) / (1.0 + X(c, 0) / Ks), ktr(c));
inline constexpr auto ring_in = fx::where(c == 0, X(C - 1, k), X(c - 1, k));
inline constexpr auto hierarchical = fx::model(fx::states(X), fx::params(ktr, Ks, e, q),      //
                                               fx::d(X(c, k)) = -e(c) * X(c, k) + q * (ring_in - X(c, k)),  //
                                               fx::transport<stage>(rate, X));

// --- written out -------------------------------------------------------------
namespace flat_symbols {
inline constexpr fx::state<"X00"> X00;
inline constexpr fx::state<"X01"> X01;
inline constexpr fx::state<"X02"> X02;
inline constexpr fx::state<"X03"> X03;
inline constexpr fx::state<"X04"> X04;
inline constexpr fx::state<"X10"> X10;
inline constexpr fx::state<"X11"> X11;
inline constexpr fx::state<"X12"> X12;
inline constexpr fx::state<"X13"> X13;
inline constexpr fx::state<"X14"> X14;
inline constexpr fx::state<"X20"> X20;
inline constexpr fx::state<"X21"> X21;
inline constexpr fx::state<"X22"> X22;
inline constexpr fx::state<"X23"> X23;
inline constexpr fx::state<"X24"> X24;
inline constexpr fx::param<"ktr0"> ktr0;
inline constexpr fx::param<"ktr1"> ktr1;
inline constexpr fx::param<"ktr2"> ktr2;
inline constexpr fx::param<"Ks"> Ksf;
inline constexpr fx::param<"e0"> e0;
inline constexpr fx::param<"e1"> e1;
inline constexpr fx::param<"e2"> e2;
inline constexpr fx::param<"q"> qf;

// The equations of compartment (X0..X4, its ring predecessor P0..P4).
template <class Kt, class E, class X0, class X1, class X2, class X3, class X4, class P0, class P1, class P2,
          class P3, class P4>
constexpr auto compartment(Kt kt, E el, X0 x0, X1 x1, X2 x2, X3 x3, X4 x4, P0 p0, P1 p1, P2 p2, P3 p3, P4 p4) {
  const auto first = kt * x0 / (1.0 + x0 / Ksf);
  return std::tuple{
      fx::d(x0) = -el * x0 + qf * (p0 - x0) - first,
      fx::d(x1) = -el * x1 + qf * (p1 - x1) + first - kt * x1,
      fx::d(x2) = -el * x2 + qf * (p2 - x2) + kt * x1 - kt * x2,
      fx::d(x3) = -el * x3 + qf * (p3 - x3) + kt * x2 - kt * x3,
      fx::d(x4) = -el * x4 + qf * (p4 - x4) + kt * x3,
  };
}
}  // namespace flat_symbols

inline constexpr auto flat = [] {
  using namespace flat_symbols;
  const auto a = compartment(ktr0, e0, X00, X01, X02, X03, X04, X20, X21, X22, X23, X24);
  const auto b = compartment(ktr1, e1, X10, X11, X12, X13, X14, X00, X01, X02, X03, X04);
  const auto z = compartment(ktr2, e2, X20, X21, X22, X23, X24, X10, X11, X12, X13, X14);
  return std::apply(
      [](auto... eqs) {
        return fx::model(fx::states(X00, X01, X02, X03, X04, X10, X11, X12, X13, X14, X20, X21, X22, X23, X24),
                         fx::params(ktr0, ktr1, ktr2, Ksf, e0, e1, e2, qf), eqs...);
      },
      std::tuple_cat(a, b, z));
}();

// --- by hand -----------------------------------------------------------------
// Host and device; jac_x also with element strides for x, p and J (a
// structure-of-arrays batch on the GPU).
struct hand {
  template <class T>
  FLUXION_HOST_DEVICE static T rate(const T* x, const T* p, int cc, int kk) {
    return kk == 0 ? p[cc] / (T(1) + x[K * cc] / p[C]) : p[cc];
  }
  template <class T>
  FLUXION_HOST_DEVICE static void rhs(const T* x, const T* p, T* dx) {
    const T q = p[2 * C + 1];
    for (int cc = 0; cc < C; ++cc) {
      const int prev = (cc + C - 1) % C;
      for (int kk = 0; kk < K; ++kk) {
        const int i = K * cc + kk;
        T v = -p[C + 1 + cc] * x[i] + q * (x[K * prev + kk] - x[i]);
        if (kk > 0) v += rate(x, p, cc, kk - 1) * x[i - 1];
        if (kk < K - 1) v -= rate(x, p, cc, kk) * x[i];
        dx[i] = v;
      }
    }
  }
  // J[(i * n_states + j) * js] = d rhs_i / d x_j.
  template <class T>
  FLUXION_HOST_DEVICE static void jac_x(const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* J,
                                        std::ptrdiff_t js) {
    for (int i = 0; i < n_states * n_states; ++i) J[i * js] = T(0);
    const T q = p[(2 * C + 1) * ps], Ks = p[C * ps];
    for (int cc = 0; cc < C; ++cc) {
      const int prev = (cc + C - 1) % C;
      const T kt = p[cc * ps], x0 = x[K * cc * xs], s = T(1) + x0 / Ks;
      const T d_first = kt / (s * s);  // d (ktr x0 / (1 + x0 / Ks)) / d x0
      for (int kk = 0; kk < K; ++kk) {
        const int i = K * cc + kk;
        T* row = J + i * n_states * js;
        row[i * js] += -p[(C + 1 + cc) * ps] - q;
        row[(K * prev + kk) * js] += q;
        if (kk == 1) row[(i - 1) * js] += d_first;
        if (kk > 1) row[(i - 1) * js] += kt;
        if (kk == 0) row[i * js] -= d_first;
        if (kk > 0 && kk < K - 1) row[i * js] -= kt;
      }
    }
  }
  template <class T>
  FLUXION_HOST_DEVICE static void jac_x(const T* x, const T* p, T* J) {
    jac_x(x, 1, p, 1, J, 1);
  }
};

// x(t1) from x0 by classical RK4 of hand::rhs at step h (t1 / h steps): a
// reference for the solvers, at a step far below the fastest time scale.
inline std::vector<double> rk4_final(const double* x0, const double* p, double t1, double h) {
  std::vector<double> x(x0, x0 + n_states), k1(n_states), k2(n_states), k3(n_states), k4(n_states), tmp(n_states);
  const long steps = std::lround(t1 / h);
  for (long s = 0; s < steps; ++s) {
    hand::rhs(x.data(), p, k1.data());
    for (int i = 0; i < n_states; ++i) tmp[i] = x[i] + 0.5 * h * k1[i];
    hand::rhs(tmp.data(), p, k2.data());
    for (int i = 0; i < n_states; ++i) tmp[i] = x[i] + 0.5 * h * k2[i];
    hand::rhs(tmp.data(), p, k3.data());
    for (int i = 0; i < n_states; ++i) tmp[i] = x[i] + h * k3[i];
    hand::rhs(tmp.data(), p, k4.data());
    for (int i = 0; i < n_states; ++i) x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return x;
}

// A point of the stiff regime: states of order 1, ktr in [1e2, 1e4], Ks in
// [0.5, 2], e in [1e-3, 1e-1], q in [0.1, 1].
inline void draw_stiff(std::mt19937_64& rng, double* x, double* p) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < n_states; ++i) x[i] = 0.05 + 2.0 * u(rng);
  for (int cc = 0; cc < C; ++cc) {
    p[cc] = std::pow(10.0, 2.0 + 2.0 * u(rng));
    p[C + 1 + cc] = std::pow(10.0, -3.0 + 2.0 * u(rng));
  }
  p[C] = 0.5 + 1.5 * u(rng);
  p[2 * C + 1] = 0.1 + 0.9 * u(rng);
}

}  // namespace stage_model
