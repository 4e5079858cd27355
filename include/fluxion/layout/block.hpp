#pragma once
// A block of the flat layout: an ordered list of symbols and where each
// element of each symbol lies. Element (i...) of symbol S is at
//
//     base<S>() + sum_r i_r * stride<S>(r)
//
// Offsets, strides, extents and names are compile-time constants; offset
// functions are callable on the device.
//
// Policies:
//   symbol_major      every symbol a contiguous row-major run, symbols in
//                     declaration order (the default);
//   group_major<G>    the symbols shaped over space G are interleaved so that
//                     each element of G holds all of its values contiguously
//                     (for block solvers): element g's run is
//                     [g * per_element, (g + 1) * per_element), and inside it
//                     the symbols follow in declaration order, each row-major
//                     over its remaining spaces. Symbols not shaped over G
//                     follow after all runs, symbol-major.
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/index.hpp>

namespace fluxion {

struct symbol_major {};
template <index_space G>
struct group_major {
  using space = G;
};

// The most index spaces a symbol may be shaped over.
inline constexpr std::size_t max_rank = 8;

// One symbol's place in a block, for iteration, printing and export.
struct layout_entry {
  std::string_view name;
  std::string_view kind;
  std::size_t offset;  // of element (0, ..., 0)
  std::size_t size;
  std::size_t rank;
  std::array<std::size_t, max_rank> extents;
  std::array<std::ptrdiff_t, max_rank> strides;
  std::array<std::string_view, max_rank> spaces;
};

namespace detail {

// Row-major position and strides of a symbol's elements, computed from its
// spaces' extents (no static tables, so usable in device code).
template <class Spaces>
struct shape_of;
template <class... S>
struct shape_of<type_list<S...>> {
  static constexpr std::size_t rank = sizeof...(S);
  template <class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t position(I... i) {
    std::size_t pos = 0;
    ((pos = pos * std::size_t(S::extent) + std::size_t(i)), ...);
    return pos;
  }
  // Product of the extents after r, skipping position `skip`.
  FLUXION_HOST_DEVICE static constexpr std::ptrdiff_t inner(std::size_t r, std::size_t skip) {
    const std::size_t ext[] = {std::size_t(S::extent)..., 1};
    std::ptrdiff_t st = 1;
    for (std::size_t q = r + 1; q < rank; ++q)
      if (q != skip) st *= std::ptrdiff_t(ext[q]);
    return st;
  }
};

// Position of space G among Sym's spaces, or rank when absent.
template <class Sym, class G>
inline constexpr std::size_t position_of_space = index_of_v<typename Sym::spaces, G>;

template <class Policy, class Sym>
inline constexpr bool interleaved = false;
template <class G, class Sym>
inline constexpr bool interleaved<group_major<G>, Sym> = contains_v<typename Sym::spaces, G>;

template <class Policy>
struct policy_space {
  using type = void;
};
template <class G>
struct policy_space<group_major<G>> {
  using type = G;
};

}  // namespace detail

template <class Syms, class Policy = symbol_major>
struct block;

template <class... Syms, class Policy>
struct block<detail::type_list<Syms...>, Policy> {
  using symbols = detail::type_list<Syms...>;
  using policy = Policy;
  static constexpr std::size_t count = sizeof...(Syms);
  // Number of scalars in the block.
  static constexpr std::size_t size = (std::size_t{0} + ... + Syms::size);

  template <class Sym>
  static constexpr bool holds = detail::contains_v<symbols, std::remove_cvref_t<Sym>>;

 private:
  using G = typename detail::policy_space<Policy>::type;
  template <class S>
  static constexpr bool inter = detail::interleaved<Policy, S>;
  template <class S>
  FLUXION_HOST_DEVICE static constexpr std::size_t per_group_element() {
    if constexpr (inter<S>) return S::size / std::size_t(G::extent);
    else return 0;
  }

 public:
  // Scalars each group element holds (group-major), 0 for symbol-major.
  static constexpr std::size_t per_element = (std::size_t{0} + ... + per_group_element<Syms>());

