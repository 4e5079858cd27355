// S is declared over (patch, age); its second index is a variable over patch.
// expect: fluxion: a symbol is indexed by an index variable over another space than the one it is declared over at that position
// expect: index_variable_over_wrong_space<fluxion::symbol_name<2>{"S"}, 1, fluxion::symbol_name<4>{"age"}, fluxion::symbol_name<6>{"patch"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p, k)) = -0.5 * fx::sum(q, S(p, q)));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
