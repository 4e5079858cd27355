#pragma once
// The values a step computes with. A method's step (solve/explicit_rk.hpp,
// solve/rosenbrock.hpp) is written once over a value type V:
//   - T, one trajectory (the adaptive driver, host and device);
//   - fluxion::lanes<T, W>, W trajectories in the host's SIMD lanes, one a
//     lane (solve/lane_values.hpp specializes step_values for them; host
//     only).
// step_values<V> says how the step's arrays hold V and how the model is
// evaluated on them: a component of a state or stage is a cell, T itself
// for one trajectory and T[W] for lanes (component i of lane w at
// [i][w], as compiled::rhs_lanes reads and writes with element stride W).
//   load(c) -> V, store(c, v)          a cell as V (every lane)
//   lane(c, w) -> T (or T&)            lane w's value (T itself for one trajectory)
//   at<U>(c, w)                        load(c) for U = V, lane(c, w) for U = T
//   rhs(m, t, x, p, ps, out)           f(t, x) into out: every lane (t: V)
//   lane_rhs(m, t, x, xs, p, ps, w, out)   f(t, x) for lane w alone (t: T, x
//                                      with stride xs) into lane w of out
//   lane_data(x, w), lane_stride       lane w of an array of cells as a strided T array
//   jacobian(m, t, x, p, ps, J), rhs_dt(m, t, x, p, ps, out)   J = df/dx (n x n cells) and df/dt
//   solve(lu, b)                       b := A^-1 b with a factored matrix (solve/dense_lu.hpp)
//   truth, any(c), test(c, w)          a comparison's result: whether it holds
//                                      in any lane, and in lane w
// Parameters are p with element stride ps for one trajectory, element-major
// with the lanes consecutive for lanes (ps unused).
//
// Besides: choose(c, a, b), c ? a : b lane by lane (the same operation on a
// scalar), and the scalar helpers finite, epsilon_of and quiet_nan.
#include <cmath>
#include <cstddef>
#include <type_traits>

#include <fluxion/config/macros.hpp>

namespace fluxion::detail {

template <class T>
FLUXION_HOST_DEVICE constexpr bool finite(T v) {
  return v == v && v - v == T(0);  // false for NaN and +-inf, without <cmath> classification
}
template <class T>
FLUXION_HOST_DEVICE constexpr T epsilon_of() {
  return sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313080847e-16);
}
template <class T>
FLUXION_HOST_DEVICE T quiet_nan() {
  return T(::nan(""));
}

// c ? a : b for a truth value, or lane by lane for a lane mask (lane_select,
// found by argument-dependent lookup).
template <class C, class V>
FLUXION_HOST_DEVICE constexpr V choose(C c, V a, V b) {
  if constexpr (std::is_same_v<C, bool>) return c ? a : b;
  else return lane_select(c, a, b);
}

// One trajectory: V is its scalar type.
template <class V>
struct step_values {
  using value = V;
  using scalar = V;
  using cell = V;
  using truth = bool;
  static constexpr std::size_t width = 1;
  static constexpr std::ptrdiff_t lane_stride = 1;

  FLUXION_HOST_DEVICE static V load(const V& c) { return c; }
  FLUXION_HOST_DEVICE static void store(V& c, V v) { c = v; }
  FLUXION_HOST_DEVICE static V& lane(V& c, std::size_t) { return c; }
  FLUXION_HOST_DEVICE static V lane(const V& c, std::size_t) { return c; }
  template <class U>
  FLUXION_HOST_DEVICE static V at(const V& c, std::size_t) {
    return c;
  }
  FLUXION_HOST_DEVICE static const V* lane_data(const V* x, std::size_t) { return x; }
  FLUXION_HOST_DEVICE static bool any(bool c) { return c; }
  FLUXION_HOST_DEVICE static bool test(bool c, std::size_t) { return c; }

  template <class M>
  FLUXION_HOST_DEVICE static void rhs(const M& m, V t, const V* x, const V* p, std::ptrdiff_t ps, V* out) {
    m.rhs(t, x, 1, p, ps, out, 1);
  }
  template <class M>
  FLUXION_HOST_DEVICE static void lane_rhs(const M& m, V t, const V* x, std::ptrdiff_t xs, const V* p,
                                           std::ptrdiff_t ps, std::size_t, V* out) {
    m.rhs(t, x, xs, p, ps, out, 1);
  }
  template <class M>
  FLUXION_HOST_DEVICE static void jacobian(const M& m, V t, const V* x, const V* p, std::ptrdiff_t ps, V* J) {
    m.template jacobian_dense<M::jacobian::x>(t, x, 1, p, ps, J, 1);
  }
  template <class M>
  FLUXION_HOST_DEVICE static void rhs_dt(const M& m, V t, const V* x, const V* p, std::ptrdiff_t ps, V* out) {
    m.rhs_dt(t, x, 1, p, ps, out, 1);
  }
  template <class LU>
  FLUXION_HOST_DEVICE static void solve(const LU& lu, V* b) {
    lu.solve(b);
  }
};

}  // namespace fluxion::detail
