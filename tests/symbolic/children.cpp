// The children protocol of expression nodes (symbolic/children.hpp): each
// node kind's children, value children, own indices and binder variable;
// rebuilding a node with new children, as it is (map) and through the
// simplifying constructors (make); and the generic recursions written over
// it (free variables, references read, substitution) on every node kind,
// including a node kind defined here, outside the library.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/lower.hpp>
#include <fluxion/symbolic/traverse.hpp>

#include <type_traits>

namespace fx = fluxion;
using fx::detail::type_list;

namespace {

using patch = fx::index<"patch", 3>;
using stage = fx::index<"stage", 4, fx::ordered>;
using P = fx::ivar<patch, 0, "p">;
using Q = fx::ivar<patch, 1, "q">;
using K = fx::ivar<stage, 0, "k">;
using L = fx::ivar<stage, 1, "l">;
using Ss = fx::state<"S", patch, stage>;
using Bs = fx::param<"b", patch>;
using S_pk = fx::ref<Ss, P, K>;
using S_qk = fx::ref<Ss, Q, K>;
using B_p = fx::ref<Bs, P>;
using B_q = fx::ref<Bs, Q>;

template <class A, class B>
using add = fx::binary<fx::op::add, A, B>;
template <class A, class B>
using mul = fx::binary<fx::op::mul, A, B>;
template <class A>
using ex = fx::unary<fx::op::exp, A>;
template <class V, class A>
using sum = fx::reduce<fx::op::sum, V, A>;
template <class I, class J>
using lt = fx::index_compare<fx::op::lt, I, J>;

template <class E>
using traits = fx::node_traits<E>;

// Recursions as map's and make's F: every child replaced by one type, or
// wrapped in exp.
template <class T>
struct to {
  template <class C>
  using fn = T;
};
struct wrap_exp {
  template <class C>
  using fn = ex<C>;
};

// A node kind of the test's own: twice<A> is 2 A. Specializing node_traits
// is all the generic recursions need to see into it.
template <class A>
struct twice {
  using fluxion_node = void;
  A a;
};

}  // namespace

template <class A>
struct fluxion::node_traits<twice<A>> : fluxion::detail::node_children<A> {
  template <class F>
  using map = twice<typename F::template fn<A>>;
  template <class F, class G = fluxion::detail::same_indices>
  using make = twice<typename F::template fn<A>>;
};

TEST_CASE("children, value children and indices of each node kind", "[symbolic][children]") {
  using W = fx::where_node<lt<P, Q>, S_pk, B_p>;
  STATIC_REQUIRE(std::is_same_v<traits<ex<S_pk>>::children, type_list<S_pk>>);
  STATIC_REQUIRE(std::is_same_v<traits<add<S_pk, B_p>>::children, type_list<S_pk, B_p>>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::powi<B_p, 3>>::children, type_list<B_p>>);
  STATIC_REQUIRE(std::is_same_v<traits<W>::children, type_list<lt<P, Q>, S_pk, B_p>>);
  // A where's condition is a child but not an operand of its value.
  STATIC_REQUIRE(std::is_same_v<traits<W>::fold_values<type_list, to<int>>, type_list<int, int>>);
  STATIC_REQUIRE(std::is_same_v<traits<W>::fold<type_list, to<int>>, type_list<int, int, int>>);
  STATIC_REQUIRE(std::is_same_v<traits<sum<K, S_pk>>::children, type_list<S_pk>>);
  // Leaves: no children; references, deltas and conditions read indices.
  STATIC_REQUIRE(std::is_same_v<traits<fx::one>::children, type_list<>>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::time_node>::children, type_list<>>);
  STATIC_REQUIRE(std::is_same_v<traits<S_pk>::children, type_list<>>);
  STATIC_REQUIRE(std::is_same_v<traits<S_pk>::indices, type_list<P, K>>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::kdelta<P, Q>>::indices, type_list<P, Q>>);
  STATIC_REQUIRE(std::is_same_v<traits<lt<fx::ishift<K, -1>, L>>::indices, type_list<fx::ishift<K, -1>, L>>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::index_inside<stage, L>>::indices, type_list<L>>);
  STATIC_REQUIRE(std::is_same_v<traits<add<S_pk, B_p>>::indices, type_list<>>);
}

TEST_CASE("binders name their variable and how their child sees it", "[symbolic][children]") {
  using R = sum<Q, S_qk>;
  using A = fx::at_previous<K, S_pk>;
  using N = fx::if_next<K, S_pk>;
  STATIC_REQUIRE(std::is_same_v<traits<R>::var, Q>);
  STATIC_REQUIRE(traits<R>::rebinds == fx::rebinding::every_element);
  STATIC_REQUIRE(std::is_same_v<traits<A>::var, K>);
  STATIC_REQUIRE(traits<A>::rebinds == fx::rebinding::previous_stage);
  STATIC_REQUIRE(std::is_same_v<traits<N>::var, K>);
  STATIC_REQUIRE(traits<N>::rebinds == fx::rebinding::none);
  // A stage node reads its variable; a reduction binds its own.
  STATIC_REQUIRE(std::is_same_v<traits<A>::indices, type_list<K>>);
  STATIC_REQUIRE(std::is_same_v<traits<R>::indices, type_list<>>);
  STATIC_REQUIRE(fx::rebinding_node<R> && fx::rebinding_node<A> && !fx::rebinding_node<N>);
  STATIC_REQUIRE(fx::binder_node<R> && fx::binder_node<A> && fx::binder_node<N>);
  STATIC_REQUIRE(!fx::binder_node<S_pk> && !fx::binder_node<add<S_pk, B_p>> && !fx::rebinding_node<S_pk>);
}

