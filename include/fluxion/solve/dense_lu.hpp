#pragma once
// LU factorization with partial pivoting of a small dense N x N matrix held
// by one thread (row-major, in registers or thread-local memory), and the
// solves with it: what a Rosenbrock step needs for its iteration matrix.
// `__host__ __device__`, no allocation. A zero pivot leaves the factors
// with a zero on the diagonal and factor() returns false.
#include <fluxion/config/macros.hpp>
#include <fluxion/symbolic/math.hpp>

namespace fluxion::detail {

template <class T, int N>
struct dense_lu {
  T a[N][N];
  int pivot[N];

  FLUXION_HOST_DEVICE bool factor() {
    bool regular = true;
    for (int c = 0; c < N; ++c) {
      int best = c;
      T best_abs = math::abs(a[c][c]);
      for (int r = c + 1; r < N; ++r) {
        const T v = math::abs(a[r][c]);
        if (v > best_abs) best = r, best_abs = v;
      }
      pivot[c] = best;
      if (best != c)
        for (int k = 0; k < N; ++k) {
          const T tmp = a[c][k];
          a[c][k] = a[best][k];
          a[best][k] = tmp;
        }
      if (!(best_abs > T(0))) {
        regular = false;
        continue;
      }
      const T inv = T(1) / a[c][c];
      for (int r = c + 1; r < N; ++r) {
        const T l = a[r][c] * inv;
        a[r][c] = l;
        for (int k = c + 1; k < N; ++k) a[r][k] -= l * a[c][k];
      }
    }
    return regular;
  }

  // b := A^-1 b.
  FLUXION_HOST_DEVICE void solve(T* b) const {
    for (int c = 0; c < N; ++c)
      if (pivot[c] != c) {
        const T tmp = b[c];
        b[c] = b[pivot[c]];
        b[pivot[c]] = tmp;
      }
    for (int r = 1; r < N; ++r)
      for (int k = 0; k < r; ++k) b[r] -= a[r][k] * b[k];
    for (int r = N - 1; r >= 0; --r) {
      for (int k = r + 1; k < N; ++k) b[r] -= a[r][k] * b[k];
      b[r] /= a[r][r];
    }
  }
};

}  // namespace fluxion::detail
