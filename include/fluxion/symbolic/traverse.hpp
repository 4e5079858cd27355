#pragma once
// Structural queries and rewrites of lowered expressions: the free index
// variables of an expression, the symbols it reads, and substitution of an
// index variable by another index expression. Each is one case over a node's
// children (children.hpp) plus the node kinds that bind or read indices.
#include <type_traits>
#include <utility>

#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/simplify.hpp>

namespace fluxion {

// Extension point: what a referenced symbol expands to. The model layer
// specializes it for aliases, whose body is read through by traversals and
// by the chain rule.
template <class Sym>
struct symbol_expansion {
  static constexpr bool is_alias = false;
};

namespace detail {

// --- variables named by an index expression -----------------------------------
template <class I>
struct index_vars {
  using type = type_list<>;
};
template <index_variable V>
struct index_vars<V> {
  using type = type_list<V>;
};
template <class V, int O>
struct index_vars<ishift<V, O>> {
  using type = type_list<V>;
};
// Indices as written, before lowering.
template <class V>
struct index_vars<index_slot<V>> {
  using type = type_list<V>;
};
template <>
struct index_vars<index_slot<void>> {
  using type = type_list<>;
};

template <class L, class V>
struct remove_var;
template <class... Ts, class V>
struct remove_var<type_list<Ts...>, V> {
  using type = concat_t<if_t<std::is_same_v<Ts, V>, type_list<>, type_list<Ts>>...>;
};

// --- free index variables, in order of first appearance ---------------------------
// The variables of the node's own indices, then its children's; a reduction's
// variable is bound inside it.
template <class Indices>
struct index_vars_of;
template <class... I>
struct index_vars_of<type_list<I...>> {
  using type = concat_t<typename index_vars<I>::type...>;
};
template <bool Binds, class Var, class L>
struct unbound_vars {
  using type = L;
};
template <class Var, class L>
struct unbound_vars<true, Var, L> : remove_var<L, Var> {};

template <class E>
struct free_vars {
  using node = node_traits<E>;
  using type = typename unbound_vars<
      node::rebinds == rebinding::every_element, typename node::var,
      unique_t<concat_t<typename index_vars_of<typename node::indices>::type,
                        typename node::template fold<concat_t, child_type<free_vars>>>>>::type;
};

// --- symbols read (references), aliases included, not expanded ---------------------
template <class E>
struct refs_of {
  using type = typename node_traits<E>::template fold<concat_t, child_type<refs_of>>;
};
template <class Sym, class... I>
struct refs_of<ref<Sym, I...>> {
  using type = type_list<ref<Sym, I...>>;
};

// --- substitution of an index variable ----------------------------------------------
template <class I, class From, class To>
struct subst_index {
  using type = I;
};
template <class From, class To>
struct subst_index<From, From, To> {
  using type = To;
};
template <class V, int O, class To>
struct subst_index<ishift<V, O>, V, To> {
  template <class X>
  struct shift;
  template <index_variable W>
  struct shift<W> {
    using type = ishift<W, O>;
  };
  template <class W, int O2>
  struct shift<ishift<W, O2>> {
    using type = if_t<O + O2 == 0, W, ishift<W, O + O2>>;
  };
  template <int N>
  struct shift<ifix<N>> {
    using type = ifix<N + O>;
  };
  using type = typename shift<To>::type;
};

// Every node rebuilt through the simplifying constructors, its children and
// its own indices substituted; a reduction binds its variable, and a
// reference may move outside its space (below).
template <class E, class From, class To>
struct subst {
  using type = typename node_traits<E>::template make<child_type<subst, From, To>, child_type<subst_index, From, To>>;
};
template <class E, class From, class To>
using subst_t = typename subst<E, From, To>::type;

template <class Op, class V, class A, class From, class To>
struct subst<reduce<Op, V, A>, From, To> {
  static constexpr auto pick() {
    if constexpr (std::is_same_v<V, From>) {
      // A reduction binds its own variable: nothing inside refers to the outer one.
      return type_identity<reduce<Op, V, A>>{};
    } else if constexpr (contains_v<typename index_vars<To>::type, V>) {
      // Capture-avoiding: rename the bound variable before To moves inside.
      using fresh = ivar<typename V::space, V::id + (1 << 20), V::name>;
      return type_identity<simplify::make_reduce<Op, fresh, subst_t<subst_t<A, V, fresh>, From, To>>>{};
    } else {
      return type_identity<simplify::make_reduce<Op, V, subst_t<A, From, To>>>{};
    }
  }
  using type = typename decltype(pick())::type;
};
// A stage node whose variable becomes a fixed element is resolved now:
// at_previous reads its child one stage back (zero at the first stage),
// if_next its child where a next stage exists (zero at the last).
template <class V, class A, int N>
struct subst<at_previous<V, A>, V, ifix<N>> {
  static constexpr auto pick() {
    if constexpr (N == 0) return type_identity<zero>{};
    else return type_identity<subst_t<A, V, ifix<N - 1>>>{};
  }
  using type = typename decltype(pick())::type;
};
template <class V, class A, int N>
struct subst<if_next<V, A>, V, ifix<N>> {
  static constexpr auto pick() {
    if constexpr (N + 1 >= V::space::extent) return type_identity<zero>{};
    else return type_identity<subst_t<A, V, ifix<N>>>{};
  }
  using type = typename decltype(pick())::type;
};
// Every variable of Vars replaced by the fixed element given for it (the
// elements name no variable, so one after the other is safe).
template <class E, class Vars, int... N>
struct fixed_at;
template <class E, int... N>
struct fixed_at<E, type_list<>, N...> {
  using type = E;
};
template <class E, class V, class... Vs, int N0, int... N>
struct fixed_at<E, type_list<V, Vs...>, N0, N...> {
  using type = typename fixed_at<subst_t<E, V, ifix<N0>>, type_list<Vs...>, N...>::type;
};
template <class E, class Vars, int... N>
using fixed_at_t = typename fixed_at<E, Vars, N...>::type;

// Whether index I is a fixed element outside Space (what a shift becomes
// when its variable is replaced by a fixed element: X(s - 2) read at s = 1).
template <class Space, class I>
inline constexpr bool fixed_outside = false;
template <class Space, int N>
inline constexpr bool fixed_outside<Space, ifix<N>> = N < 0 || N >= Space::extent;

// A reference moved to a fixed element outside its space reads zero there,
// as the shifted reference it came from does.
template <class Sym, class... I, class From, class To>
struct subst<ref<Sym, I...>, From, To> {
  template <class Spaces>
  struct moved;
  template <class... S>
  struct moved<type_list<S...>> {
    using type = if_t<(fixed_outside<S, typename subst_index<I, From, To>::type> || ...), zero,
                      ref<Sym, typename subst_index<I, From, To>::type...>>;
  };
  using type = typename moved<typename Sym::spaces>::type;
};

// Substitute a list of variables by a list of index expressions at once:
// first each variable by a placeholder of its space, then each placeholder by
// its target, so that swapping p and q works.
template <class V, int N>
using placeholder_var = ivar<typename V::space, -(1 << 24) - N>;

template <class E, class Froms, class Tos, int N = 0>
struct subst_sequential;
template <class E, int N>
struct subst_sequential<E, type_list<>, type_list<>, N> {
  using type = E;
};
template <class E, class F, class... Fs, class T, class... Ts, int N>
struct subst_sequential<E, type_list<F, Fs...>, type_list<T, Ts...>, N> {
  using type = typename subst_sequential<subst_t<E, F, T>, type_list<Fs...>, type_list<Ts...>, N + 1>::type;
};

template <class Froms, class Seq>
struct placeholders_of;
template <class... Fs, std::size_t... K>
struct placeholders_of<type_list<Fs...>, std::index_sequence<K...>> {
  using type = type_list<placeholder_var<Fs, int(K)>...>;
};

template <class E, class Froms, class Tos>
struct subst_all {
  using holders = typename placeholders_of<Froms, std::make_index_sequence<Froms::size>>::type;
  using type = typename subst_sequential<typename subst_sequential<E, Froms, holders>::type, holders, Tos>::type;
};
template <class E, class Froms, class Tos>
using subst_all_t = typename subst_all<E, Froms, Tos>::type;

// An alias read at shifted indices reads zero outside their spaces, and so
// does its derivative: the body's derivative, moved to the read's indices,
// is guarded by "the index lies in its space" for every shifted index.
// (Substitution alone merges shifts, s + 3 then - 3 giving s, and would lose
// the range check that the read carries.)
template <class E, class Vars, class Indices>
struct guard_shifted_reads;
template <class E>
struct guard_shifted_reads<E, type_list<>, type_list<>> {
  using type = E;
};
template <class E, class V, class... Vs, class I, class... Is>
struct guard_shifted_reads<E, type_list<V, Vs...>, type_list<I, Is...>> {
  using inner = typename guard_shifted_reads<E, type_list<Vs...>, type_list<Is...>>::type;
  using type = if_t<is_ishift<I>::value, simplify::make_guard<typename V::space, I, inner>, inner>;
};

// An alias body read at the indices I... of a reference.
template <class Body, class Vars, class... I>
using read_at_t =
    typename guard_shifted_reads<subst_all_t<Body, Vars, type_list<I...>>, Vars, type_list<I...>>::type;

}  // namespace detail

template <class E>
using free_vars_t = typename detail::free_vars<E>::type;

}  // namespace fluxion
