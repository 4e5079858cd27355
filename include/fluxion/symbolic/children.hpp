#pragma once
// The children protocol of expression nodes: what each node kind is made of
// and how to build it again. A structural recursion (free index variables,
// substitution, references bound to buffers, hoisting, ...) is then one
// generic case over a node's children plus the cases of the few node kinds
// whose meaning it depends on, instead of one case per node kind.
//
// node_traits<E>, for every node E:
//   children           its child expressions in order (a type_list; empty for
//                      a leaf: numbers, time, references, deltas, conditions
//                      on indices)
//   fold<G, F>         G<F::fn<C>...> over the children C: G a variadic
//                      template that combines (detail::any_t, concat_t, ...),
//                      F a class whose member alias fn is the recursion
//   fold_values<G, F>  the same over the children whose value is an operand
//                      of E's value: every child but a where's condition
//   indices            the index expressions E reads itself: a reference's,
//                      a delta's or a condition's indices, a stage node's
//                      variable
//   var, rebinds       the index variable a binder (reduce, at_previous,
//                      if_next) names, and how its child sees it (rebinding
//                      below); void and rebinding::none for other nodes
//   map<F>             E with each child C replaced by F::fn<C>, the node
//                      kind kept
//   make<F, G>         the same built through simplify's constructors (so
//                      constants fold), E's own indices I replaced by G::fn<I>
//
// Nodes as written, before lowering (pow_int_written, an index comparison
// as written) have children and indices for queries (the free variables of
// an alias's body) but no make (nor map, but for a leaf): lowering rebuilds
// them.
//
// A later layer specializes node_traits for a node kind of its own (as it
// does lower_node); a kind without a specialization is a leaf.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/condition.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/simplify.hpp>

