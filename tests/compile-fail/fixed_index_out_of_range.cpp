// S is read at age 4 of an age space with extent 4.
// expect: fluxion: a symbol is indexed by a fixed element outside its index space
// expect: fixed_index_out_of_range<fluxion::symbol_name<2>{"S"}, 4, 4>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p, k)) = -S(p, k) + S(p, 4));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
