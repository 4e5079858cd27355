#pragma once
// The steps' value type for W trajectories in the host's SIMD lanes:
// step_values<fluxion::lanes<T, W>> (the protocol is solve/values.hpp's).
// A cell is T[W], component i of lane w at [i][w] (element-major, the lanes
// consecutive), as compiled::rhs_lanes, rhs_dt_lanes and
// jacobian_dense_lanes read and write with element stride W; parameters are
// laid out the same way. Loads and stores copy bytes (lanes::load and
// store), so the arrays stay arrays of T. Host only.
#include <cstddef>
#include <type_traits>

#include <fluxion/compile/compiled.hpp>  // fixed_stride
#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion::detail {

template <class T, std::size_t W>
struct step_values<lanes<T, W>> {
  using value = lanes<T, W>;
  using scalar = T;
  using cell = T[W];
  using truth = lane_mask<T, W>;
  static constexpr std::size_t width = W;
  static constexpr std::ptrdiff_t lane_stride = std::ptrdiff_t(W);
  using stride = fixed_stride<std::ptrdiff_t(W)>;

  static value load(const cell& c) { return value::load(c); }
  static void store(cell& c, value v) { v.store(c); }
  static void store(T& c, T v) { c = v; }
  static T& lane(cell& c, std::size_t w) { return c[w]; }
  static T lane(const cell& c, std::size_t w) { return c[w]; }
  template <class U>
  static U at(const cell& c, std::size_t w) {
    if constexpr (std::is_same_v<U, value>) return load(c);
    else return c[w];
  }
  static const T* lane_data(const cell* x, std::size_t w) { return &x[0][w]; }
  static bool any(truth c) {
    for (std::size_t w = 0; w < W; ++w)
      if (c[w]) return true;
    return false;
  }
  static bool test(truth c, std::size_t w) { return c[w]; }

  template <class M>
  static void rhs(const M& m, value t, const cell* x, const T* p, std::ptrdiff_t, cell* out) {
    m.template rhs_lanes<value>(t, &x[0][0], stride{}, p, stride{}, &out[0][0], stride{});
  }
  template <class M>
  static void lane_rhs(const M& m, T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t, std::size_t w,
                       cell* out) {
    m.rhs(t, x, xs, p + w, std::ptrdiff_t(W), &out[0][w], std::ptrdiff_t(W));
  }
  template <class M>
  static void jacobian(const M& m, value t, const cell* x, const T* p, std::ptrdiff_t, cell* J) {
    m.template jacobian_dense_lanes<M::jacobian::x>(t, &x[0][0], stride{}, p, stride{}, &J[0][0]);
  }
  template <class M>
  static void rhs_dt(const M& m, value t, const cell* x, const T* p, std::ptrdiff_t, cell* out) {
    m.template rhs_dt_lanes<value>(t, &x[0][0], stride{}, p, stride{}, &out[0][0], stride{});
  }
  template <class LU, int N>
  static void solve(const LU& lu, cell (&b)[N]) {
    value v[N];
    for (int i = 0; i < N; ++i) v[i] = load(b[i]);
    lu.solve(v);
    for (int i = 0; i < N; ++i) store(b[i], v[i]);
  }
};

}  // namespace fluxion::detail
