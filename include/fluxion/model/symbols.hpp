#pragma once
// The symbols of a model: states, parameters, aliases and observables.
//
//   constexpr fx::state<"S", patch, age> S;        // a state shaped over two spaces
//   constexpr fx::param<"beta", patch> beta;        // local to each patch
//   constexpr fx::param<"sigma"> sigma;             // shared scalar
//   constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k)));   // shaped by its free variable p
#include <type_traits>

#include <fluxion/symbolic/lower.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

namespace kind {
struct state {
  static constexpr const char* text = "state";
};
struct parameter {
  static constexpr const char* text = "parameter";
};
struct alias {
  static constexpr const char* text = "alias";
};
struct observable {
  static constexpr const char* text = "observable";
};
}  // namespace kind

template <fixed_string Name, index_space... Spaces>
using state = symbol<kind::state, Name, Spaces...>;

template <fixed_string Name, index_space... Spaces>
using param = symbol<kind::parameter, Name, Spaces...>;

// A handle on an observable declared by fx::observe<"name">(vars...) = ...,
// for addressing it in the layout or naming it in jacobian_text.
template <fixed_string Name, index_space... Spaces>
using observable = symbol<kind::observable, Name, Spaces...>;

template <class Sym>
inline constexpr bool is_state = std::is_same_v<typename Sym::kind, kind::state>;
template <class Sym>
inline constexpr bool is_parameter = std::is_same_v<typename Sym::kind, kind::parameter>;

namespace detail {
template <class Vars>
struct spaces_of_vars;
template <class... V>
struct spaces_of_vars<type_list<V...>> {
  using type = type_list<typename V::space...>;
  static constexpr std::size_t size = (std::size_t{1} * ... * std::size_t(V::space::extent));
};
}  // namespace detail

// A named intermediate expression. Its shape is given by the free index
// variables of its body, in order of first appearance: `N(q)` reads the
// element of N where the body's p is q. Evaluated once per call.
template <fixed_string Name, class Body, class Vars = free_vars_t<Body>>
struct alias_symbol {
  using fluxion_node = void;
  using fluxion_alias = void;
  using kind = kind::alias;
  using vars = Vars;
  using spaces = typename detail::spaces_of_vars<Vars>::type;
  static constexpr auto name = Name;
  static constexpr std::size_t rank = Vars::size;
  static constexpr std::size_t size = detail::spaces_of_vars<Vars>::size;
  Body body;

  template <class... I>
  constexpr auto operator()(I... i) const {
    (void)detail::shape_check<alias_symbol, std::remove_cvref_t<I>...>::ok;
    return ref<alias_symbol, typename detail::slot_of<std::remove_cvref_t<I>>::type...>{
        *this, {detail::slot_of<std::remove_cvref_t<I>>::offset(i)...}};
  }
};

template <fixed_string Name, class Body>
  requires expression<Body>
constexpr auto alias(Body body) {
  return alias_symbol<Name, Body>{body};
}

template <class A>
concept alias_type = requires { typename A::fluxion_alias; };

template <alias_type A>
struct lower_symbol<A> {
  template <A V>
  using type = alias_symbol<A::name, lowered<V.body>, typename A::vars>;
};
template <alias_type A>
struct lower_node<A> {
  template <A V>
  using type = ref<alias_symbol<A::name, lowered<V.body>, typename A::vars>>;
};
template <alias_type A>
struct symbol_expansion<A> {
  static constexpr bool is_alias = true;
  using body = decltype(A::body);
  using vars = typename A::vars;
};

template <class Sym>
inline constexpr bool is_alias = symbol_expansion<Sym>::is_alias;

}  // namespace fluxion
