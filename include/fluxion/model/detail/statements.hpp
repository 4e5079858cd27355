#pragma once
// The statements of a lowered model sorted by kind (declarations, equations,
// observables, transports, groups), and the parts of each that the analysis
// reads: the symbol an equation is for, its left-hand variables, the
// expression it evaluates, the references it reads.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/statements.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

// One observable: Sym[Vars...] = Expr.
template <class Sym, class Vars, class Expr>
struct observable_equation {
  using symbol = Sym;
  using vars = Vars;
  using rhs = Expr;
};

namespace detail {

// --- sorting statements by kind ----------------------------------------------------
template <class I> struct states_of { using type = type_list<>; };
template <class... S> struct states_of<states_decl<S...>> { using type = type_list<S...>; };
template <class I> struct params_of { using type = type_list<>; };
template <class... S> struct params_of<params_decl<S...>> { using type = type_list<S...>; };
template <class I> struct equations_of { using type = type_list<>; };
template <class L, class R> struct equations_of<equation<L, R>> { using type = type_list<equation<L, R>>; };
template <class I> struct observables_of { using type = type_list<>; };
template <class S, class V, class E> struct observables_of<observable_def<S, V, E>> {
  using type = type_list<observable_equation<S, V, E>>;
};
template <class I> struct transports_of { using type = type_list<>; };
template <class Sp, class R, class... S> struct transports_of<transport_def<Sp, R, S...>> {
  using type = type_list<transport_def<Sp, R, S...>>;
};
template <class I> struct groups_of { using type = type_list<>; };
template <class Sp, class C> struct groups_of<group_decl<Sp, C>> { using type = type_list<group_decl<Sp, C>>; };

template <class Eq> struct equation_symbol;
template <class L, class R> struct equation_symbol<equation<L, R>> { using type = typename L::symbol_type; };

template <class R> struct ref_symbol { using type = typename R::symbol_type; };

// Variables of a left-hand side: distinct ivars, one per position.
template <class R>
struct lhs_vars;
template <class Sym, class... I>
struct lhs_vars<ref<Sym, I...>> {
  static constexpr bool valid = (index_variable<I> && ...) && unique_t<type_list<I...>>::size == sizeof...(I);
  using type = type_list<I...>;
};

template <class Vars, class Space>
struct var_over;
template <class Space>
struct var_over<type_list<>, Space> {
  using type = void;
};
template <class V, class... Vs, class Space>
struct var_over<type_list<V, Vs...>, Space> {
  using type = if_t<std::is_same_v<typename V::space, Space>, V, typename var_over<type_list<Vs...>, Space>::type>;
};

template <class Sub, class Super>
struct first_not_in {
  using type = void;
};
template <class H, class... T, class Super>
struct first_not_in<type_list<H, T...>, Super> {
  using type = if_t<contains_v<Super, H>, typename first_not_in<type_list<T...>, Super>::type, H>;
};

template <class O>
struct symbol_of_observable {
  using type = typename O::symbol;
};
template <class Eq>
struct rhs_of {
  using type = typename Eq::rhs;
};
template <class L, class R>
struct rhs_of<equation<L, R>> {
  using type = R;
};
template <class T>
struct rate_of;
template <class Sp, class R, class... S>
struct rate_of<transport_def<Sp, R, S...>> {
  using type = R;
};
template <class Es>
struct all_refs;
template <class... E>
struct all_refs<type_list<E...>> {
  using type = concat_t<typename refs_of<E>::type...>;
};
template <class X>
struct equation_is_for {
  template <class Eq>
  using fn = std::is_same<typename equation_symbol<Eq>::type, X>;
};
// The equations (of Equations) written for state X.
template <class Equations, class X>
using equations_for_t = filter_t<equation_is_for<X>::template fn, Equations>;
template <class V>
struct space_of_var {
  using type = typename V::space;
};

}  // namespace detail

}  // namespace fluxion
