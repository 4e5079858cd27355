#pragma once
// Sums over a Kronecker delta collapse: sum(q, kdelta(q, j) * f(q)) = f(j).
// Differentiating a reduction with respect to one element gives such sums
// (d/dI[j] of sum(q, C[p, q] * I[q]) is sum(q, C[p, q] * kdelta(q, j))); the
// collapsed form costs one term instead of a loop over the whole space, which
// is what makes a Jacobian entry cost a handful of operations.
//
// The rule applies when the summand vanishes unless q == j for a plain index
// variable j of q's space (never a shifted one: f(j - 1) would read outside
// the space). Where it applies the sum has exactly one non-zero term, so the
// result is exact, and its structural zeros are those of the sum.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion::detail {

// Whether A is zero wherever V != J (judged from its structure).
template <class A, class V, class J>
struct vanishes_off_diagonal : std::false_type {};
template <class V, class J>
struct vanishes_off_diagonal<zero, V, J> : std::true_type {};
template <class V, class J>
struct vanishes_off_diagonal<kdelta<V, J>, V, J> : std::true_type {};
template <class V, class J>
  requires(!std::is_same_v<V, J>)
struct vanishes_off_diagonal<kdelta<J, V>, V, J> : std::true_type {};
template <class A, class B, class V, class J>
struct vanishes_off_diagonal<binary<op::mul, A, B>, V, J>
    : std::bool_constant<vanishes_off_diagonal<A, V, J>::value || vanishes_off_diagonal<B, V, J>::value> {};
template <class A, class B, class V, class J>
struct vanishes_off_diagonal<binary<op::div, A, B>, V, J> : vanishes_off_diagonal<A, V, J> {};
template <class A, class B, class V, class J>
struct vanishes_off_diagonal<binary<op::add, A, B>, V, J>
    : std::bool_constant<vanishes_off_diagonal<A, V, J>::value && vanishes_off_diagonal<B, V, J>::value> {};
template <class A, class B, class V, class J>
struct vanishes_off_diagonal<binary<op::sub, A, B>, V, J>
    : std::bool_constant<vanishes_off_diagonal<A, V, J>::value && vanishes_off_diagonal<B, V, J>::value> {};
template <class A, class V, class J>
struct vanishes_off_diagonal<unary<op::neg, A>, V, J> : vanishes_off_diagonal<A, V, J> {};
template <class A, int N, class V, class J>
  requires(N > 0)
struct vanishes_off_diagonal<powi<A, N>, V, J> : vanishes_off_diagonal<A, V, J> {};
template <class C, class A, class B, class V, class J>
struct vanishes_off_diagonal<where_node<C, A, B>, V, J>
    : std::bool_constant<vanishes_off_diagonal<A, V, J>::value && vanishes_off_diagonal<B, V, J>::value> {};
// An inner sum over another variable vanishes where each of its terms does.
template <class W, class A, class V, class J>
  requires(!std::is_same_v<W, V> && !std::is_same_v<W, J>)
struct vanishes_off_diagonal<reduce<op::sum, W, A>, V, J> : vanishes_off_diagonal<A, V, J> {};
template <class W, class A, class V, class J>
  requires(!std::is_same_v<W, V> && !std::is_same_v<W, J>)
struct vanishes_off_diagonal<if_next<W, A>, V, J> : vanishes_off_diagonal<A, V, J> {};

// The plain index variables that V is compared with by a delta inside A: in
// A's operands (not a where's condition), not one stage back.
template <class A, class V>
struct delta_partners {
  using type = typename node_traits<A>::template fold_values<concat_t, child_type<delta_partners, V>>;
};
template <class A, class V>
using delta_partners_t = typename delta_partners<A, V>::type;
template <class I, class J, class V>
struct delta_partners<kdelta<I, J>, V> {
  template <class X>
  static constexpr bool plain = index_variable<X> && !std::is_same_v<X, V>;
  using type = if_t<std::is_same_v<I, V> && plain<J>, type_list<J>,
                    if_t<std::is_same_v<J, V> && plain<I>, type_list<I>, type_list<>>>;
};
template <class W, class A, class V>
struct delta_partners<at_previous<W, A>, V> {
  using type = type_list<>;
};

template <class V, class A, class Candidates>
struct first_collapsing_partner {
  using type = void;
};
template <class V, class A, class J, class... Js>
struct first_collapsing_partner<V, A, type_list<J, Js...>> {
  using type = if_t<vanishes_off_diagonal<A, V, J>::value, J,
                    typename first_collapsing_partner<V, A, type_list<Js...>>::type>;
};

// sum(V, A), collapsed to A[V := J] where A vanishes unless V == J.
template <class V, class A>
struct delta_sum {
  using partner = typename first_collapsing_partner<V, A, delta_partners_t<A, V>>::type;
  static constexpr auto pick() {
    if constexpr (std::is_void_v<partner>) return type_identity<simplify::make_reduce<op::sum, V, A>>{};
    else return type_identity<subst_t<A, V, partner>>{};
  }
  using type = typename decltype(pick())::type;
};
template <class V, class A>
using delta_sum_t = typename delta_sum<V, A>::type;

}  // namespace fluxion::detail
