#pragma once
// Compile-time introspection of a compiled model, as Boost.Hana sequences
// (host code only): its blocks, their symbols and the index spaces, each a
// descriptor whose members are compile-time constants, to walk with
// hana::for_each (CSV headers, binding names to offsets, printing) or to
// search by name at compile time.
//
//   #include <fluxion/fluxion.hpp>
//   #include <fluxion/layout/introspect.hpp>
//   namespace hana = boost::hana;
//   using I = fx::introspect<M>;                       // or fx::introspect info(m): M deduced
//
//   hana::for_each(I::states, [](auto s) {            // s: fx::symbol_info<Block, Sym>
//     using S = decltype(s);
//     std::printf("%s: offset %zu, %zu values\n", S::name.data(), S::offset, S::size);
//   });
//   hana::for_each(I::spaces, [](auto sp) { ... decltype(sp)::name, ::extent ... });
//   constexpr auto beta = I::find<"beta">();           // a misspelt name does not compile
//   p[beta.offset_of(3)] = 0.25;                       // same as M::layout::param::offset(beta_symbol, 3)
//
// Members of a symbol descriptor (fx::symbol_info): symbol (the symbol's
// type), block (its layout block), name, kind, hana_name (a hana::string),
// rank, size, offset (of element (0, ...)), extents, strides, spaces (a
// hana::tuple of fx::space_info), offset_of(i...), element_name(i...),
// for_each_element(f) (f(name, offset) for every element, row-major) and
// view(data, element_stride) (fx::view of the symbol).
//
// Not included by <fluxion/fluxion.hpp> (Boost.Hana costs compile time that
// the evaluators do not need), and never by device code: nvcc is not a
// supported Boost.Hana compiler, so this header stops an nvcc translation unit
// (define FLUXION_HANA_UNDER_NVCC to try anyway).
#if defined(__CUDACC__) && !defined(FLUXION_HANA_UNDER_NVCC)
#  error "fluxion/layout/introspect.hpp uses Boost.Hana, which nvcc does not support: include it in host (.cpp) translation units only, or define FLUXION_HANA_UNDER_NVCC to try."
#endif

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/equal.hpp>
#include <boost/hana/find_if.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/optional.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>

#include <fluxion/config/fixed_string.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/block.hpp>
#include <fluxion/layout/describe.hpp>
#include <fluxion/layout/view.hpp>

namespace fluxion {

namespace diagnostics {
template <symbol_name Name>
struct introspect_finds_no_symbol_named {
  static_assert(detail::always_false_v<Name>,
                "fluxion: fx::introspect<M>::find<\"name\">() names a state, parameter or observable that the model "
                "does not declare (the name is this template's argument).");
};
template <symbol_name Name>
struct introspect_finds_no_space_named {
  static_assert(detail::always_false_v<Name>,
                "fluxion: fx::introspect<M>::find_space<\"name\">() names an index space over which no state, "
                "parameter or observable of the model is shaped (the name is this template's argument).");
};
}  // namespace diagnostics

namespace detail {
template <fixed_string S, std::size_t... I>
constexpr auto hana_string_impl(std::index_sequence<I...>) {
  return boost::hana::string_c<S[I]...>;
}
}  // namespace detail

// A name as a hana::string (for hana::find_if, hana::map keys, comparisons).
template <fixed_string S>
inline constexpr auto hana_name = detail::hana_string_impl<S>(std::make_index_sequence<S.size()>{});

// An index space (fx::index<"name", extent, order>).
template <index_space Space>
struct space_info {
  using type = Space;
  static constexpr std::string_view name = text<Space::name>;
  static constexpr auto hana_name = fluxion::hana_name<Space::name>;
  static constexpr int extent = Space::extent;
  static constexpr bool ordered = Space::is_ordered;
};

// A symbol (state, parameter or observable) of a layout block.
template <class Block, class Sym>
struct symbol_info {
  using block = Block;
  using symbol = Sym;
  static constexpr std::string_view name = text<Sym::name>;
  static constexpr auto hana_name = fluxion::hana_name<Sym::name>;
  static constexpr std::string_view kind = Sym::kind::text;
  static constexpr std::size_t rank = Sym::rank;
  static constexpr std::size_t size = Sym::size;
  // Flat offset of element (0, ..., 0) in the block.
  static constexpr std::size_t offset = Block::template base<Sym>();

