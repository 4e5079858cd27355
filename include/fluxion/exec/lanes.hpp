#pragma once
// lanes<T, W>: W values of T processed together by the host's SIMD units, so
// that one evaluation of the generated code serves W instances of a batch
// whose instances are consecutive in memory (structure-of-arrays).
//
// Arithmetic maps to the compiler's vector extensions (one instruction per
// operation on AVX2 / AVX-512 / NEON); elementary functions apply the scalar
// function lane by lane. Comparisons give lane masks, and where() selects
// lane by lane (both branches are evaluated, as in any SIMD code); so do
// fluxion::math::min and max, with the scalar rule's comparisons (the same
// bits as one value at a time). Host only.
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace fluxion {

// The SIMD width of the target in bytes: what the compiler was told the
// machine has (-march=native on a machine with AVX-512 gives 64).
#if defined(__AVX512F__)
inline constexpr std::size_t simd_bytes = 64;
#elif defined(__AVX__)
inline constexpr std::size_t simd_bytes = 32;
#else
inline constexpr std::size_t simd_bytes = 16;
#endif

template <class T, std::size_t W>
struct lane_mask;

template <class T, std::size_t W = simd_bytes / sizeof(T)>
struct lanes {
  static_assert(std::is_floating_point_v<T>, "fluxion::lanes: lanes hold float or double.");
  static_assert(W >= 1 && (W & (W - 1)) == 0, "fluxion::lanes: the number of lanes is a power of two.");
  using fluxion_lanes = void;
  using value_type = T;
  static constexpr std::size_t width = W;
  typedef T vector __attribute__((vector_size(W * sizeof(T))));
  vector v;

  lanes() = default;
  constexpr lanes(vector x) : v(x) {}
  template <class U>
    requires std::is_arithmetic_v<U>
  constexpr explicit lanes(U x) : v(vector{} + static_cast<T>(x)) {}

  // W consecutive values from memory (no alignment needed).
  static lanes load(const T* p) {
    lanes r;
    std::memcpy(&r.v, p, sizeof(vector));
    return r;
  }
  void store(T* p) const { std::memcpy(p, &v, sizeof(vector)); }
  T operator[](std::size_t i) const { return v[i]; }

  // f applied lane by lane (elementary functions).
  template <class F>
  lanes map(F f) const {
    lanes r;
    for (std::size_t i = 0; i < W; ++i) r.v[i] = f(v[i]);
    return r;
  }
  template <class F>
  lanes map(const lanes& b, F f) const {
    lanes r;
    for (std::size_t i = 0; i < W; ++i) r.v[i] = f(v[i], b.v[i]);
    return r;
  }

  friend lanes operator+(lanes a, lanes b) { return a.v + b.v; }
  friend lanes operator-(lanes a, lanes b) { return a.v - b.v; }
  friend lanes operator*(lanes a, lanes b) { return a.v * b.v; }
  friend lanes operator/(lanes a, lanes b) { return a.v / b.v; }
  friend lanes operator-(lanes a) { return -a.v; }
  friend lane_mask<T, W> operator<(lanes a, lanes b) { return {a.v < b.v}; }
  friend lane_mask<T, W> operator<=(lanes a, lanes b) { return {a.v <= b.v}; }
  friend lane_mask<T, W> operator>(lanes a, lanes b) { return {a.v > b.v}; }
  friend lane_mask<T, W> operator>=(lanes a, lanes b) { return {a.v >= b.v}; }
  friend lane_mask<T, W> operator==(lanes a, lanes b) { return {a.v == b.v}; }
  friend lane_mask<T, W> operator!=(lanes a, lanes b) { return {a.v != b.v}; }
};

// Per-lane truth values: all bits set where true.
template <class T, std::size_t W>
struct lane_mask {
  using fluxion_lane_mask = void;
  using bits = decltype(typename lanes<T, W>::vector{} < typename lanes<T, W>::vector{});
  bits m;
  friend lane_mask operator&&(lane_mask a, lane_mask b) { return {a.m & b.m}; }
  friend lane_mask operator||(lane_mask a, lane_mask b) { return {a.m | b.m}; }
  friend lane_mask operator!(lane_mask a) { return {~a.m}; }
  // Every lane b. (Not b ? (m || !m) : (m && !m): g++ 12 at -O1 folds that
  // into a vector select on a scalar condition, and stops with an internal
  // compiler error in gimple_expand_vec_cond_expr.)
  static lane_mask all(bool b) { return {bits{} - static_cast<typename std::remove_cvref_t<decltype(bits{}[0])>>(b)}; }
  bool operator[](std::size_t i) const { return m[i] != 0; }
};

// where(mask, a, b) lane by lane (found by argument-dependent lookup from
// where_node).
template <class T, std::size_t W>
lanes<T, W> lane_select(lane_mask<T, W> c, lanes<T, W> a, lanes<T, W> b) {
  return c.m ? a.v : b.v;
}

}  // namespace fluxion
