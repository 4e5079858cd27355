#pragma once
// A model's aliases: those an expression reads, all of them in dependency
// order (each after every alias its body reads, a cycle diagnosed by name),
// and an expression with every alias read expanded in place, for the checks
// that must see through aliases.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/detail/statements.hpp>
#include <fluxion/model/diagnostics.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion::detail {

template <bool Fire, class Diagnostic>
struct diagnose_if {};
template <class Diagnostic>
struct diagnose_if<true, Diagnostic> : Diagnostic {};

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

}  // namespace fluxion::detail
