#pragma once
// What a lowered model means: its symbols in canonical order, one equation
// per state (with stage transport folded in), its aliases in dependency
// order, its observables and groups, and the compile-time validation that
// rejects a wrong model with one full-sentence diagnostic naming the symbol.
#include <type_traits>
#include <utility>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/diagnostics.hpp>
#include <fluxion/model/model.hpp>
#include <fluxion/model/statements.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

// One state's equation after transport is folded in: d(Sym[Vars...]) = Rhs.
template <class Sym, class Vars, class Rhs>
struct state_equation {
  using symbol = Sym;
  using vars = Vars;
  using rhs = Rhs;
};

// One observable: Sym[Vars...] = Expr.
template <class Sym, class Vars, class Expr>
struct observable_equation {
  using symbol = Sym;
  using vars = Vars;
  using rhs = Expr;
};

namespace detail {

template <bool Fire, class Diagnostic>
struct diagnose_if {};
template <class Diagnostic>
struct diagnose_if<true, Diagnostic> : Diagnostic {};

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

// --- aliases, in dependency order, with cycle detection by name ------------------------
template <class E>
struct aliases_read {
  template <class R>
  struct is_alias_ref : std::bool_constant<is_alias<typename R::symbol_type>> {};
  using type = unique_t<transform_t<ref_symbol, filter_t<is_alias_ref, typename refs_of<E>::type>>>;
};

template <class Stack, class A>
struct name_on_stack;
template <class... S, class A>
struct name_on_stack<type_list<S...>, A> : std::bool_constant<((S::name == A::name) || ...)> {};

template <class Done, class Stack, class List>
struct visit_aliases;

template <class Done, class Stack, class A>
struct visit_alias : diagnose_if<name_on_stack<Stack, A>::value, diagnostics::alias_depends_on_itself<A::name>> {
  static constexpr auto pick() {
    if constexpr (contains_v<Done, A> || name_on_stack<Stack, A>::value) {
      return type_identity<Done>{};
    } else {
      using deps = typename aliases_read<typename symbol_expansion<A>::body>::type;
      using after = typename visit_aliases<Done, concat_t<Stack, type_list<A>>, deps>::type;
      return type_identity<typename push_unique<after, A>::type>{};
    }
  }
  using type = typename decltype(pick())::type;
};

template <class Done, class Stack>
struct visit_aliases<Done, Stack, type_list<>> {
  using type = Done;
};
template <class Done, class Stack, class A, class... Rest>
struct visit_aliases<Done, Stack, type_list<A, Rest...>> {
  using type = typename visit_aliases<typename visit_alias<Done, Stack, A>::type, Stack, type_list<Rest...>>::type;
};

// --- names ---------------------------------------------------------------------------------
template <class L>
struct first_duplicate_name {
  using type = void;
};
template <class H, class... T>
struct first_duplicate_name<type_list<H, T...>> {
  static constexpr bool duplicated = ((H::name == T::name) || ...);
  using type = if_t<duplicated, H, typename first_duplicate_name<type_list<T...>>::type>;
};

template <class L, class Declared>
struct first_undeclared {
  using type = void;
};
template <class H, class... T, class Declared>
struct first_undeclared<type_list<H, T...>, Declared> {
  static constexpr bool bad = !is_alias<H> && !contains_v<Declared, H>;
  using type = if_t<bad, H, typename first_undeclared<type_list<T...>, Declared>::type>;
};

// --- expanding aliases inline (for checks that must see through them) ------------------------
template <class E>
struct inline_aliases {
  using type = typename node_traits<E>::template map<child_type<inline_aliases>>;
};
template <class E>
using inline_aliases_t = typename inline_aliases<E>::type;
template <class Sym, class... I>
struct inline_aliases<ref<Sym, I...>> {
  static constexpr auto pick() {
    if constexpr (is_alias<Sym>) {
      using X = symbol_expansion<Sym>;
      return type_identity<read_at_t<inline_aliases_t<typename X::body>, typename X::vars, I...>>{};
    } else {
      return type_identity<ref<Sym, I...>>{};
    }
  }
  using type = typename decltype(pick())::type;
};

template <class E>
struct reads_a_state {
  template <class R>
  struct is_state_ref : std::bool_constant<is_state<typename R::symbol_type>> {};
  static constexpr bool value = filter_t<is_state_ref, typename refs_of<E>::type>::size > 0;
};

// --- does an expression read another element of Space than Var's? -------------------------------
template <class E, class Space, class Var>
struct reads_other_element : node_traits<E>::template fold<any_t, child_test<reads_other_element, Space, Var>> {};
// A reduction over the group's space binds another variable over it: a state
// read through that variable is caught by the reference rule below. A
// reduction that binds the equation's own variable again (sum(k, X(k)) in the
// equation of X(k)) shadows it: inside, no read is of the equation's element.
template <class Op, class V, class A, class Space, class Var>
struct reads_other_element<reduce<Op, V, A>, Space, Var>
    : reads_other_element<A, Space, if_t<std::is_same_v<V, Var>, void, Var>> {};
// The previous stage of the group's own variable is another element when a
// state is read there.
template <class V, class A, class Space, class Var>
struct reads_other_element<at_previous<V, A>, Space, Var>
    : std::bool_constant<(std::is_same_v<typename V::space, Space> && reads_a_state<A>::value) ||
                         reads_other_element<A, Space, Var>::value> {};
// Only states count: parameters are inputs, and reading another element's
// parameter does not couple the elements' equations.
template <class Sym, class... I, class Space, class Var>
  requires(!is_state<Sym>)
struct reads_other_element<ref<Sym, I...>, Space, Var> : std::false_type {};
template <class Sym, class... I, class Space, class Var>
  requires is_state<Sym>
struct reads_other_element<ref<Sym, I...>, Space, Var> {
  template <class Sp, class Ix>
  static constexpr bool other() {
    return std::is_same_v<Sp, Space> && !std::is_same_v<Ix, Var>;
  }
  template <std::size_t... K>
  static constexpr bool any(std::index_sequence<K...>) {
    return (other<at_t<typename Sym::spaces, K>, at_t<type_list<I...>, K>>() || ...);
  }
  static constexpr bool value = any(std::make_index_sequence<sizeof...(I)>{});
};

// --- fixed indices within range ---------------------------------------------------------------
template <class R>
struct fixed_indices_in_range;
template <class Sym, class... I>
struct fixed_indices_in_range<ref<Sym, I...>> {
  template <class Sp, class Ix>
  static constexpr bool check() {
    if constexpr (is_ifix<Ix>::value) {
      if constexpr (Ix::element < 0 || Ix::element >= Sp::extent) {
        (void)diagnostics::fixed_index_out_of_range<Sym::name, Ix::element, Sp::extent>{};
        return false;
      }
    }
    return true;
  }
  template <std::size_t... K>
  static constexpr bool all(std::index_sequence<K...>) {
    return (check<at_t<typename Sym::spaces, K>, at_t<type_list<I...>, K>>() && ...);
  }
  static constexpr bool value = all(std::make_index_sequence<sizeof...(I)>{});
};

template <class L>
struct all_fixed_in_range;
template <class... R>
struct all_fixed_in_range<type_list<R...>> : std::bool_constant<(fixed_indices_in_range<R>::value && ...)> {};

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

// The transport term a transport adds to the equation of state X with
// left-hand variables Vars: inflow from the previous stage minus outflow to
// the next, the rate's own variables renamed to the equation's.
template <class X, class Vars, class T>
struct transport_term {
  using type = zero;
};
// The equation's variable over the space of rate variable RV (void if none).
template <class Vars, class RV>
struct target_var_of {
  using type = typename var_over<Vars, typename RV::space>::type;
};
template <class Vars>
struct target_var_in {
  template <class RV>
  using fn = target_var_of<Vars, RV>;
};

template <class X, class... V, class Space, class Rate, class... Syms>
  requires contains_v<type_list<Syms...>, X>
struct transport_term<X, type_list<V...>, transport_def<Space, Rate, Syms...>> {
  using k = typename var_over<type_list<V...>, Space>::type;
  using rate_vars = free_vars_t<Rate>;
  using targets = transform_t<target_var_in<type_list<V...>>::template fn, rate_vars>;
  static constexpr auto pick() {
    if constexpr (std::is_void_v<k> || contains_v<targets, void>) {
      // X is not shaped over Space: check_transport reports it; add nothing.
      return type_identity<zero>{};
    } else {
      using rate = subst_all_t<Rate, rate_vars, targets>;
      using flow = simplify::mul<rate, ref<X, V...>>;
      return type_identity<simplify::sub<simplify::make_at_previous<k, flow>, simplify::make_if_next<k, flow>>>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// Rhs plus the transport terms of every transport in Ts for state X.
template <class X, class Vars, class Acc, class... Ts>
struct transport_sum {
  using type = Acc;
};
template <class X, class Vars, class Acc, class H, class... Ts>
struct transport_sum<X, Vars, Acc, H, Ts...> {
  using type = typename transport_sum<X, Vars, simplify::add<Acc, typename transport_term<X, Vars, H>::type>, Ts...>::type;
};
template <class X, class Vars, class Transports, class Rhs>
struct with_transport_terms;
template <class X, class Vars, class... T, class Rhs>
struct with_transport_terms<X, Vars, type_list<T...>, Rhs> : transport_sum<X, Vars, Rhs, T...> {};

// Everything below is a namespace-scope template rather than a member of
// model_traits: cudafe++ (nvcc 13.0) spends time exponential in expression
// depth on templates nested in a class instantiated over a whole model
// (bench/compile_scaling/edg_chain.cu): hoisting them took its back end from
// 16 s to 0.3 s on an 18-node chain.
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
template <class Roots>
struct roots_aliases;
template <class... R>
struct roots_aliases<type_list<R...>> {
  using type = unique_t<concat_t<typename aliases_read<R>::type...>>;
};
template <class A>
struct body_of {
  using type = typename symbol_expansion<A>::body;
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

// --- validation, in the order a user would want to hear about problems -------------------
template <class All>
constexpr bool check_names() {
  using dup = typename first_duplicate_name<All>::type;
  if constexpr (!std::is_void_v<dup>) {
    (void)diagnostics::two_symbols_with_one_name<dup::name>{};
    return false;
  }
  return true;
}
template <class ReadSymbols, class Declared>
constexpr bool check_declared() {
  using bad = typename first_undeclared<ReadSymbols, Declared>::type;
  if constexpr (!std::is_void_v<bad>) {
    (void)diagnostics::symbol_not_declared_in_model<bad::name>{};
    return false;
  }
  return true;
}
template <class States, class Equations, class Eq>
constexpr bool check_equation() {
  using L = decltype(Eq::lhs);
  using X = typename L::symbol_type;
  if constexpr (is_parameter<X>) {
    (void)diagnostics::equation_for_a_parameter<X::name>{};
    return false;
  } else if constexpr (!contains_v<States, X>) {
    (void)diagnostics::equation_for_a_symbol_that_is_not_a_declared_state<X::name>{};
    return false;
  } else if constexpr (equations_for_t<Equations, X>::size > 1) {
    (void)diagnostics::equation_written_twice<X::name>{};
    return false;
  } else if constexpr (!lhs_vars<L>::valid) {
    (void)diagnostics::equation_left_side_needs_distinct_index_variables<X::name>{};
    return false;
  } else {
    using unbound = typename first_not_in<free_vars_t<decltype(Eq::rhs)>, typename lhs_vars<L>::type>::type;
    if constexpr (!std::is_void_v<unbound>) {
      (void)diagnostics::index_variable_not_bound_by_left_side<X::name, unbound::space::name>{};
      return false;
    }
    return true;
  }
}
template <class States, class Equations, class... Eq>
constexpr bool check_equations(type_list<Eq...>) {
  return (check_equation<States, Equations, Eq>() && ...);
}
template <class Equations, class X>
constexpr bool check_state_has_equation() {
  if constexpr (equations_for_t<Equations, X>::size == 0) {
    (void)diagnostics::state_has_no_equation<X::name>{};
    return false;
  }
  return true;
}
template <class Equations, class... X>
constexpr bool check_states(type_list<X...>) {
  return (check_state_has_equation<Equations, X>() && ...);
}
template <class O>
constexpr bool check_observable() {
  using Vars = typename O::vars;
  if constexpr (unique_t<Vars>::size != Vars::size) {
    (void)diagnostics::observable_needs_distinct_index_variables<O::symbol::name>{};
    return false;
  } else {
    using unbound = typename first_not_in<free_vars_t<typename O::rhs>, Vars>::type;
    if constexpr (!std::is_void_v<unbound>) {
      (void)diagnostics::index_variable_not_bound_by_left_side<O::symbol::name, unbound::space::name>{};
      return false;
    }
    return true;
  }
}
template <class... O>
constexpr bool check_observables(type_list<O...>) {
  return (check_observable<O>() && ...);
}
template <class Space, class Rate, class X>
constexpr bool check_transport_of() {
  if constexpr (!contains_v<typename X::spaces, Space>) {
    (void)diagnostics::transport_of_a_state_not_shaped_over_the_space<X::name, Space::name>{};
    return false;
  } else {
    using rv = free_vars_t<Rate>;
    using missing = typename first_not_in<transform_t<space_of_var, rv>, typename X::spaces>::type;
    if constexpr (!std::is_void_v<missing>) {
      (void)diagnostics::transport_rate_uses_a_space_the_state_lacks<X::name, missing::name>{};
      return false;
    }
    return true;
  }
}
template <class Space, class Rate, class... Syms>
constexpr bool check_transport(transport_def<Space, Rate, Syms...>*) {
  if constexpr (!Space::is_ordered) {
    (void)diagnostics::transport_over_unordered_space<Space::name>{};
    return false;
  } else {
    return (check_transport_of<Space, Rate, Syms>() && ...);
  }
}
template <class... T>
constexpr bool check_transports(type_list<T...>) {
  return (check_transport(static_cast<T*>(nullptr)) && ...);
}
template <class Space, class... S>
constexpr bool any_state_over(type_list<S...>) {
  return (contains_v<typename S::spaces, Space> || ...);
}
template <class Space, class Transports, class Eq>
constexpr bool check_independent_one() {
  using L = decltype(Eq::lhs);
  using X = typename L::symbol_type;
  using V = typename var_over<typename lhs_vars<L>::type, Space>::type;
  if constexpr (std::is_void_v<V>) {
    return true;  // a state outside the group
  } else {
    using full = inline_aliases_t<
        typename with_transport_terms<X, typename lhs_vars<L>::type, Transports, decltype(Eq::rhs)>::type>;
    if constexpr (reads_other_element<full, Space, V>::value) {
      (void)diagnostics::group_declared_independent_but_equation_reads_another_element<Space::name, X::name>{};
      return false;
    }
    return true;
  }
}
template <class Space, class Transports, class... Eq>
constexpr bool check_independent(type_list<Eq...>) {
  return (check_independent_one<Space, Transports, Eq>() && ...);
}
template <class States, class Equations, class Transports, class G>
constexpr bool check_group() {
  using Space = typename G::space;
  if constexpr (!any_state_over<Space>(States{})) {
    (void)diagnostics::group_over_a_space_no_state_uses<Space::name>{};
    return false;
  } else if constexpr (G::is_independent) {
    return check_independent<Space, Transports>(Equations{});
  } else {
    return true;
  }
}
template <class States, class Equations, class Transports, class... G>
constexpr bool check_groups(type_list<G...>) {
  return (check_group<States, Equations, Transports, G>() && ...);
}

// State X's equation, transport folded in (a zero right-hand side when X has
// none: check_states reports that).
template <class Equations, class Transports, class X>
constexpr auto make_state_equation() {
  using matches = equations_for_t<Equations, X>;
  if constexpr (matches::size == 0) {
    return type_identity<state_equation<X, type_list<>, zero>>{};
  } else {
    using Eq = at_t<matches, 0>;
    using L = decltype(Eq::lhs);
    using vars = typename lhs_vars<L>::type;
    using rhs = typename with_transport_terms<X, vars, Transports, decltype(Eq::rhs)>::type;
    return type_identity<state_equation<X, vars, rhs>>{};
  }
}
template <class Equations, class Transports>
struct state_equation_in {
  template <class X>
  struct fn {
    using type = typename decltype(make_state_equation<Equations, Transports, X>())::type;
  };
};

}  // namespace detail

template <class LoweredModel>
struct model_traits;

template <class... Items>
struct model_traits<lowered_model<Items...>> {
  using states = detail::concat_t<typename detail::states_of<Items>::type...>;
  using params = detail::concat_t<typename detail::params_of<Items>::type...>;
  using equations = detail::concat_t<typename detail::equations_of<Items>::type...>;
  using observables = detail::concat_t<typename detail::observables_of<Items>::type...>;
  using transports = detail::concat_t<typename detail::transports_of<Items>::type...>;
  using groups = detail::concat_t<typename detail::groups_of<Items>::type...>;

 private:
  // Every expression the model evaluates directly (alias bodies come with the aliases).
  using roots = detail::concat_t<detail::transform_t<detail::rhs_of, equations>,
                                 detail::transform_t<detail::rhs_of, observables>,
                                 detail::transform_t<detail::rate_of, transports>>;

 public:
  using observables_symbols = detail::transform_t<detail::symbol_of_observable, observables>;
  // Aliases in dependency order: each after every alias its body reads.
  using aliases = typename detail::visit_aliases<detail::type_list<>, detail::type_list<>,
                                                  typename detail::roots_aliases<roots>::type>::type;

 private:
  using all_expressions = detail::concat_t<roots, detail::transform_t<detail::body_of, aliases>>;
  using refs = typename detail::all_refs<all_expressions>::type;
  using read_symbols = detail::unique_t<detail::transform_t<detail::ref_symbol, refs>>;

 public:
  // True for a valid model; for an invalid one, compilation stops with the
  // first diagnostic.
  static constexpr bool valid =
      detail::check_names<detail::concat_t<states, params, observables_symbols, aliases>>() &&
      detail::check_declared<read_symbols, detail::concat_t<states, params>>() &&
      detail::check_equations<states, equations>(equations{}) && detail::check_states<equations>(states{}) &&
      detail::check_observables(observables{}) && detail::all_fixed_in_range<refs>::value &&
      detail::check_transports(transports{}) && detail::check_groups<states, equations, transports>(groups{});

  // One equation per state, in the order the states are declared.
  using state_equations =
      detail::transform_t<detail::state_equation_in<equations, transports>::template fn, states>;
};

}  // namespace fluxion
