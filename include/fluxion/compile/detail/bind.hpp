#pragma once
// Binding: an expression of a plan with every reference resolved to the
// buffer and compile-time slot it is read from (states, parameters, scratch,
// a direction or the scratch's tangents), and an equation or scratch step
// bound to the element it writes, ready for the loop writers (writers.hpp).
#include <type_traits>

#include <fluxion/compile/slot.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>

namespace fluxion::detail {

// Where Sym is read, given the state, parameter and scratch blocks.
template <class Sym, class = void>
struct read_place {
  template <class St, class Pa, class Sc, class... I>
  using in = slot_at<is_state<Sym> ? source::x : is_parameter<Sym> ? source::p : source::scratch,
                     if_t<is_state<Sym>, St, if_t<is_parameter<Sym>, Pa, Sc>>, Sym, I...>;
};
template <class Sym>
struct read_place<Sym, std::void_t<typename Sym::base>> {  // tangent<S>: the direction
  using S = typename Sym::base;
  template <class St, class Pa, class Sc, class... I>
  using in = slot_at<is_alias<S> ? source::tangents : source::v, if_t<is_alias<S>, Sc, if_t<is_state<S>, St, Pa>>, S,
                     I...>;
};

// Where the symbols of an evaluation live: the state and parameter blocks of
// the layout and the block of the plan's scratch.
template <class StateBlock, class ParamBlock, class ScratchBlock>
struct resolver {
  template <class Sym, class... I>
  using slot = typename read_place<Sym>::template in<StateBlock, ParamBlock, ScratchBlock, I...>;
};

// E with every reference resolved by R (a resolver); otherwise the same
// nodes, so it evaluates to the same value bit for bit. The recursion's
// classes are keyed by the expression alone, R entering only through their
// member alias templates: nvcc's device front end emits, and mangles, every
// class it instantiates, and classes named by R (every block of the layout)
// cost cicc about a tenth of a Jacobian unit (the aliases are named too,
// but that costs less).
template <class E>
struct bind_expr;
template <class E, class R>
using bind_t = typename bind_expr<E>::template with<R>;
template <class R>
struct bound_by {
  template <class C>
  using fn = bind_t<C, R>;
};
template <class E>
struct bind_expr {
  template <class R>
  using with = typename node_traits<E>::template map<bound_by<R>>;
};
template <class Sym, class... I>
struct bind_expr<ref<Sym, I...>> {
  template <class R>
  using with = typename R::template slot<Sym, I...>;
};

// An equation (or scratch step) to write: its right-hand side bound by R and
// its target, element Sym[Vars...] of output block Block, as a slot.
template <class Target, class Vars, class Rhs>
struct bound_equation {
  using target = Target;
  using vars = Vars;
  using rhs = Rhs;
};
template <class Eqs, class Block, class R>
struct bind_equations;
template <class... Eq, class Block, class R>
struct bind_equations<type_list<Eq...>, Block, R> {
  using type = type_list<bound_equation<typename element_slot<typename Eq::vars>::template in<Block, typename Eq::symbol>,
                                        typename Eq::vars, bind_t<typename Eq::rhs, R>>...>;
};

}  // namespace fluxion::detail
