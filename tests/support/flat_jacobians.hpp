#pragma once
// Hand-derived Jacobians of the four flat models of flat_models.hpp, written
// out entry by entry from the equations with pencil and paper, as plain C++
// that never calls fluxion. Each model has
//
//   jac_x(t, x, p, J)       d rhs / d state          n_states      x n_states
//   jac_p(t, x, p, J)       d rhs / d params         n_states      x n_params
//   obs_jac_x(t, x, p, J)   d observables / d state  n_observables x n_states
//   obs_jac_p(t, x, p, J)   d observables / d params n_observables x n_params
//
// all dense, row-major, rows and columns in the canonical flat order
// (declaration order), plus the structural patterns of the four (which
// entries are not identically zero as expressions), written as 0/1 tables.
//
// The flat models as functions of (t, x, p):
//   sir:       b = beta0 (1 + amp cos(2 pi t / 365)), N = S + I + R, inf = b S I / N
//              S' = -inf,  I' = inf - gamma I,  R' = gamma I;  obs: inf, N
//   lorenz:    x' = sigma (y - x), y' = x (rho - z) - y, z' = x y - beta z;
//              obs: x^2 + y^2 + z^2, z - rho
//   robertson: y1' = -k1 y1 + k3 y2 y3, y2' = k1 y1 - k3 y2 y3 - k2 y2^2, y3' = k2 y2^2;
//              obs: y1 + y2 + y3
//   pk:        C = A1 / V1, E = Vmax C / (Km + C), u = (t < t_inf ? rate : 0)
//              A1' = u - k12 A1 + k21 A2 - E,  A2' = k12 A1 - k21 A2;  obs: C, E
#include <cmath>
#include <cstddef>

namespace flat_jac {

// --- (a) SIR ------------------------------------------------------------------------
// With N = S + I + R:
//   d inf/dS = b I / N - b S I / N^2 = b I (I + R) / N^2
//   d inf/dI = b S / N - b S I / N^2 = b S (S + R) / N^2
//   d inf/dR =         - b S I / N^2
//   d inf/d beta0 = (1 + amp cos(w t)) S I / N,   d inf/d amp = beta0 cos(w t) S I / N
struct sir {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 2;
  static constexpr int jac_x_pattern[3][3] = {{1, 1, 1}, {1, 1, 1}, {0, 1, 0}};
  static constexpr int jac_p_pattern[3][3] = {{1, 1, 0}, {1, 1, 1}, {0, 0, 1}};
  static constexpr int obs_jac_x_pattern[2][3] = {{1, 1, 1}, {1, 1, 1}};
  static constexpr int obs_jac_p_pattern[2][3] = {{1, 1, 0}, {0, 0, 0}};

