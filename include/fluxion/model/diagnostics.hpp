#pragma once
// Diagnostics of a model. Each is a class template named after the mistake
// whose arguments name the symbols involved; the compiler's "in instantiation
// of" line shows them, and the static_assert says in one sentence what is
// wrong and how to fix it.
#include <fluxion/config/fixed_string.hpp>
#include <fluxion/detail/mp.hpp>

namespace fluxion::diagnostics {

#define FLUXION_DIAGNOSTIC(NAME, MESSAGE)                              \
  template <symbol_name Symbol>                                       \
  struct NAME {                                                        \
    static_assert(detail::always_false_v<Symbol>, "fluxion: " MESSAGE); \
  };

FLUXION_DIAGNOSTIC(state_has_no_equation,
                   "a state has no equation; every state declared with fx::states(...) needs exactly one "
                   "'fx::d(state) = expression' (the state is this template's argument).")
FLUXION_DIAGNOSTIC(equation_written_twice,
                   "the equation for a state is written twice; each state has exactly one "
                   "'fx::d(state) = expression', written once over all its elements; a term for one "
                   "element or a range goes inside it as fx::where(k == 0, term, 0) (the state is this "
                   "template's argument).")
FLUXION_DIAGNOSTIC(equation_for_a_parameter,
                   "an equation is written for a parameter; parameters are inputs that are not "
                   "integrated, so only states have 'fx::d(...) = ...' (the parameter is this "
                   "template's argument).")
FLUXION_DIAGNOSTIC(equation_for_a_symbol_that_is_not_a_declared_state,
                   "an equation is written for a symbol that is not declared with fx::states(...) "
                   "(the symbol is this template's argument).")
FLUXION_DIAGNOSTIC(symbol_not_declared_in_model,
                   "an expression uses a symbol that the model does not declare; add it to "
                   "fx::states(...) or fx::params(...) (the symbol is this template's argument).")
FLUXION_DIAGNOSTIC(alias_depends_on_itself,
                   "an alias depends on itself through its own body or other aliases; aliases must "
                   "form a chain without cycles (the alias is this template's argument).")
FLUXION_DIAGNOSTIC(alias_shape_is_not_its_free_index_variables,
                   "an alias declared with a shape, fx::alias<\"name\">(vars...)(body), must name each free "
                   "index variable of its body exactly once, in the order its elements are read by "
                   "name(vars...) (the alias is this template's argument).")
FLUXION_DIAGNOSTIC(two_symbols_with_one_name,
                   "two different symbols of the model have one name; states, parameters, aliases "
                   "and observables need distinct names (the name is this template's argument).")
FLUXION_DIAGNOSTIC(equation_left_side_needs_distinct_index_variables,
                   "the left-hand side of an equation must index the state by distinct index "
                   "variables, one per declared space, without shifts or fixed elements; a term for "
                   "one element goes in the equation over all elements as fx::where(k == 0, term, 0) "
                   "(the state is this template's argument).")
FLUXION_DIAGNOSTIC(observable_needs_distinct_index_variables,
                   "an observable must be shaped by distinct index variables (the observable is "
                   "this template's argument).")
FLUXION_DIAGNOSTIC(transport_over_unordered_space,
                   "stage transport needs an ordered index space, declared as "
                   "fx::index<\"name\", extent, fx::ordered> (the space is this template's argument).")
FLUXION_DIAGNOSTIC(group_over_a_space_no_state_uses,
                   "a group is declared over an index space that no state of the model is shaped "
                   "over (the space is this template's argument).")
#undef FLUXION_DIAGNOSTIC

template <symbol_name Symbol, symbol_name Space>
struct index_variable_not_bound_by_left_side {
  static_assert(detail::always_false_v<Symbol>,
                "fluxion: the right-hand side of an equation or observable uses an index variable "
                "that its left-hand side does not bind and no reduction binds; the equation's symbol "
                "and the variable's space are this template's arguments.");
};

template <symbol_name Symbol, int Element, int Extent>
struct fixed_index_out_of_range {
  static_assert(detail::always_false_v<Symbol>,
                "fluxion: a symbol is indexed by a fixed element outside its index space; the "
                "symbol, the element and the extent are this template's arguments.");
};

template <symbol_name State, symbol_name Space>
struct transport_of_a_state_not_shaped_over_the_space {
  static_assert(detail::always_false_v<State>,
                "fluxion: stage transport names a state that is not shaped over the transport's "
                "space (an unknown space for that state); the state and the space are this "
                "template's arguments.");
};

template <symbol_name State, symbol_name Space>
struct transport_rate_uses_a_space_the_state_lacks {
  static_assert(detail::always_false_v<State>,
                "fluxion: a transport rate is indexed over a space that a transported state is not "
                "shaped over; the state and the space are this template's arguments.");
};

template <symbol_name Group, symbol_name State>
struct group_declared_independent_but_equation_reads_another_element {
  static_assert(detail::always_false_v<Group>,
                "fluxion: a group is declared independent but the equation of a state reads "
                "another element of the group (a state indexed there by another index variable, a "
                "reduction's variable, a shift or a fixed element); declare it fx::coupled or change "
                "the equation. The group's space and the state are this template's arguments.");
};

}  // namespace fluxion::diagnostics
