#pragma once
// Stage transport folded into the state equations: the inflow from the
// previous stage minus the outflow to the next that each transport adds to
// the equation of every state it moves, and each state's one equation with
// its transport terms.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/detail/statements.hpp>
#include <fluxion/model/statements.hpp>
#include <fluxion/symbolic/node.hpp>
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

namespace detail {

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

}  // namespace fluxion