 private:
  static constexpr layout_entry entry = Block::template entry<Sym>();
  template <class Spaces>
  struct spaces_of;
  template <class... Sp>
  struct spaces_of<detail::type_list<Sp...>> {
    using type = boost::hana::tuple<space_info<Sp>...>;
  };

 public:
  static constexpr std::array<std::size_t, rank> extents = [] {
    std::array<std::size_t, rank> e{};
    for (std::size_t r = 0; r < rank; ++r) e[r] = entry.extents[r];
    return e;
  }();
  // Distance in the block between consecutive elements along each space.
  static constexpr std::array<std::ptrdiff_t, rank> strides = [] {
    std::array<std::ptrdiff_t, rank> s{};
    for (std::size_t r = 0; r < rank; ++r) s[r] = entry.strides[r];
    return s;
  }();
  // The index spaces, in the symbol's order (a hana::tuple of space_info).
  static constexpr typename spaces_of<typename Sym::spaces>::type spaces{};

  // Flat offset of element (i...) in the block.
  template <class... I>
  static constexpr std::size_t offset_of(I... i) {
    return Block::template offset<Sym>(i...);
  }
  // "S[3][2]" for element (3, 2), "sigma" for a scalar.
  template <class... I>
  static std::string element_name(I... i) {
    static_assert(sizeof...(I) == rank, "fluxion::symbol_info::element_name: one index per index space of the symbol.");
    std::string s(name);
    ((s += "[" + std::to_string(i) + "]"), ...);
    return s;
  }
  // f(name, offset) for every element, row-major (last index fastest).
  template <class F>
  static void for_each_element(F&& f) {
    detail::for_each_named_element(entry, f);
  }
  // fx::view of this symbol in a flat buffer of the block.
  template <class T>
  static auto view(T* data, std::ptrdiff_t element_stride = 1) {
    return fluxion::view<Block>(Sym{}, data, element_stride);
  }
};

// A block of the layout: "state", "parameter" or "observable".
template <class Block, fixed_string Name>
struct block_info {
 private:
  template <class Syms>
  struct symbols_of;
  template <class... S>
  struct symbols_of<detail::type_list<S...>> {
    using type = boost::hana::tuple<symbol_info<Block, S>...>;
  };

 public:
  using block = Block;
  static constexpr std::string_view name = text<Name>;
  static constexpr auto hana_name = fluxion::hana_name<Name>;
  static constexpr std::size_t size = Block::size;
  // Its symbols in layout order (a hana::tuple of symbol_info).
  static constexpr typename symbols_of<typename Block::symbols>::type symbols{};
  // The name of every element at its flat offset (fx::element_names).
  static std::vector<std::string> element_names() { return fluxion::element_names<Block>(); }
};

// A group declaration, fx::group<space>(fx::independent or fx::coupled).
template <class Group>
struct group_info {
  static constexpr space_info<typename Group::space> space{};
  static constexpr bool independent = Group::is_independent;
};

namespace detail {
template <class List>
struct spaces_of_symbols;
template <class... S>
struct spaces_of_symbols<type_list<S...>> {
  using type = unique_t<concat_t<type_list<>, typename S::spaces...>>;
};
template <class List, template <class> class Info>
struct hana_tuple_of;
template <class... T, template <class> class Info>
struct hana_tuple_of<type_list<T...>, Info> {
  using type = boost::hana::tuple<Info<T>...>;
};
template <class Block, class Syms>
struct symbol_infos;
template <class Block, class... S>
struct symbol_infos<Block, type_list<S...>> {
  using type = type_list<symbol_info<Block, S>...>;
};
template <class... Lists>
struct hana_tuple_of_lists {
  using type = typename hana_tuple_of<concat_t<Lists...>, std::type_identity_t>::type;
};
}  // namespace detail

// Introspection of a compiled model M (fx::compiled<model, T, Policy>):
// fx::introspect<M>, or fx::introspect info(m) with M deduced from a model
// object (every member is static: info.states, info.find<"beta">()).
template <class M>
struct introspect {
  constexpr introspect() = default;
  constexpr explicit introspect(const M&) {}

