#pragma once
// Per-symbol views of a flat buffer in the shape of the symbol:
//
//   auto s = fx::view<M::layout::state>(S, x.data());      // s(p, k) == x[offset(S, p, k)]
//   auto s = fx::view(m, S, x.data());                      // the same; the block is S's
//
// With libcu++ available (the CUDA toolkit's include/cccl) a view is a
// ::cuda::std::mdspan with static extents and layout_stride; otherwise a small
// mdspan-like strided view with the same element access.
#include <array>
#include <cstddef>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/block.hpp>

#if defined(FLUXION_HAVE_LIBCUDACXX) || __has_include(<cuda/std/mdspan>)
#  include <cuda/std/mdspan>
#  define FLUXION_VIEW_IS_MDSPAN 1
#else
#  define FLUXION_VIEW_IS_MDSPAN 0
#endif

namespace fluxion {

#if !FLUXION_VIEW_IS_MDSPAN
// Minimal strided view used when libcu++ is not available.
template <class T, std::size_t... E>
struct strided_view {
  T* ptr;
  std::array<std::ptrdiff_t, sizeof...(E)> strides;
  static constexpr std::size_t rank() { return sizeof...(E); }
  static constexpr std::size_t extent(std::size_t r) {
    constexpr std::size_t e[] = {E..., 0};
    return e[r];
  }
  static constexpr std::size_t size() { return (std::size_t{1} * ... * E); }
  constexpr std::ptrdiff_t stride(std::size_t r) const { return strides[r]; }
  constexpr T* data_handle() const { return ptr; }
  template <class... I>
  constexpr T& operator()(I... i) const {
    static_assert(sizeof...(I) == sizeof...(E), "fluxion::strided_view: one index per extent.");
    std::ptrdiff_t off = 0, k = 0;
    ((off += std::ptrdiff_t(i) * strides[k++]), ...);
    return ptr[off];
  }
};
#endif

namespace detail {
template <class T, class Spaces>
struct view_of;
template <class T, class... S>
struct view_of<T, type_list<S...>> {
  static constexpr std::size_t rank = sizeof...(S);
#if FLUXION_VIEW_IS_MDSPAN
  using extents = ::cuda::std::extents<std::size_t, std::size_t(S::extent)...>;
  using type = ::cuda::std::mdspan<T, extents, ::cuda::std::layout_stride>;
#else
  using type = strided_view<T, std::size_t(S::extent)...>;
#endif
  template <class Block, class Sym>
  static constexpr std::array<std::ptrdiff_t, rank> strides(std::ptrdiff_t element_stride) {
    std::array<std::ptrdiff_t, rank> st{};
    for (std::size_t r = 0; r < rank; ++r) st[r] = Block::template stride<Sym>(r) * element_stride;
    return st;
  }
  template <class Block, class Sym>
  static type make(T* base, std::ptrdiff_t element_stride) {
#if FLUXION_VIEW_IS_MDSPAN
    if constexpr (rank == 0) {
      return type(base, typename ::cuda::std::layout_stride::template mapping<extents>());
    } else {
      const auto st = strides<Block, Sym>(element_stride);
      ::cuda::std::array<std::size_t, rank> s{};
      for (std::size_t r = 0; r < rank; ++r) s[r] = std::size_t(st[r]);
      return type(base, typename ::cuda::std::layout_stride::template mapping<extents>(extents{}, s));
    }
#else
    return type{base, strides<Block, Sym>(element_stride)};
#endif
  }
};
}  // namespace detail

// The view of symbol `sym` of layout block `Block` within `data`, whose
// consecutive flat elements are `element_stride` apart (any layout policy).
template <class Block, class Sym, class T>
auto view(Sym, T* data, std::ptrdiff_t element_stride = 1) {
  using S = std::remove_cvref_t<Sym>;
  static_assert(Block::template holds<S>, "fluxion::view: the symbol is not part of this layout block.");
  return detail::view_of<T, typename S::spaces>::template make<Block, S>(
      data + std::ptrdiff_t(Block::template base<S>()) * element_stride, element_stride);
}

namespace detail {
// The block of M's layout (M a compiled model or a layout) that holds Sym.
template <class M, class Sym, class L = layout_of_t<M>>
using block_holding_t = if_t<L::state::template holds<Sym>, typename L::state,
                             if_t<L::param::template holds<Sym>, typename L::param, typename L::observable>>;
}  // namespace detail

// The same with the block deduced from the model (or its layout) and the
// symbol: `fx::view(m, S, x, B)` views S in the state block. The form for a
// .cu file's non-template functions, where nvcc cannot spell the block type
// of the form above (see fluxion::layout_block).
template <class M, class Sym, class T>
  requires requires { typename detail::layout_of_t<M>::state; }
auto view(const M&, Sym sym, T* data, std::ptrdiff_t element_stride = 1) {
  return view<detail::block_holding_t<M, std::remove_cvref_t<Sym>>>(sym, data, element_stride);
}

}  // namespace fluxion
