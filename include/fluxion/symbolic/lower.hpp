#pragma once
// Lowering: a value-level expression (literals hold their values) becomes a
// type-level one (every node empty, every number and index in the type). This
// is what lets `compiled<model, T>` be one type, callable on host and device
// with constants as immediates. Lowering builds nodes through the simplifying
// constructors, so constants fold as they are lowered.
//
// Extension point: a later layer specializes `lower_node` (and
// `lower_symbol`) for its own node and symbol types.
#include <type_traits>
#include <utility>

#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/simplify.hpp>

namespace fluxion {

template <class Node>
struct lower_node {
  static_assert(std::is_empty_v<Node>,
                "fluxion::lower_node: this node type holds values but has no lowering; specialize "
                "fluxion::lower_node for it.");
  template <Node V>
  using type = Node;
};

// How the symbol stored in a reference is lowered (aliases carry a body).
template <class Sym>
struct lower_symbol {
  template <Sym V>
  using type = Sym;
};

template <auto V>
using lowered = typename lower_node<std::remove_cvref_t<decltype(V)>>::template type<V>;

template <auto V>
using lowered_symbol = typename lower_symbol<std::remove_cvref_t<decltype(V)>>::template type<V>;

template <>
struct lower_node<literal> {
  template <literal V>
  using type = simplify::norm_lit<V.value>;
};

template <class Op, class A>
struct lower_node<unary<Op, A>> {
  template <unary<Op, A> V>
  using type = simplify::make_unary<Op, lowered<V.a>>;
};

template <class Op, class A, class B>
struct lower_node<binary<Op, A, B>> {
  template <binary<Op, A, B> V>
  using type = simplify::make_binary<Op, lowered<V.a>, lowered<V.b>>;
};

template <class A>
struct lower_node<pow_int_written<A>> {
  template <pow_int_written<A> V>
  using type = simplify::make_powi<lowered<V.a>, V.n>;
};

template <class A, int N>
struct lower_node<powi<A, N>> {
  template <powi<A, N> V>
  using type = simplify::make_powi<lowered<V.a>, N>;
};

template <class C, class A, class B>
struct lower_node<where_node<C, A, B>> {
  template <where_node<C, A, B> V>
  using type = simplify::make_where<lowered<V.cond>, lowered<V.a>, lowered<V.b>>;
};

template <class Op, class Var, class A>
struct lower_node<reduce<Op, Var, A>> {
  template <reduce<Op, Var, A> V>
  using type = simplify::make_reduce<Op, Var, lowered<V.a>>;
};

template <class Var, class A>
struct lower_node<at_previous<Var, A>> {
  template <at_previous<Var, A> V>
  using type = simplify::make_at_previous<Var, lowered<V.a>>;
};

template <class Var, class A>
struct lower_node<if_next<Var, A>> {
  template <if_next<Var, A> V>
  using type = simplify::make_if_next<Var, lowered<V.a>>;
};

// A bare symbol in an expression is a reference without indices.
template <plain_symbol S>
struct lower_node<S> {
  template <S V>
  using type = ref<S>;
};

namespace detail {
// Indices already lowered (ivar, ishift, ifix) stay as they are.
template <class Index, int Offset>
struct lower_index {
  using type = Index;
};
template <class Var, int Offset>
struct lower_index<index_slot<Var>, Offset> {
  using type = if_t<Offset == 0, Var, ishift<Var, Offset>>;
};
template <int N>
struct lower_index<index_slot<void>, N> {
  using type = ifix<N>;
};

// One side of an index comparison, lowered; a number compared with a
// variable must name an element of the variable's space (or, for < <= > >=,
// its end), else the condition is a mistake that holds everywhere or nowhere.
template <class Op, class Side, class Other, int SideOffset, int OtherOffset>
struct checked_condition_index {
  using type = typename lower_index<Side, SideOffset>::type;
};
template <class Op, class Var, int SideOffset, int OtherOffset>
  requires(!std::is_void_v<Var>)
struct checked_condition_index<Op, index_slot<void>, index_slot<Var>, SideOffset, OtherOffset> {
  static constexpr int extent = Var::space::extent;
  static constexpr bool equality = std::is_same_v<Op, op::eq> || std::is_same_v<Op, op::ne>;
  static constexpr bool ok = SideOffset >= 0 && SideOffset <= (equality ? extent - 1 : extent);
  static constexpr bool check() {
    if constexpr (!ok) {
      (void)diagnostics::index_condition_number_outside_space<Var::space::name, SideOffset, extent>{};
      return false;
    } else {
      return true;
    }
  }
  using type = if_t<check(), ifix<SideOffset>, ifix<SideOffset>>;
};

template <auto R, class Seq>
struct lower_ref;
template <auto R, std::size_t... K>
struct lower_ref<R, std::index_sequence<K...>> {
  using indices = typename std::remove_cvref_t<decltype(R)>::indices;
  using type = ref<lowered_symbol<R.sym>, typename lower_index<at_t<indices, K>, R.offsets[K]>::type...>;
};
}  // namespace detail

template <class Op, class A, class B>
struct lower_node<index_compare_written<Op, A, B>> {
  template <index_compare_written<Op, A, B> V>
  using type = simplify::make_index_compare<Op, typename detail::checked_condition_index<Op, A, B, V.a_offset, V.b_offset>::type,
                                            typename detail::checked_condition_index<Op, B, A, V.b_offset, V.a_offset>::type>;
};

template <class Sym, class... I>
struct lower_node<ref<Sym, I...>> {
  template <ref<Sym, I...> V>
  using type = typename detail::lower_ref<V, std::make_index_sequence<sizeof...(I)>>::type;
};

}  // namespace fluxion