  template <class T>
  struct parts {
    T cosw, b, N, dS, dI, dR, dbeta0, damp;
  };
  template <class T>
  static parts<T> at(T t, const T* x, const T* p) {
    parts<T> q{};
    const T S = x[0], I = x[1], R = x[2];
    q.cosw = std::cos(T(6.283185307179586) * t / T(365));
    q.b = p[0] * (T(1) + p[1] * q.cosw);
    q.N = S + I + R;
    const T N2 = q.N * q.N;
    q.dS = q.b * I * (I + R) / N2;
    q.dI = q.b * S * (S + R) / N2;
    q.dR = -q.b * S * I / N2;
    q.dbeta0 = (T(1) + p[1] * q.cosw) * S * I / q.N;
    q.damp = p[0] * q.cosw * S * I / q.N;
    return q;
  }
  template <class T>
  static void jac_x(T t, const T* x, const T* p, T* J) {
    const auto q = at(t, x, p);
    const T g = p[2];
    J[0] = -q.dS, J[1] = -q.dI, J[2] = -q.dR;
    J[3] = q.dS, J[4] = q.dI - g, J[5] = q.dR;
    J[6] = 0, J[7] = g, J[8] = 0;
  }
  template <class T>
  static void jac_p(T t, const T* x, const T* p, T* J) {
    const auto q = at(t, x, p);
    const T I = x[1];
    J[0] = -q.dbeta0, J[1] = -q.damp, J[2] = 0;
    J[3] = q.dbeta0, J[4] = q.damp, J[5] = -I;
    J[6] = 0, J[7] = 0, J[8] = I;
  }
  template <class T>
  static void obs_jac_x(T t, const T* x, const T* p, T* J) {
    const auto q = at(t, x, p);
    J[0] = q.dS, J[1] = q.dI, J[2] = q.dR;
    J[3] = 1, J[4] = 1, J[5] = 1;
  }
  template <class T>
  static void obs_jac_p(T t, const T* x, const T* p, T* J) {
    const auto q = at(t, x, p);
    J[0] = q.dbeta0, J[1] = q.damp, J[2] = 0;
    J[3] = 0, J[4] = 0, J[5] = 0;
  }
};

// --- (b) Lorenz -----------------------------------------------------------------------
struct lorenz {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 2;
  static constexpr int jac_x_pattern[3][3] = {{1, 1, 0}, {1, 1, 1}, {1, 1, 1}};
  static constexpr int jac_p_pattern[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  static constexpr int obs_jac_x_pattern[2][3] = {{1, 1, 1}, {0, 0, 1}};
  static constexpr int obs_jac_p_pattern[2][3] = {{0, 0, 0}, {0, 1, 0}};

  template <class T>
  static void jac_x(T, const T* s, const T* p, T* J) {
    J[0] = -p[0], J[1] = p[0], J[2] = 0;
    J[3] = p[1] - s[2], J[4] = -1, J[5] = -s[0];
    J[6] = s[1], J[7] = s[0], J[8] = -p[2];
  }
  template <class T>
  static void jac_p(T, const T* s, const T*, T* J) {
    J[0] = s[1] - s[0], J[1] = 0, J[2] = 0;
    J[3] = 0, J[4] = s[0], J[5] = 0;
    J[6] = 0, J[7] = 0, J[8] = -s[2];
  }
  template <class T>
  static void obs_jac_x(T, const T* s, const T*, T* J) {
    J[0] = 2 * s[0], J[1] = 2 * s[1], J[2] = 2 * s[2];
    J[3] = 0, J[4] = 0, J[5] = 1;
  }
  template <class T>
  static void obs_jac_p(T, const T*, const T*, T* J) {
    J[0] = 0, J[1] = 0, J[2] = 0;
    J[3] = 0, J[4] = -1, J[5] = 0;
  }
};

// --- (c) Robertson --------------------------------------------------------------------
struct robertson {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 1;
  static constexpr int jac_x_pattern[3][3] = {{1, 1, 1}, {1, 1, 1}, {0, 1, 0}};
  static constexpr int jac_p_pattern[3][3] = {{1, 0, 1}, {1, 1, 1}, {0, 1, 0}};
  static constexpr int obs_jac_x_pattern[1][3] = {{1, 1, 1}};
  static constexpr int obs_jac_p_pattern[1][3] = {{0, 0, 0}};

