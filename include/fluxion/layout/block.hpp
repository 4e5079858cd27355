#pragma once
// A block of the flat layout: an ordered list of symbols, each a contiguous
// row-major run of elements (symbol-major order). Offsets, extents and names
// are compile-time constants; offset functions are callable on the device.
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>

namespace fluxion {

// The most index spaces a symbol may be shaped over.
inline constexpr std::size_t max_rank = 8;

// One symbol's place in a block, for iteration, printing and export.
struct layout_entry {
  std::string_view name;
  std::string_view kind;
  std::size_t offset;
  std::size_t size;
  std::size_t rank;
  std::array<std::size_t, max_rank> extents;
  std::array<std::string_view, max_rank> spaces;
};

namespace detail {
template <class Spaces>
struct row_major;
template <class... S>
struct row_major<type_list<S...>> {
  static constexpr std::size_t rank = sizeof...(S);
  // Flat position of element (i...) within the symbol, last index fastest.
  template <class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t position(I... i) {
    static_assert(sizeof...(I) == sizeof...(S), "fluxion: an offset needs one index per index space of the symbol.");
    std::size_t pos = 0;
    ((pos = pos * std::size_t(S::extent) + std::size_t(i)), ...);
    return pos;
  }
};
}  // namespace detail

template <class Syms>
struct block;

template <class... Syms>
struct block<detail::type_list<Syms...>> {
  using symbols = detail::type_list<Syms...>;
  static constexpr std::size_t count = sizeof...(Syms);
  // Number of scalars in the block.
  static constexpr std::size_t size = (std::size_t{0} + ... + Syms::size);

  template <class Sym>
  static constexpr bool holds = detail::contains_v<symbols, std::remove_cvref_t<Sym>>;

  // Offset of the first element of Sym.
  template <class Sym>
  FLUXION_HOST_DEVICE static constexpr std::size_t base() {
    static_assert(holds<Sym>, "fluxion::layout: the symbol is not part of this block of the layout.");
    constexpr std::size_t index = detail::index_of_v<symbols, std::remove_cvref_t<Sym>>;
    constexpr std::size_t sizes[] = {Syms::size...};
    std::size_t b = 0;
    for (std::size_t k = 0; k != index; ++k) b += sizes[k];
    return b;
  }

  // Offset of element (i...) of Sym: `offset<decltype(S)>(p, k)`.
  template <class Sym, class... I>
  FLUXION_HOST_DEVICE static constexpr std::size_t offset(I... i) {
    using S = std::remove_cvref_t<Sym>;
    return base<S>() + detail::row_major<typename S::spaces>::position(i...);
  }
  // The same with the symbol object: `offset(S, p, k)`.
  template <class Sym, class... I>
    requires(holds<Sym>)
  FLUXION_HOST_DEVICE static constexpr std::size_t offset(Sym, I... i) {
    return offset<Sym>(i...);
  }

  template <class Sym>
  static constexpr layout_entry entry() {
    using S = std::remove_cvref_t<Sym>;
    layout_entry e{std::string_view(S::name.data, S::name.size()), S::kind::text, base<S>(), S::size,
                   S::rank, {}, {}};
    fill_shape(e, typename S::spaces{});
    return e;
  }
  // Every symbol of the block in layout order.
  static constexpr std::array<layout_entry, count> entries() { return {entry<Syms>()...}; }

 private:
  template <class... Sp>
  static constexpr void fill_shape(layout_entry& e, detail::type_list<Sp...>) {
    std::size_t k = 0;
    ((e.extents[k] = std::size_t(Sp::extent), e.spaces[k] = std::string_view(Sp::name.data, Sp::name.size()), ++k), ...);
  }
};

}  // namespace fluxion