  using layout = typename M::layout;
  using state_block = block_info<typename layout::state, "state">;
  using param_block = block_info<typename layout::param, "parameter">;
  using observable_block = block_info<typename layout::observable, "observable">;

  // The three blocks, in this order (a hana::tuple of block_info).
  static constexpr boost::hana::tuple<state_block, param_block, observable_block> blocks{};
  // Each block's symbols in layout order (hana::tuples of symbol_info).
  static constexpr auto states = state_block::symbols;
  static constexpr auto params = param_block::symbols;
  static constexpr auto observables = observable_block::symbols;
  // All of them: states, then parameters, then observables.
  static constexpr typename detail::hana_tuple_of_lists<
      typename detail::symbol_infos<typename layout::state, typename layout::state::symbols>::type,
      typename detail::symbol_infos<typename layout::param, typename layout::param::symbols>::type,
      typename detail::symbol_infos<typename layout::observable, typename layout::observable::symbols>::type>::type
      symbols{};
  // Every index space a state, parameter or observable is shaped over, in
  // order of first appearance (a hana::tuple of space_info).
  static constexpr typename detail::hana_tuple_of<
      typename detail::spaces_of_symbols<detail::concat_t<typename layout::state::symbols, typename layout::param::symbols,
                                                          typename layout::observable::symbols>>::type,
      space_info>::type spaces{};
  // The model's fx::group declarations (a hana::tuple of group_info).
  static constexpr typename detail::hana_tuple_of<typename M::traits::groups, group_info>::type groups{};

  // The descriptor of the symbol with this name (a hana::string, e.g.
  // BOOST_HANA_STRING("beta")); a name the model does not declare does not compile.
  template <class Name>
  static constexpr auto find(Name) {
    constexpr auto found = find_symbol(Name{});
    static_assert(decltype(boost::hana::is_just(found))::value,
                  "fluxion: fx::introspect<M>::find names a state, parameter or observable that the model does "
                  "not declare.");
    if constexpr (decltype(boost::hana::is_just(found))::value) return *found;
  }
  // The same with the name as a template argument: find<"beta">(). A name the
  // model does not declare stops the build with
  // diagnostics::introspect_finds_no_symbol_named<"name">.
  template <fixed_string Name>
  static constexpr auto find() {
    constexpr auto found = find_symbol(fluxion::hana_name<Name>);
    if constexpr (decltype(boost::hana::is_just(found))::value) return *found;
    else (void)diagnostics::introspect_finds_no_symbol_named<Name>{};
  }
  // The descriptor of the index space with this name: find_space<"patch">().
  template <fixed_string Name>
  static constexpr auto find_space() {
    constexpr auto found = boost::hana::find_if(
        spaces, [](auto s) { return boost::hana::equal(decltype(s)::hana_name, fluxion::hana_name<Name>); });
    if constexpr (decltype(boost::hana::is_just(found))::value) return *found;
    else (void)diagnostics::introspect_finds_no_space_named<Name>{};
  }

 private:
  template <class Name>
  static constexpr auto find_symbol(Name) {
    return boost::hana::find_if(symbols, [](auto s) { return boost::hana::equal(decltype(s)::hana_name, Name{}); });
  }
};

}  // namespace fluxion
