#pragma once
// The symbols of a model: states, parameters, aliases and observables.
//
//   constexpr fx::state<"S", patch, age> S;        // a state shaped over two spaces
//   constexpr fx::param<"beta", patch> beta;        // local to each patch
//   constexpr fx::param<"sigma"> sigma;             // shared scalar
//   constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k)));   // shaped by its free variable p
//   constexpr auto F = fx::alias<"F">(c, k)(fx::where(k == 0, a(c), b(c) * S(c, k)));   // shape (c, k) declared
#include <type_traits>

#include <fluxion/model/diagnostics.hpp>
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
// variables of its body: in the order declared by fx::alias<"F">(c, k)(body),
// or else in order of first appearance in the body (index conditions
// included: where(k == 0, a(c), ...) is shaped (k, c)). `N(q)` reads the
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
  requires(expression<Body> && !index_variable<Body>)
constexpr auto alias(Body body) {
  return alias_symbol<Name, Body>{body};
}

namespace detail {
// How often T occurs in a list.
template <class T, class L>
struct occurrences;
template <class T, class... Ts>
struct occurrences<T, type_list<Ts...>> : std::integral_constant<int, (int(same_type<T, Ts>) + ... + 0)> {};

// fx::alias<"F">(c, k): the alias's shape, waiting for its body. The
// declared variables must be the body's free ones, each once.
template <fixed_string Name, class... V>
struct shaped_alias {
  template <class Body>
    requires expression<Body>
  constexpr auto operator()(Body body) const {
    using declared = type_list<V...>;
    using found = free_vars_t<Body>;
    constexpr bool each_once = ((occurrences<V, declared>::value == 1) && ...);
    constexpr bool same_set = sizeof...(V) == found::size && (contains<found, V>::value && ...);
    if constexpr (each_once && same_set) {
      return alias_symbol<Name, Body, declared>{body};
    } else {
      (void)diagnostics::alias_shape_is_not_its_free_index_variables<Name>{};
      return alias_symbol<Name, Body>{body};
    }
  }
};
}  // namespace detail

// An alias of declared shape: fx::alias<"F">(c, k)(body) is shaped (c, k)
// whatever the order its body first reads c and k in.
template <fixed_string Name, index_variable... V>
  requires(sizeof...(V) > 0)
constexpr auto alias(V...) {
  return detail::shaped_alias<Name, V...>{};
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
