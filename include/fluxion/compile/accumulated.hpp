#pragma once
// A compiled model with each observable accumulated over time: for every
// observable y of the model, a state Y with Y' = y (Y(t0) = 0, the same
// shape as y) and an observable reading Y. Counts over an interval
// (infer/likelihood.hpp's interval series) are differences of Y between two
// save times, computed without extra states in the user's model: the
// log-density integrates this model in its place.
//
//   using A = fx::with_accumulated_observables<M>;   // M = fx::compiled<model, T>
//   A::n_states == M::n_states + M::n_observables        // the model's states first
//   A::n_observables == 2 * M::n_observables             // observable k accumulated: M::n_observables + k
//
// Because the new states and observables are declared after the model's
// own, the model's states, parameters and observables keep their flat
// indices (symbol-major layout), and the accumulated observable of flat
// observable k is observable M::n_observables + k. The new equations are the
// observables' own expressions, so every Jacobian (and the sensitivities
// and adjoints built on them) is exact, as for any model.
#include <cstddef>
#include <type_traits>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/compile/plan.hpp>
#include <fluxion/config/fixed_string.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/model/model.hpp>
#include <fluxion/model/statements.hpp>

namespace fluxion {

namespace detail {

// "acc(" name ")" for the state, "acc[" name "]" for its observable: names no
// model symbol can clash with (checked with the model's others all the same).
template <fixed_string Name, char Open, char Close>
constexpr auto accumulated_name() {
  constexpr std::size_t n = Name.size();
  static_assert(n + 5 <= 64, "fluxion::with_accumulated_observables: an observable's name has at most 59 characters.");
  char text[n + 6] = {'a', 'c', 'c', Open};
  for (std::size_t i = 0; i < n; ++i) text[4 + i] = Name[i];
  text[4 + n] = Close;
  text[5 + n] = '\0';
  return fixed_string<n + 6>(text);
}

// The accumulated state of observable symbol Of (Kind kind::state), or the
// observable reading it (kind::observable): a symbol like any other, read
// through the same members, named from Of's name. (A type of its own
// rather than a symbol<Kind, name, ...>: nvcc's generated host code would
// spell that computed name as an expression in each kernel's arguments.)
template <class Of, class Kind>
struct accumulated_symbol {
  using fluxion_node = void;
  using fluxion_symbol = void;
  using kind = Kind;
  using spaces = typename Of::spaces;
  static constexpr bool is_state = std::is_same_v<Kind, fluxion::kind::state>;
  static constexpr auto name = accumulated_name<Of::name, is_state ? '(' : '[', is_state ? ')' : ']'>();
  static constexpr std::size_t rank = Of::rank;
  static constexpr std::size_t size = Of::size;
};

template <class ObservableDef>
struct accumulated_parts;
template <class Sym, class Vars, class Expr>
struct accumulated_parts<observable_def<Sym, Vars, Expr>> {
  using state = accumulated_symbol<Sym, kind::state>;
  using state_ref = typename ref_over<state, Vars>::type;  // compile/plan.hpp's
  using state_list = type_list<state>;
  using equation_list = type_list<equation<state_ref, Expr>>;
  using observable_list = type_list<observable_def<accumulated_symbol<Sym, kind::observable>, Vars, state_ref>>;
};

// The accumulated states, equations and observables of a list of observable_defs.
template <class Defs>
struct accumulated_lists;
template <class... D>
struct accumulated_lists<type_list<D...>> {
  using states = concat_t<typename accumulated_parts<D>::state_list...>;
  using equations = concat_t<typename accumulated_parts<D>::equation_list...>;
  using observables = concat_t<typename accumulated_parts<D>::observable_list...>;
};

template <class Item>
struct observable_defs_in {
  using type = type_list<>;
};
template <class Sym, class Vars, class Expr>
struct observable_defs_in<observable_def<Sym, Vars, Expr>> {
  using type = type_list<observable_def<Sym, Vars, Expr>>;
};

// The states declaration with the accumulated states appended; other items as they are.
template <class Item, class NewStates>
struct with_states {
  using type = Item;
};
template <class... S, class... N>
struct with_states<states_decl<S...>, type_list<N...>> {
  using type = states_decl<S..., N...>;
};

template <class Items, class States, class Equations, class Observables>
struct assemble_accumulated;
template <class... Items, class... S, class... E, class... O>
struct assemble_accumulated<type_list<Items...>, type_list<S...>, type_list<E...>, type_list<O...>> {
  using type = lowered_model<typename with_states<Items, type_list<S...>>::type..., E..., O...>;
};

template <class LoweredModel>
struct accumulated_model;
template <class... Items>
struct accumulated_model<lowered_model<Items...>> {
  using lists = accumulated_lists<concat_t<typename observable_defs_in<Items>::type...>>;
  using type = typename assemble_accumulated<type_list<Items...>, typename lists::states, typename lists::equations,
                                             typename lists::observables>::type;
};

}  // namespace detail

template <class M>
struct with_accumulated_observables_t;

// The accumulating form of compiled model M (see above); `given_states` and
// `given_observables` are M's own counts.
template <class LoweredModel, class T, class Policy>
struct with_accumulated_observables_t<evaluator<LoweredModel, T, Policy>>
    : evaluator<typename detail::accumulated_model<LoweredModel>::type, T, Policy> {
  static_assert(std::is_same_v<Policy, symbol_major>,
                "fluxion::with_accumulated_observables: the model must be compiled with fluxion::symbol_major "
                "(the accumulated states follow the model's own in the flat layout).");
  using given_model = evaluator<LoweredModel, T, Policy>;
  static constexpr std::size_t given_states = given_model::n_states;
  static constexpr std::size_t given_observables = given_model::n_observables;
};

template <class M>
using with_accumulated_observables = with_accumulated_observables_t<M>;

namespace detail {
// The states and observables a caller gives and reads of model M: its own,
// or those of the model it accumulates.
template <class M>
inline constexpr std::size_t given_states_of = M::n_states;
template <class M>
  requires requires { M::given_states; }
inline constexpr std::size_t given_states_of<M> = M::given_states;
template <class M>
inline constexpr std::size_t given_observables_of = M::n_observables;
template <class M>
  requires requires { M::given_observables; }
inline constexpr std::size_t given_observables_of<M> = M::given_observables;
}  // namespace detail

}  // namespace fluxion