  // Offset of element (0, ..., 0) of Sym.
  template <class Sym>
  FLUXION_HOST_DEVICE static constexpr std::size_t base() {
    using S = std::remove_cvref_t<Sym>;
    static_assert(holds<S>, "fluxion::layout: the symbol is not part of this block of the layout.");
    constexpr std::size_t index = detail::index_of_v<symbols, S>;
    constexpr bool in_run[] = {inter<Syms>..., false};
    constexpr std::size_t sizes[] = {Syms::size..., 0};
    constexpr std::size_t run_sizes[] = {per_group_element<Syms>()..., 0};
    std::size_t b = inter<S> ? 0 : (std::is_void_v<G> ? 0 : per_element * std::size_t(extent_of_g()));
    for (std::size_t k = 0; k != index; ++k) {
      if (inter<S> && in_run[k]) b += run_sizes[k];
      if (!inter<S> && !in_run[k]) b += sizes[k];
    }
    return b;
  }

  // Distance in the flat buffer between consecutive elements along Sym's space r.
  template <class Sym>
  FLUXION_HOST_DEVICE static constexpr std::ptrdiff_t stride(std::size_t r) {
    using S = std::remove_cvref_t<Sym>;
    using shape = detail::shape_of<typename S::spaces>;
    if constexpr (inter<S>) {
      constexpr std::size_t gpos = detail::position_of_space<S, G>;
      return r == gpos ? std::ptrdiff_t(per_element) : shape::inner(r, gpos);
    } else {
      return shape::inner(r, shape::rank);
    }
  }

  // Offset of element (i...) of Sym: `offset<decltype(S)>(p, k)`.
  template <class Sym, class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t offset(I... i) {
    using S = std::remove_cvref_t<Sym>;
    static_assert(sizeof...(I) == S::rank, "fluxion::layout: an offset needs one index per index space of the symbol.");
    if constexpr (!inter<S>) {
      return base<S>() + detail::shape_of<typename S::spaces>::position(i...);
    } else {
      std::ptrdiff_t pos = 0;
      std::size_t r = 0;
      ((pos += std::ptrdiff_t(i) * stride<S>(r++)), ...);
      return base<S>() + std::size_t(pos);
    }
  }
  // The same with the symbol object: `offset(S, p, k)`. (Not constrained by
  // holds<Sym>: a symbol of another block stops in the sentence below, not
  // in a list of candidates.)
  template <class Sym, class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t offset(Sym, I... i) {
    static_assert(holds<std::remove_cvref_t<Sym>>, "fluxion::layout: the symbol is not part of this block of the layout.");
    if constexpr (holds<std::remove_cvref_t<Sym>>) return offset<Sym>(i...);
    else return 0;
  }

  template <class Sym>
  static constexpr layout_entry entry() {
    using S = std::remove_cvref_t<Sym>;
    layout_entry e{fluxion::text<S::name>, S::kind::text, base<S>(), S::size, S::rank, {}, {}, {}};
    fill_shape<S>(e, typename S::spaces{});
    return e;
  }
  // Every symbol of the block in declaration order.
  static constexpr std::array<layout_entry, count> entries() { return {entry<Syms>()...}; }

 private:
  FLUXION_HOST_DEVICE static constexpr int extent_of_g() {
    if constexpr (std::is_void_v<G>) return 0;
    else return G::extent;
  }
  template <class S, class... Sp>
  static constexpr void fill_shape(layout_entry& e, detail::type_list<Sp...>) {
    std::size_t k = 0;
    ((e.extents[k] = std::size_t(Sp::extent), e.strides[k] = stride<S>(k),
      e.spaces[k] = fluxion::text<Sp::name>, ++k),
     ...);
  }
};

// A block of a layout named by value, for the forms that take the model as
// an argument: fx::element_names<fx::layout_block::state>(m). A block's type
// carries its symbols' names, which nvcc's generated host code cannot spell
// in a non-template function ("'__T8' was not declared"); this names none.
enum class layout_block { state, param, observable };

namespace detail {
// The layout of X: X::layout for a compiled model, X itself for a layout.
template <class X>
struct layout_of {
  using type = X;
};
template <class X>
  requires requires { typename X::layout; }
struct layout_of<X> {
  using type = typename X::layout;
};
template <class X>
using layout_of_t = typename layout_of<std::remove_cvref_t<X>>::type;

// Block B of the layout of X (a compiled model or a layout).
template <class X, layout_block B>
using block_of_t = if_t<B == layout_block::state, typename layout_of_t<X>::state,
                        if_t<B == layout_block::param, typename layout_of_t<X>::param,
                             typename layout_of_t<X>::observable>>;
}  // namespace detail

}  // namespace fluxion
