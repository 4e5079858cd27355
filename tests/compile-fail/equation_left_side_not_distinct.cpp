// The left-hand side indexes C by one variable twice.
// expect: fluxion: the left-hand side of an equation must index the state by distinct index variables
// expect: equation_left_side_needs_distinct_index_variables<fluxion::symbol_name<2>{"C"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
constexpr fx::state<"C", patch, patch> C;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr auto m = fx::model(fx::states(C), fx::d(C(p, p)) = -C(p, p));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
