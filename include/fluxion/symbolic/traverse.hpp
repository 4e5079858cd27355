#pragma once
// Structural queries and rewrites of lowered expressions: the free index
// variables of an expression, the symbols it reads, and substitution of an
// index variable by another index expression.
#include <type_traits>
#include <utility>

#include <fluxion/detail/mp.hpp>
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
template <class E>
struct free_vars {
  using type = type_list<>;
};
template <class Op, class A>
struct free_vars<unary<Op, A>> : free_vars<A> {};
template <class Op, class A, class B>
struct free_vars<binary<Op, A, B>> {
  using type = unique_t<concat_t<typename free_vars<A>::type, typename free_vars<B>::type>>;
};
template <class A, int N>
struct free_vars<powi<A, N>> : free_vars<A> {};
template <class A>
struct free_vars<pow_int_written<A>> : free_vars<A> {};
template <class C, class A, class B>
struct free_vars<where_node<C, A, B>> {
  using type = unique_t<
      concat_t<typename free_vars<C>::type, typename free_vars<A>::type, typename free_vars<B>::type>>;
};
template <class Op, class V, class A>
struct free_vars<reduce<Op, V, A>> {
  using type = typename remove_var<typename free_vars<A>::type, V>::type;
};
template <class V, class A>
struct free_vars<at_previous<V, A>> {
  using type = unique_t<concat_t<type_list<V>, typename free_vars<A>::type>>;
};
template <class V, class A>
struct free_vars<if_next<V, A>> {
  using type = unique_t<concat_t<type_list<V>, typename free_vars<A>::type>>;
};
template <class I, class J>
struct free_vars<kdelta<I, J>> {
  using type = unique_t<concat_t<typename index_vars<I>::type, typename index_vars<J>::type>>;
};
template <class Op, class I, class J>
struct free_vars<index_compare<Op, I, J>> {
  using type = unique_t<concat_t<typename index_vars<I>::type, typename index_vars<J>::type>>;
};
template <class Op, class A, class B>
struct free_vars<index_compare_written<Op, A, B>> {
  using type = unique_t<concat_t<typename index_vars<A>::type, typename index_vars<B>::type>>;
};
template <class S, class I>
struct free_vars<index_inside<S, I>> {
  using type = typename index_vars<I>::type;
};
template <class Sym, class... I>
struct free_vars<ref<Sym, I...>> {
  using type = unique_t<concat_t<typename index_vars<I>::type...>>;
};

// --- symbols read (references), aliases included, not expanded ---------------------
template <class E>
struct refs_of {
  using type = type_list<>;
};
template <class Op, class A>
struct refs_of<unary<Op, A>> : refs_of<A> {};
template <class Op, class A, class B>
struct refs_of<binary<Op, A, B>> {
  using type = concat_t<typename refs_of<A>::type, typename refs_of<B>::type>;
};
template <class A, int N>
struct refs_of<powi<A, N>> : refs_of<A> {};
template <class C, class A, class B>
struct refs_of<where_node<C, A, B>> {
  using type = concat_t<typename refs_of<C>::type, typename refs_of<A>::type, typename refs_of<B>::type>;
};
template <class Op, class V, class A>
struct refs_of<reduce<Op, V, A>> : refs_of<A> {};
template <class V, class A>
struct refs_of<at_previous<V, A>> : refs_of<A> {};
template <class V, class A>
struct refs_of<if_next<V, A>> : refs_of<A> {};
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

template <class E, class From, class To>
struct subst {
  using type = E;
};
template <class E, class From, class To>
using subst_t = typename subst<E, From, To>::type;

template <class Op, class A, class From, class To>
struct subst<unary<Op, A>, From, To> {
  using type = simplify::make_unary<Op, subst_t<A, From, To>>;
};
template <class Op, class A, class B, class From, class To>
struct subst<binary<Op, A, B>, From, To> {
  using type = simplify::make_binary<Op, subst_t<A, From, To>, subst_t<B, From, To>>;
};
template <class A, int N, class From, class To>
struct subst<powi<A, N>, From, To> {
  using type = simplify::make_powi<subst_t<A, From, To>, N>;
};
template <class C, class A, class B, class From, class To>
struct subst<where_node<C, A, B>, From, To> {
  using type = simplify::make_where<subst_t<C, From, To>, subst_t<A, From, To>, subst_t<B, From, To>>;
};
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
template <class V, class A, class From, class To>
struct subst<at_previous<V, A>, From, To> {
  static_assert(!std::is_same_v<V, From> || index_variable<To>,
                "fluxion: a stage variable can only be renamed to another index variable.");
  using NV = if_t<std::is_same_v<V, From>, To, V>;
  using type = simplify::make_at_previous<NV, subst_t<A, From, To>>;
};
template <class V, class A, class From, class To>
struct subst<if_next<V, A>, From, To> {
  static_assert(!std::is_same_v<V, From> || index_variable<To>,
                "fluxion: a stage variable can only be renamed to another index variable.");
  using NV = if_t<std::is_same_v<V, From>, To, V>;
  using type = simplify::make_if_next<NV, subst_t<A, From, To>>;
};
template <class I, class J, class From, class To>
struct subst<kdelta<I, J>, From, To> {
  using type = simplify::make_kdelta<typename subst_index<I, From, To>::type, typename subst_index<J, From, To>::type>;
};
template <class Op, class I, class J, class From, class To>
struct subst<index_compare<Op, I, J>, From, To> {
  using type = simplify::make_index_compare<Op, typename subst_index<I, From, To>::type,
                                            typename subst_index<J, From, To>::type>;
};
template <class S, class I, class From, class To>
struct subst<index_inside<S, I>, From, To> {
  using type = simplify::make_inside<S, typename subst_index<I, From, To>::type>;
};
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
