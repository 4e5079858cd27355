#pragma once
// The compile-time validation of a lowered model, in the order a user would
// want to hear about problems: names, declarations, equations, states,
// observables, fixed indices, transports and the independence of groups.
// Each check stops compilation with one full-sentence diagnostic that names
// the symbol (model/diagnostics.hpp), or returns true.
#include <type_traits>
#include <utility>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/detail/aliases.hpp>
#include <fluxion/model/detail/statements.hpp>
#include <fluxion/model/detail/transport.hpp>
#include <fluxion/model/diagnostics.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion::detail {

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

}  // namespace fluxion::detail