TEST_CASE("map rebuilds a node with new children, make simplifies", "[symbolic][children]") {
  using W = fx::where_node<lt<P, Q>, S_pk, B_p>;
  STATIC_REQUIRE(std::is_same_v<traits<add<S_pk, B_p>>::map<wrap_exp>, add<ex<S_pk>, ex<B_p>>>);
  STATIC_REQUIRE(std::is_same_v<traits<W>::map<wrap_exp>, fx::where_node<ex<lt<P, Q>>, ex<S_pk>, ex<B_p>>>);
  STATIC_REQUIRE(std::is_same_v<traits<sum<K, S_pk>>::map<wrap_exp>, sum<K, ex<S_pk>>>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::if_next<K, S_pk>>::map<wrap_exp>, fx::if_next<K, ex<S_pk>>>);
  // Leaves stay as they are.
  STATIC_REQUIRE(std::is_same_v<traits<S_pk>::map<wrap_exp>, S_pk>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::one>::map<wrap_exp>, fx::one>);
  // map keeps the node kind even where the result simplifies; make folds.
  STATIC_REQUIRE(std::is_same_v<traits<mul<S_pk, B_p>>::map<to<fx::zero>>, mul<fx::zero, fx::zero>>);
  STATIC_REQUIRE(std::is_same_v<traits<mul<S_pk, B_p>>::make<to<fx::zero>>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<traits<W>::make<to<fx::one>>, fx::one>);
  STATIC_REQUIRE(std::is_same_v<traits<sum<K, S_pk>>::make<to<fx::zero>>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<traits<fx::at_previous<K, S_pk>>::make<to<fx::zero>>, fx::zero>);
  // make also replaces a node's own indices: a delta of one index is one.
  STATIC_REQUIRE(std::is_same_v<traits<fx::kdelta<P, Q>>::make<to<void>, to<P>>, fx::one>);
  STATIC_REQUIRE(std::is_same_v<traits<lt<K, L>>::make<to<void>, to<K>>, fx::index_truth<false>>);
  STATIC_REQUIRE(std::is_same_v<traits<B_p>::make<to<void>, to<Q>>, B_q>);
}

TEST_CASE("free variables: in order of first appearance, binders included", "[symbolic][children]") {
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<add<S_pk, B_q>>, type_list<P, K, Q>>);
  // A where's condition comes first: where(q < p, ...) is shaped (q, p, k).
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::where_node<lt<Q, P>, S_pk, B_p>>, type_list<Q, P, K>>);
  // A reduction binds its variable; a stage node reads its own first.
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<sum<Q, mul<B_q, S_qk>>>, type_list<K>>);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::at_previous<K, B_p>>, type_list<K, P>>);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::if_next<K, B_p>>, type_list<K, P>>);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::kdelta<Q, fx::ishift<K, -1>>>, type_list<Q, K>>);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::index_inside<stage, fx::ishift<L, 2>>>, type_list<L>>);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<fx::time_node>, type_list<>>);
  // As written, before lowering: slots, integer powers, index comparisons.
  constexpr fx::state<"S", patch, stage> S;
  constexpr P p;
  constexpr K k;
  constexpr auto written = fx::where(k - 1 >= 0, fx::pow(S(p, k - 1), 2), 0.0);
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<std::remove_cvref_t<decltype(written)>>, type_list<K, P>>);
  // A node kind defined outside the library.
  STATIC_REQUIRE(std::is_same_v<fx::free_vars_t<twice<sum<K, S_pk>>>, type_list<P>>);
}

TEST_CASE("references read, in order, and substitution through every node kind", "[symbolic][children]") {
  using E = add<fx::where_node<lt<P, Q>, B_q, fx::zero>, sum<K, mul<S_pk, twice<B_p>>>>;
  STATIC_REQUIRE(std::is_same_v<fx::detail::refs_of<E>::type, type_list<B_q, S_pk, B_p>>);
  // q := p folds the condition (p < p never holds) and the where with it.
  using F = fx::detail::subst_t<E, Q, P>;
  STATIC_REQUIRE(std::is_same_v<F, sum<K, mul<S_pk, twice<B_p>>>>);
  // p := q reaches inside the node kind defined here.
  STATIC_REQUIRE(std::is_same_v<fx::detail::subst_t<twice<ex<B_p>>, P, Q>, twice<ex<B_q>>>);
  // A stage node's variable renamed with the rest; a reduction's own
  // variable is bound, so substituting it changes nothing.
  STATIC_REQUIRE(std::is_same_v<fx::detail::subst_t<fx::at_previous<K, S_pk>, K, L>,
                                fx::at_previous<L, fx::ref<Ss, P, L>>>);
  STATIC_REQUIRE(std::is_same_v<fx::detail::subst_t<sum<K, S_pk>, K, L>, sum<K, S_pk>>);
  // A delta of a variable and its target is one.
  STATIC_REQUIRE(std::is_same_v<fx::detail::subst_t<mul<fx::kdelta<P, Q>, S_pk>, Q, P>, S_pk>);
}

TEST_CASE("derivatives see through a node kind's operands only", "[symbolic][children]") {
  // may_depend decides from a where's branches, never its condition.
  using D = fx::derivative_t<fx::where_node<fx::binary<fx::op::lt, B_p, fx::one>, fx::one, fx::zero>, B_p>;
  STATIC_REQUIRE(std::is_same_v<D, fx::zero>);
  STATIC_REQUIRE(!fx::detail::may_depend<fx::binary<fx::op::lt, B_p, fx::one>, B_p>);
  STATIC_REQUIRE(fx::detail::may_depend<fx::where_node<lt<P, Q>, B_p, fx::zero>, B_p>);
  STATIC_REQUIRE(!fx::detail::may_depend<fx::kdelta<P, Q>, B_p>);
}
