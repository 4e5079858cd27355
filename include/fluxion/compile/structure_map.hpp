#pragma once
// The compile-time block structure of a Jacobian: for each output block (a
// state or observable) and input block (a state or parameter), whether the
// output depends on the input at all and, for each index space of the input,
// through which index map: the same element as the output's own index, a
// shifted stage (k - 1, as transport reads), every element of a summed index,
// or a fixed element. Read from the derivative expression's Kronecker deltas;
// nothing is enumerated, so the cost does not grow with the extents.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/compile/jacobian.hpp>
#include <fluxion/layout/block.hpp>
#include <fluxion/symbolic/children.hpp>

namespace fluxion {

// Bits of an index map (several when terms differ).
enum index_map : std::uint8_t {
  map_same_element = 1,
  map_previous_stage = 2,
  map_shifted = 4,
  map_every_element = 8,
  map_fixed_element = 16,
};

struct block_dependence {
  std::string_view output;
  std::string_view input;
  std::size_t input_rank;
  std::array<std::uint8_t, max_rank> maps;  // per index space of the input
};

namespace detail {

// Which map connects the input's variable W to the rest of the delta.
template <class X, class Bound, class Previous, class W>
constexpr std::uint8_t map_of_other() {
  if constexpr (is_ifix<X>::value) {
    return map_fixed_element;
  } else if constexpr (is_ishift<X>::value) {
    return contains_v<Bound, typename X::var> ? map_every_element
                                               : (X::offset == -1 ? map_previous_stage : map_shifted);
  } else if constexpr (index_variable<X>) {
    if constexpr (contains_v<Bound, X>) return map_every_element;
    else if constexpr (contains_v<Previous, X>) return map_previous_stage;
    else return map_same_element;
  } else {
    return 0;
  }
}

// Collects the maps of wrt variable W in E; Bound: reduction variables in
// scope; Previous: variables rebound one stage back by at_previous.
template <class... M>
using maps_union = std::integral_constant<std::uint8_t, std::uint8_t((M::value | ... | 0))>;
template <class E, class W, class Bound, class Previous>
struct maps_in : node_traits<E>::template fold<maps_union, child_test<maps_in, W, Bound, Previous>> {};
template <class Op, class V, class A, class W, class B, class P>
struct maps_in<reduce<Op, V, A>, W, B, P> : maps_in<A, W, concat_t<B, type_list<V>>, P> {};
template <class V, class A, class W, class B, class P>
struct maps_in<at_previous<V, A>, W, B, P> : maps_in<A, W, B, concat_t<P, type_list<V>>> {};
template <class I, class J, class W, class B, class P>
struct maps_in<kdelta<I, J>, W, B, P> {
  static constexpr std::uint8_t value = std::is_same_v<J, W>   ? map_of_other<I, B, P, W>()
                                        : std::is_same_v<I, W> ? map_of_other<J, B, P, W>()
                                                               : 0;
};

// A value read at the input's own index (C[p, j] once a sum over a delta has
// collapsed) depends on every element of it.
template <class Sym, class... I, class W, class B, class P>
struct maps_in<ref<Sym, I...>, W, B, P> {
  static constexpr std::uint8_t value =
      (contains_v<typename index_vars<I>::type, W> || ...) ? map_every_element : 0;
};

// An input variable that the derivative does not mention at all: the
// dependence is the same for every element of it.
template <class D, class W>
inline constexpr std::uint8_t map_of_input = maps_in<D, W, type_list<>, type_list<>>::value == 0
                                                 ? std::uint8_t(map_every_element)
                                                 : maps_in<D, W, type_list<>, type_list<>>::value;

template <class Eq, class Y>
constexpr block_dependence dependence_of() {
  using D = block_derivative<Eq, Y>;
  block_dependence d{text<Eq::symbol::name>, text<Y::name>, Y::rank, {}};
  [&]<class... W>(type_list<W...>) {
    std::size_t r = 0;
    ((d.maps[r++] = map_of_input<D, W>), ...);
  }(typename wrt<Y>::vars{});
  return d;
}

template <class Eqs, class Ys>
struct dependence_table;
template <class... Eq, class... Y>
struct dependence_table<type_list<Eq...>, type_list<Y...>> {
  template <class E>
  static constexpr std::size_t count_for() {
    return (std::size_t{0} + ... + std::size_t(!simplify::is_zero<block_derivative<E, Y>>));
  }
  static constexpr std::size_t size = (std::size_t{0} + ... + count_for<Eq>());
  template <class E, std::size_t N>
  static constexpr void add(std::array<block_dependence, N>& out, std::size_t& n) {
    ((simplify::is_zero<block_derivative<E, Y>> ? void() : void(out[n++] = dependence_of<E, Y>())), ...);
  }
  static constexpr std::array<block_dependence, size> table() {
    std::array<block_dependence, size> out{};
    std::size_t n = 0;
    (add<Eq>(out, n), ...);
    return out;
  }
};

}  // namespace detail

// Every (output block, input block) pair with a dependence, in layout order,
// with its index maps: a constant expression.
template <class M, typename M::jacobian J>
constexpr auto jacobian_blocks() {
  using shape = typename M::template jacobian_shape<J>;
  return detail::dependence_table<typename shape::equations, typename shape::inputs>::table();
}
// The same with the model deduced: fx::jacobian_blocks<M::jacobian::x>(m),
// the form for a .cu file's non-template functions (see sparsity.hpp).
template <jacobian_kind J, class M>
constexpr auto jacobian_blocks(const M&) {
  return jacobian_blocks<M, J>();
}

// "same element", "previous stage", "every element", ... joined by " + ".
inline std::string index_map_text(std::uint8_t m) {
  static constexpr std::pair<std::uint8_t, const char*> names[] = {{map_same_element, "same element"},
                                                                    {map_previous_stage, "previous stage"},
                                                                    {map_shifted, "shifted element"},
                                                                    {map_every_element, "every element"},
                                                                    {map_fixed_element, "fixed element"}};
  std::string s;
  for (const auto& [bit, name] : names)
    if (m & bit) s += (s.empty() ? "" : " + ") + std::string(name);
  return s.empty() ? "scalar" : s;
}

}  // namespace fluxion
