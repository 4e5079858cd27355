#pragma once
// The evaluation context: what a bound expression reads during one
// evaluation (the state, parameter and direction buffers with their element
// strides, the scratch of aliases and hoisted subexpressions and its
// tangents, and time), and the strides known at compile time.
#include <cstddef>
#include <type_traits>

#include <fluxion/compile/slot.hpp>
#include <fluxion/config/macros.hpp>

namespace fluxion::detail {

// The element stride of a contiguous buffer, known to be 1 at compile time,
// so contiguous calls compile to unit-stride code whether or not they inline.
struct unit_stride {
  FLUXION_HOST_DEVICE constexpr operator std::ptrdiff_t() const { return 1; }
};
// Any element stride known at compile time (the host's SoA tiles).
template <std::ptrdiff_t N>
struct fixed_stride {
  FLUXION_HOST_DEVICE constexpr operator std::ptrdiff_t() const { return N; }
};

// A value of type V read from memory of element type T: V is T, or a SIMD
// type holding consecutive instances (lanes.hpp) with V::load and store.
template <class V, class T>
FLUXION_HOST_DEVICE V load_value(const T* p) {
  if constexpr (std::is_same_v<V, T>) return *p;
  else return V::load(p);
}
template <class T, class V>
FLUXION_HOST_DEVICE void store_value(T* p, const V& v) {
  if constexpr (std::is_same_v<V, T>) *p = v;
  else v.store(p);
}

// What expressions read during one evaluation: states x, parameters p (with
// element strides), aliases and hoisted subexpressions in scratch, and for
// directional derivatives the direction v over the states or the parameters
// and the tangents of the scratch. Buffers hold T; expressions compute in V
// (T, or lanes of T for several consecutive instances at once).
//
// Expressions are evaluated in bound form (compile/detail/bind.hpp): every reference
// already resolved to a buffer and a compile-time offset, so the context
// needs no layout and its type, which names every evaluation function the
// compiler instantiates, stays small whatever the model. (The slots they
// read, and the buffers they name, are in slot.hpp.)
template <class T, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t, class V = T>
struct eval_context {
  using scalar = V;
  V t;
  const T* x;
  SX xs;
  const T* p;
  SP ps;
  const V* intermediates;
  const T* v = nullptr;
  std::ptrdiff_t vs = 1;
  const V* tangent_intermediates = nullptr;

  FLUXION_HOST_DEVICE constexpr V time() const { return t; }

  template <source Src>
  FLUXION_HOST_DEVICE constexpr V load(std::size_t offset) const {
    if constexpr (Src == source::x) return load_value<V>(x + std::ptrdiff_t(offset) * xs);
    else if constexpr (Src == source::p) return load_value<V>(p + std::ptrdiff_t(offset) * ps);
    else if constexpr (Src == source::scratch) return intermediates[offset];
    else if constexpr (Src == source::v) return load_value<V>(v + std::ptrdiff_t(offset) * vs);
    else return tangent_intermediates[offset];
  }
};

}  // namespace fluxion::detail
