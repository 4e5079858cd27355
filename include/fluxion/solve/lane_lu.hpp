#pragma once
// The factorization with recorded pivots (dense_lu<T, N, false>, for orders
// above register_resident_order, solve/dense_lu.hpp) of W matrices at once,
// one per SIMD lane: each lane picks its pivot and exchanges its rows as one
// matrix alone does (pivot_column on the lane's entries), and the
// elimination and the triangular solves (pivoted_elimination) run on all
// lanes at once; each lane's factors and solutions are those of its matrix
// alone, bit for bit. factor() returns the lanes whose pivots are all
// non-zero (a lane with a zero pivot goes on being eliminated with the
// others; its values are not used). The unrolled form (up to that order)
// takes lanes as they are: its exchanges are lane masks already. Host only.
#include <cstddef>

#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/dense_lu.hpp>

namespace fluxion::detail {

template <class T, std::size_t W, int N>
struct dense_lu<lanes<T, W>, N, false> : pivoted_elimination<lanes<T, W>, N> {
  using L = lanes<T, W>;
  using truth = lane_mask<T, W>;
  int pivot[N][W];

  truth factor() {
    bool regular[W];
    for (std::size_t w = 0; w < W; ++w) regular[w] = true;
    for (int c = 0; c < N; ++c) {
      bool eliminate = false;
      for (std::size_t w = 0; w < W; ++w) {
        const auto at = [this, w](int r, int k) { return this->a[r][k][w]; };
        const auto exchange = [this, w](int r0, int r1) {
          for (int k = 0; k < N; ++k) {
            const T tmp = this->a[r0][k][w];
            this->a[r0][k].v[w] = this->a[r1][k][w];
            this->a[r1][k].v[w] = tmp;
          }
        };
        if (!pivot_column<N>(c, pivot[c][w], at, exchange)) regular[w] = false;
        eliminate = eliminate || regular[w];
      }
      if (eliminate) this->eliminate(c);
    }
    truth m;
    for (std::size_t w = 0; w < W; ++w) m.m[w] = regular[w] ? -1 : 0;
    return m;
  }

  // b := A^-1 b, lane by lane.
  void solve(L* b) const {
    for (int c = 0; c < N; ++c)
      for (std::size_t w = 0; w < W; ++w)
        if (pivot[c][w] != c) {
          const T tmp = b[c][w];
          b[c].v[w] = b[pivot[c][w]][w];
          b[pivot[c][w]].v[w] = tmp;
        }
    this->substitute(b);
  }
};

}  // namespace fluxion::detail
