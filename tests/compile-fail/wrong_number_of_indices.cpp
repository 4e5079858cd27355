// S is declared over (patch, age) but read with one index.
// expect: fluxion: a symbol is indexed with a different number of indices than the index spaces it is declared over
// expect: symbol_used_with_wrong_number_of_indices<fluxion::symbol_name<2>{"S"}, 2, 1>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p, k)) = -0.5 * S(p));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
