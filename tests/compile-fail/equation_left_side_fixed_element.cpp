// The left-hand side indexes S by a fixed element.
// expect: fluxion: the left-hand side of an equation must index the state by distinct index variables
// expect: equation_left_side_needs_distinct_index_variables<fluxion::symbol_name<2>{"S"}>
// expect: a term for one element goes in the equation over all elements as fx::where(k == 0, term, 0)
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p, 0)) = -S(p, 0));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
