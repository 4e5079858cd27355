#pragma once
// The statements a model is made of: declarations, equations `d(x) = expr`,
// observables, stage transport and group declarations.
#include <type_traits>

#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/lower.hpp>
#include <fluxion/symbolic/node.hpp>

namespace fluxion {

// --- declarations --------------------------------------------------------------
template <class... Syms>
struct states_decl {};
template <class... Syms>
struct params_decl {};

template <class... Syms>
constexpr states_decl<std::remove_cvref_t<Syms>...> states(Syms...) {
  static_assert((is_state<std::remove_cvref_t<Syms>> && ...),
                "fluxion::states: every argument must be a fluxion::state<...>.");
  return {};
}
template <class... Syms>
constexpr params_decl<std::remove_cvref_t<Syms>...> params(Syms...) {
  static_assert((is_parameter<std::remove_cvref_t<Syms>> && ...),
                "fluxion::params: every argument must be a fluxion::param<...>.");
  return {};
}

// --- equations ---------------------------------------------------------------------
template <class Lhs, class Rhs>
struct equation {
  Lhs lhs;
  Rhs rhs;
};

template <class Target>
struct derivative_of {
  Target target;
  template <class E>
    requires(expression<E> || arithmetic<E>)
  constexpr equation<Target, detail::node_t<E>> operator=(E e) const {
    return {target, detail::as_node(e)};
  }
};

// `fx::d(S(p, k)) = expr` (or `fx::d(S) = expr` for an unshaped state).
template <expression Target>
constexpr derivative_of<Target> d(Target target) {
  return {target};
}

template <class L, class R>
struct lower_node<equation<L, R>> {
  template <equation<L, R> V>
  using type = equation<lowered<V.lhs>, lowered<V.rhs>>;
};

// --- observables -----------------------------------------------------------------
template <class Sym, class Vars, class Expr>
struct observable_def {
  Expr expr;
};

template <fixed_string Name, class... Vars>
struct observable_target {
  using symbol_type = symbol<kind::observable, Name, typename Vars::space...>;
  template <class E>
    requires(expression<E> || arithmetic<E>)
  constexpr auto operator=(E e) const {
    return observable_def<symbol_type, detail::type_list<Vars...>, detail::node_t<E>>{detail::as_node(e)};
  }
};

// `fx::observe<"incidence">(p) = expr`: an output shaped by the variables given.
template <fixed_string Name, index_variable... Vars>
constexpr observable_target<Name, Vars...> observe(Vars...) {
  return {};
}

template <class Sym, class Vars, class E>
struct lower_node<observable_def<Sym, Vars, E>> {
  template <observable_def<Sym, Vars, E> V>
  using type = observable_def<Sym, Vars, lowered<V.expr>>;
};

// --- stage transport ---------------------------------------------------------------
// Moves each listed state from stage k to stage k+1 of `Space` at `rate`
// (per unit of the state): outflow -rate(k) x(k) for k < K-1 and the same
// amount as inflow of stage k+1, so the listed states' total is conserved.
template <class Space, class Rate, class... Syms>
struct transport_def {
  Rate rate;
};

template <index_space Space, class Rate, class... Syms>
  requires(expression<Rate> || arithmetic<Rate>)
constexpr auto transport(Rate rate, Syms...) {
  return transport_def<Space, detail::node_t<Rate>, std::remove_cvref_t<Syms>...>{detail::as_node(rate)};
}

template <class Space, class Rate, class... Syms>
struct lower_node<transport_def<Space, Rate, Syms...>> {
  template <transport_def<Space, Rate, Syms...> V>
  using type = transport_def<Space, lowered<V.rate>, Syms...>;
};

// --- groups ----------------------------------------------------------------------------
struct independent_t {};
struct coupled_t {};
inline constexpr independent_t independent{};
inline constexpr coupled_t coupled{};

// A group: equations written once over `Space`, evaluated for every element.
// An independent group promises that no equation reads another element; the
// promise is checked when the model is compiled.
template <class Space, class Coupling>
struct group_decl {
  using space = Space;
  static constexpr bool is_independent = std::is_same_v<Coupling, independent_t>;
};

template <index_space Space, class Coupling>
  requires(std::is_same_v<Coupling, independent_t> || std::is_same_v<Coupling, coupled_t>)
constexpr group_decl<Space, Coupling> group(Coupling) {
  return {};
}

}  // namespace fluxion
