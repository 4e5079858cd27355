// An index condition names an element the space does not have (k == 4 over 4 stages).
// expect: fluxion: an index condition compares an index variable with a number outside its space
// expect: index_condition_number_outside_space<fluxion::symbol_name<4>{"age"}, 4, 4>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", age> S;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S), fx::d(S(k)) = fx::where(k == 4, -S(k), 0));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