namespace fluxion {

// How a binder's child sees the binder's variable: bound to every element of
// its space in turn (reduce: the variable is not free outside), one stage
// back (at_previous), or as the node sees it (if_next reads it only to skip
// the last stage).
enum class rebinding { none, every_element, previous_stage };

namespace detail {

// The children of a node, and folds over them.
template <class... C>
struct node_children {
  using children = type_list<C...>;
  using indices = type_list<>;
  using var = void;
  static constexpr rebinding rebinds = rebinding::none;
  template <template <class...> class G, class F>
  using fold = G<typename F::template fn<C>...>;
  template <template <class...> class G, class F>
  using fold_values = G<typename F::template fn<C>...>;
};

// A leaf E (no children) that reads index expressions I... itself.
template <class E, class... I>
struct node_leaf : node_children<> {
  using indices = type_list<I...>;
  template <class F>
  using map = E;
};

// A binder over Var with one child A.
template <class Var, rebinding R, class A>
struct node_binder : node_children<A> {
  using var = Var;
  static constexpr rebinding rebinds = R;
};

// The variable of a stage node after substitution: another index variable.
template <class W>
struct stage_variable {
  static_assert(index_variable<W>, "fluxion: a stage variable can only be renamed to another index variable.");
  using type = W;
};

// The identity on index expressions (make's default).
struct same_indices {
  template <class I>
  using fn = I;
};

}  // namespace detail

template <class E>
struct node_traits : detail::node_leaf<E> {
  template <class F, class G = detail::same_indices>
  using make = E;
};

template <class Op, class A>
struct node_traits<unary<Op, A>> : detail::node_children<A> {
  template <class F>
  using map = unary<Op, typename F::template fn<A>>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_unary<Op, typename F::template fn<A>>;
};

template <class Op, class A, class B>
struct node_traits<binary<Op, A, B>> : detail::node_children<A, B> {
  template <class F>
  using map = binary<Op, typename F::template fn<A>, typename F::template fn<B>>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_binary<Op, typename F::template fn<A>, typename F::template fn<B>>;
};

template <class A, int N>
struct node_traits<powi<A, N>> : detail::node_children<A> {
  template <class F>
  using map = powi<typename F::template fn<A>, N>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_powi<typename F::template fn<A>, N>;
};

template <class A>
struct node_traits<pow_int_written<A>> : detail::node_children<A> {};

template <class C, class A, class B>
struct node_traits<where_node<C, A, B>> : detail::node_children<C, A, B> {
  template <template <class...> class G, class F>
  using fold_values = G<typename F::template fn<A>, typename F::template fn<B>>;
  template <class F>
  using map = where_node<typename F::template fn<C>, typename F::template fn<A>, typename F::template fn<B>>;
  template <class F, class G = detail::same_indices>
  using make =
      simplify::make_where<typename F::template fn<C>, typename F::template fn<A>, typename F::template fn<B>>;
};

template <class Op, class V, class A>
struct node_traits<reduce<Op, V, A>> : detail::node_binder<V, rebinding::every_element, A> {
  template <class F>
  using map = reduce<Op, V, typename F::template fn<A>>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_reduce<Op, V, typename F::template fn<A>>;
};

template <class V, class A>
struct node_traits<at_previous<V, A>> : detail::node_binder<V, rebinding::previous_stage, A> {
  using indices = detail::type_list<V>;
  template <class F>
  using map = at_previous<V, typename F::template fn<A>>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_at_previous<typename detail::stage_variable<typename G::template fn<V>>::type,
                                          typename F::template fn<A>>;
};

template <class V, class A>
struct node_traits<if_next<V, A>> : detail::node_binder<V, rebinding::none, A> {
  using indices = detail::type_list<V>;
  template <class F>
  using map = if_next<V, typename F::template fn<A>>;
  template <class F, class G = detail::same_indices>
  using make = simplify::make_if_next<typename detail::stage_variable<typename G::template fn<V>>::type,
                                      typename F::template fn<A>>;
};

template <class I, class J>
struct node_traits<kdelta<I, J>> : detail::node_leaf<kdelta<I, J>, I, J> {
  template <class F, class G = detail::same_indices>
  using make = simplify::make_kdelta<typename G::template fn<I>, typename G::template fn<J>>;
};

template <class Op, class I, class J>
struct node_traits<index_compare<Op, I, J>> : detail::node_leaf<index_compare<Op, I, J>, I, J> {
  template <class F, class G = detail::same_indices>
  using make = simplify::make_index_compare<Op, typename G::template fn<I>, typename G::template fn<J>>;
};

template <class S, class I>
struct node_traits<index_inside<S, I>> : detail::node_leaf<index_inside<S, I>, I> {
  template <class F, class G = detail::same_indices>
  using make = simplify::make_inside<S, typename G::template fn<I>>;
};

template <class Op, class A, class B>
struct node_traits<index_compare_written<Op, A, B>> : detail::node_leaf<index_compare_written<Op, A, B>, A, B> {};

template <class Sym, class... I>
struct node_traits<ref<Sym, I...>> : detail::node_leaf<ref<Sym, I...>, I...> {
  template <class F, class G = detail::same_indices>
  using make = ref<Sym, typename G::template fn<I>...>;
};

// A node whose child sees its variable bound otherwise than the node does.
template <class E>
concept rebinding_node = node_traits<E>::rebinds != rebinding::none;

// A binder: reduce, at_previous, if_next.
template <class E>
concept binder_node = !std::is_void_v<typename node_traits<E>::var>;

namespace detail {

// Combiners for fold: whether a test holds for some child, for every child.
template <class... B>
using any_t = std::bool_constant<(B::value || ...)>;
template <class... B>
using all_t = std::bool_constant<(B::value && ...)>;

// Recursions as fold's and map's F: the class Q<C, Extra...> (a test with
// ::value), or its member type.
template <template <class...> class Q, class... Extra>
struct child_test {
  template <class C>
  using fn = Q<C, Extra...>;
};
template <template <class...> class Q, class... Extra>
struct child_type {
  template <class C>
  using fn = typename Q<C, Extra...>::type;
};

}  // namespace detail

}  // namespace fluxion