  template <class T>
  static void jac_x(T, const T* y, const T* k, T* J) {
    J[0] = -k[0], J[1] = k[2] * y[2], J[2] = k[2] * y[1];
    J[3] = k[0], J[4] = -k[2] * y[2] - 2 * k[1] * y[1], J[5] = -k[2] * y[1];
    J[6] = 0, J[7] = 2 * k[1] * y[1], J[8] = 0;
  }
  template <class T>
  static void jac_p(T, const T* y, const T*, T* J) {
    J[0] = -y[0], J[1] = 0, J[2] = y[1] * y[2];
    J[3] = y[0], J[4] = -y[1] * y[1], J[5] = -y[1] * y[2];
    J[6] = 0, J[7] = y[1] * y[1], J[8] = 0;
  }
  template <class T>
  static void obs_jac_x(T, const T*, const T*, T* J) {
    J[0] = 1, J[1] = 1, J[2] = 1;
  }
  template <class T>
  static void obs_jac_p(T, const T*, const T*, T* J) {
    J[0] = 0, J[1] = 0, J[2] = 0;
  }
};

// --- (d) two-compartment PK --------------------------------------------------------------
// Parameters: k12 k21 Vmax Km V1 rate t_inf (columns 0..6). With C = A1 / V1:
//   dE/dC = Vmax Km / (Km + C)^2,  dC/dA1 = 1 / V1,  dC/dV1 = -A1 / V1^2
//   dE/dVmax = C / (Km + C),  dE/dKm = -Vmax C / (Km + C)^2
//   du/drate = (t < t_inf ? 1 : 0); du/dt_inf = 0 wherever defined (a step in t_inf:
//   the derivative is structurally zero although the value jumps when t crosses t_inf).
struct pk {
  static constexpr std::size_t n_states = 2, n_params = 7, n_observables = 2;
  static constexpr int jac_x_pattern[2][2] = {{1, 1}, {1, 1}};
  static constexpr int jac_p_pattern[2][7] = {{1, 1, 1, 1, 1, 1, 0}, {1, 1, 0, 0, 0, 0, 0}};
  static constexpr int obs_jac_x_pattern[2][2] = {{1, 0}, {1, 0}};
  static constexpr int obs_jac_p_pattern[2][7] = {{0, 0, 0, 0, 1, 0, 0}, {0, 0, 1, 1, 1, 0, 0}};

  template <class T>
  struct parts {
    T C, dEdC, dEdA1, dEdV1, dEdVmax, dEdKm;
  };
  template <class T>
  static parts<T> at(const T* x, const T* p) {
    parts<T> q{};
    const T V1 = p[4], Vmax = p[2], Km = p[3];
    q.C = x[0] / V1;
    const T d = Km + q.C;
    q.dEdC = Vmax * Km / (d * d);
    q.dEdA1 = q.dEdC / V1;
    q.dEdV1 = -q.dEdC * x[0] / (V1 * V1);
    q.dEdVmax = q.C / d;
    q.dEdKm = -Vmax * q.C / (d * d);
    return q;
  }
  template <class T>
  static void jac_x(T, const T* x, const T* p, T* J) {
    const auto q = at(x, p);
    J[0] = -p[0] - q.dEdA1, J[1] = p[1];
    J[2] = p[0], J[3] = -p[1];
  }
  template <class T>
  static void jac_p(T t, const T* x, const T* p, T* J) {
    const auto q = at(x, p);
    const T on = t < p[6] ? T(1) : T(0);
    J[0] = -x[0], J[1] = x[1], J[2] = -q.dEdVmax, J[3] = -q.dEdKm, J[4] = -q.dEdV1, J[5] = on, J[6] = 0;
    J[7] = x[0], J[8] = -x[1], J[9] = 0, J[10] = 0, J[11] = 0, J[12] = 0, J[13] = 0;
  }
  template <class T>
  static void obs_jac_x(T, const T* x, const T* p, T* J) {
    const auto q = at(x, p);
    J[0] = T(1) / p[4], J[1] = 0;
    J[2] = q.dEdA1, J[3] = 0;
  }
  template <class T>
  static void obs_jac_p(T, const T* x, const T* p, T* J) {
    const auto q = at(x, p);
    J[0] = 0, J[1] = 0, J[2] = 0, J[3] = 0, J[4] = -x[0] / (p[4] * p[4]), J[5] = 0, J[6] = 0;
    J[7] = 0, J[8] = 0, J[9] = q.dEdVmax, J[10] = q.dEdKm, J[11] = q.dEdV1, J[12] = 0, J[13] = 0;
  }
};

}  // namespace flat_jac
