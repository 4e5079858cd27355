#pragma once
// Slots: an element of a symbol resolved against the block it lives in, as
// a type with a compile-time base offset and addressing, so that reading it
// (or computing where a Jacobian row or column lies) needs no layout, and
// the names of the functions instantiated for it stay short whatever the
// layout (nvcc's device front end spends much of its time mangling names).
#include <cstddef>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/block.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion::detail {

// The buffer a slot is read from: states, parameters, the evaluation's
// scratch, the direction of a directional derivative (over the states or the
// parameters) or the scratch's tangents.
enum class source { x, p, scratch, v, tangents };

// How a slot's indices address its block, computed exactly as the block
// computes offsets (block.hpp): row-major over the symbol's spaces, or by
// strides (a symbol interleaved by a group-major layout).
template <class... Spaces>
struct row_major {
  template <class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t position(I... i) {
    return shape_of<type_list<Spaces...>>::position(i...);
  }
};
template <std::ptrdiff_t... S>
struct strided {
  template <class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t position(I... i) {
    std::ptrdiff_t pos = 0;
    ((pos += std::ptrdiff_t(i) * S), ...);
    return std::size_t(pos);
  }
};

// Element (I...) of a symbol resolved against its block: at Base +
// Addressing::position(I...) in buffer Src. Zero where a shifted index lies
// outside its space, as ref reads.
template <source Src, std::size_t Base, class Addressing, class... I>
struct slot_ref {
  using fluxion_node = void;
  template <class E>
  FLUXION_HOST_DEVICE static constexpr std::size_t offset(const E& e) {
    return Base + Addressing::position(I::value(e)...);
  }
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    if constexpr ((is_ishift<I>::value || ...)) {
      if (!(index_in_range<I>(e) && ...)) return typename C::scalar(0);
    }
    return c.template load<Src>(offset(e));
  }
};

// A slot with an index variable substituted (a Jacobian entry at constant
// indices, compile/jacobian.hpp): zero where a shifted index becomes an
// element outside its space, as the slot reads there.
template <class I, class From, class To>
inline constexpr bool shifted_outside = false;
template <class V, int O, int N>
inline constexpr bool shifted_outside<ishift<V, O>, V, ifix<N>> = N + O < 0 || N + O >= V::space::extent;
template <source Src, std::size_t Base, class Addressing, class... I, class From, class To>
struct subst<slot_ref<Src, Base, Addressing, I...>, From, To> {
  using type = if_t<(shifted_outside<I, From, To> || ...), zero,
                    slot_ref<Src, Base, Addressing, typename subst_index<I, From, To>::type...>>;
};

// How Sym's indices address Block: by strides where Block interleaves it,
// else row-major over its spaces. (Constexpr functions read in decltype,
// not class templates: nvcc's device front end emits and mangles every
// class instantiated, and these would be named by whole blocks.)
template <class Block, class Sym, std::size_t... R>
constexpr auto strided_addressing(std::index_sequence<R...>) {
  return type_identity<strided<Block::template stride<Sym>(R)...>>{};
}
template <class... Sp>
constexpr auto row_major_addressing(type_list<Sp...>) {
  return type_identity<row_major<Sp...>>{};
}
template <class Block, class Sym>
constexpr auto addressing_of() {
  if constexpr (interleaved<typename Block::policy, Sym>)
    return strided_addressing<Block, Sym>(std::make_index_sequence<Sym::rank>{});
  else
    return row_major_addressing(typename Sym::spaces{});
}
// Element (I...) of Sym, which lives in Block, read from buffer Src.
template <source Src, class Block, class Sym, class... I>
using slot_at = slot_ref<Src, Block::template base<Sym>(), typename decltype(addressing_of<Block, Sym>())::type, I...>;

// Element Sym[V...] of Block, for the variables Vars = type_list<V...>:
// element_slot<Vars>::in<Block, Sym> (keyed by the variables alone, the
// block and symbol entering through the alias).
template <class Vars>
struct element_slot;
template <class... V>
struct element_slot<type_list<V...>> {
  template <class Block, class Sym>
  using in = slot_at<source::scratch, Block, Sym, V...>;
};

}  // namespace fluxion::detail
