#pragma once
// Diagnostics of the symbolic layer. Each is a class template named after the
// mistake and parameterized by the names involved, so the compiler's
// "in instantiation of ..." line names the symbol while the static_assert
// says, in one sentence, what is wrong.
#include <fluxion/config/fixed_string.hpp>
#include <fluxion/detail/mp.hpp>

namespace fluxion::diagnostics {

template <symbol_name Symbol, int Declared, int Given>
struct symbol_used_with_wrong_number_of_indices {
  static_assert(detail::always_false_v<Symbol>,
                "fluxion: a symbol is indexed with a different number of indices than the index "
                "spaces it is declared over; the symbol, its declared rank and the number given are "
                "the arguments of this template.");
};

template <symbol_name Symbol, int Position, symbol_name DeclaredSpace, symbol_name GivenSpace>
struct index_variable_over_wrong_space {
  static_assert(detail::always_false_v<Symbol>,
                "fluxion: a symbol is indexed by an index variable over another space than the one "
                "it is declared over at that position; the symbol, the position, the declared space "
                "and the variable's space are the arguments of this template.");
};

template <symbol_name SpaceA, symbol_name SpaceB>
struct index_condition_compares_two_spaces {
  static_assert(detail::always_false_v<SpaceA>,
                "fluxion: an index condition compares index variables of two different index spaces; "
                "compare a variable with another variable of its own space or with a number (the two "
                "spaces are the arguments of this template).");
};

template <symbol_name Space, int Number, int Extent>
struct index_condition_number_outside_space {
  static_assert(detail::always_false_v<Space>,
                "fluxion: an index condition compares an index variable with a number outside its space "
                "(elements 0 to extent - 1; < <= > >= may also name the extent), so it holds everywhere or "
                "nowhere; the space, the number and the extent are the arguments of this template.");
};

}  // namespace fluxion::diagnostics
