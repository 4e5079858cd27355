#pragma once
// Equations along a direction: each right-hand side (or scratch step)
// replaced by its derivative along a direction in the states or the
// parameters (Jacobian-vector products) or in time, and whether a model is
// autonomous.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/simplify.hpp>

namespace fluxion::detail {

// An equation's right-hand side replaced by its derivative along Direction.
template <class Eq, class Direction>
struct directional_equation {
  using symbol = typename Eq::symbol;
  using vars = typename Eq::vars;
  using rhs = derivative_t<typename Eq::rhs, Direction>;
};
template <class Eqs, class Direction>
struct directional_equations;
template <class... Eq, class Direction>
struct directional_equations<type_list<Eq...>, Direction> {
  using type = type_list<directional_equation<Eq, Direction>...>;
};

template <class Eqs>
struct all_zero_along_time;
template <class... Eq>
struct all_zero_along_time<type_list<Eq...>>
    : std::bool_constant<(simplify::is_zero<derivative_t<typename Eq::rhs, time_direction>> && ...)> {};

// The symbols a Jacobian-vector product differentiates along: the states, or
// the parameters.
template <class Sym>
struct is_state_symbol : std::bool_constant<is_state<Sym>> {};
template <class Sym>
struct is_parameter_symbol : std::bool_constant<is_parameter<Sym>> {};

}  // namespace fluxion::detail
