#pragma once
// LU factorization with partial pivoting of a small dense N x N matrix held
// by one thread (row-major), and the solves with it: what a Rosenbrock step
// needs for its iteration matrix. `__host__ __device__`, no allocation.
//
// Up to `register_resident_order` the loops are fully unrolled and the row
// exchanges are conditional swaps at fixed positions (for each column, every
// lower row whose entry is larger in magnitude trades places with the pivot
// row, leaving the largest there, the earliest of ties): every index is then
// a constant, so a GPU keeps the matrix in registers instead of thread-local
// memory. Larger matrices exchange rows by a recorded pivot index.
// factor() returns false when a pivot is zero.
//
// The diagonal keeps the pivots' reciprocals, which the elimination forms
// anyway: the solves multiply by them instead of dividing. A step of Rodas5P
// solves with one factorization 8 times, and a double division is a
// sequence of some 10 dependent instructions on a GPU (24 of the 56
// divisions in the Robertson kernel's PTX were these). Each quotient so
// formed is within an ulp of the divided one (two roundings instead of one).
//
// The unrolled form also factors several matrices at once, one per SIMD lane
// (T = fluxion::lanes, host only, for Rosenbrock ensembles in lanes): the
// comparisons give lane masks, the exchanges select lane by lane, and each
// lane's factors and solutions are those of its matrix alone, bit for bit;
// factor() then returns the mask of the lanes whose pivots are all non-zero.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>
#include <fluxion/solve/values.hpp>  // choose


namespace fluxion::detail {

inline constexpr int register_resident_order = 8;

template <class T, int N, bool Unrolled = (N <= register_resident_order)>
struct dense_lu;

template <class T, int N>
struct dense_lu<T, N, true> {
  using truth = decltype(T(0) > T(0));  // bool, or a lane mask
  T a[N][N];
  truth swapped[N][N];  // swapped[c][r]: rows c and r traded places while column c was pivoted

  FLUXION_HOST_DEVICE truth factor() {
    truth regular = T(0) == T(0);
    FLUXION_UNROLL
    for (int c = 0; c < N; ++c) {
      FLUXION_UNROLL
      for (int r = c + 1; r < N; ++r) {
        const truth s = math::abs(a[r][c]) > math::abs(a[c][c]);
        swapped[c][r] = s;
        FLUXION_UNROLL
        for (int k = 0; k < N; ++k) {
          const T top = a[c][k], low = a[r][k];
          a[c][k] = choose(s, low, top);
          a[r][k] = choose(s, top, low);
        }
      }
      regular = regular && math::abs(a[c][c]) > T(0);
      const T inv = T(1) / a[c][c];
      a[c][c] = inv;
      FLUXION_UNROLL
      for (int r = c + 1; r < N; ++r) {
        const T l = a[r][c] * inv;
        a[r][c] = l;
        FLUXION_UNROLL
        for (int k = c + 1; k < N; ++k) a[r][k] = a[r][k] - l * a[c][k];
      }
    }
    return regular;
  }

  // b := A^-1 b.
  // The exchanges in the order factor() made them (the stored multipliers
  // moved with their rows), then the two triangular solves.
  FLUXION_HOST_DEVICE void solve(T* b) const {
    FLUXION_UNROLL
    for (int c = 0; c < N; ++c) {
      FLUXION_UNROLL
      for (int r = c + 1; r < N; ++r) {
        const T top = b[c], low = b[r];
        b[c] = choose(swapped[c][r], low, top);
        b[r] = choose(swapped[c][r], top, low);
      }
    }
    FLUXION_UNROLL
    for (int r = 1; r < N; ++r) {
      FLUXION_UNROLL
      for (int k = 0; k < r; ++k) b[r] = b[r] - a[r][k] * b[k];
    }
    FLUXION_UNROLL
    for (int r = N - 1; r >= 0; --r) {
      FLUXION_UNROLL
      for (int k = r + 1; k < N; ++k) b[r] = b[r] - a[r][k] * b[k];
      b[r] = b[r] * a[r][r];  // the pivot's reciprocal
    }
  }
};

// The factorization with recorded pivots, in two pieces that the SIMD
// lanes' form (solve/lane_lu.hpp: a pivot per lane) shares:
//   pivot_column<N>(c, pivot, at, exchange)   column c's pivot, the first
//       row of largest magnitude from c down (entry (r, k) is at(r, k)),
//       exchanged with row c (exchange(c, r)); whether it is non-zero;
//   pivoted_elimination<V, N>   over V (T, or lanes of T): the elimination
//       below a pivot in place (its reciprocal kept on the diagonal, the
//       multipliers below it) and the two triangular solves.
template <int N, class At, class Exchange>
FLUXION_HOST_DEVICE bool pivot_column(int c, int& pivot, const At& at, const Exchange& exchange) {
  int best = c;
  auto best_abs = math::abs(at(c, c));
  for (int r = c + 1; r < N; ++r) {
    const auto v = math::abs(at(r, c));
    if (v > best_abs) best = r, best_abs = v;
  }
  pivot = best;
  if (best != c) exchange(c, best);
  return best_abs > decltype(best_abs)(0);
}

template <class V, int N>
struct pivoted_elimination {
  V a[N][N];

  FLUXION_HOST_DEVICE void eliminate(int c) {
    const V inv = V(1) / a[c][c];
    a[c][c] = inv;
    for (int r = c + 1; r < N; ++r) {
      const V l = a[r][c] * inv;
      a[r][c] = l;
      for (int k = c + 1; k < N; ++k) a[r][k] = a[r][k] - l * a[c][k];
    }
  }
  // b := U^-1 L^-1 b, b's rows already exchanged.
  FLUXION_HOST_DEVICE void substitute(V* b) const {
    for (int r = 1; r < N; ++r)
      for (int k = 0; k < r; ++k) b[r] = b[r] - a[r][k] * b[k];
    for (int r = N - 1; r >= 0; --r) {
      for (int k = r + 1; k < N; ++k) b[r] = b[r] - a[r][k] * b[k];
      b[r] = b[r] * a[r][r];  // the pivot's reciprocal
    }
  }
};

template <class T, int N>
struct dense_lu<T, N, false> : pivoted_elimination<T, N> {
  int pivot[N];

  FLUXION_HOST_DEVICE bool factor() {
    bool regular = true;
    for (int c = 0; c < N; ++c) {
      const auto at = [this](int r, int k) { return this->a[r][k]; };
      const auto exchange = [this](int r0, int r1) {
        for (int k = 0; k < N; ++k) {
          const T tmp = this->a[r0][k];
          this->a[r0][k] = this->a[r1][k];
          this->a[r1][k] = tmp;
        }
      };
      if (!pivot_column<N>(c, pivot[c], at, exchange)) {
        regular = false;
        continue;
      }
      this->eliminate(c);
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
    this->substitute(b);
  }
};

}  // namespace fluxion::detail
