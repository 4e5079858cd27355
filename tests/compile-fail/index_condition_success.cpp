// Conditions at the edges of what is allowed compile: the extent itself with <,
// a shifted variable against 0, two variables of one space, and a mix with values.
// expect-success
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", age> S;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::ivar<age, 1, "m"> m;
constexpr auto m_ = fx::model(fx::states(S),
                              fx::d(S(k)) = fx::where(k < 4 && k - 1 >= 0, -S(k), 0) +
                                            fx::sum(m, fx::where(m != k || S(m) > 1, S(m), 0)));
using M = fx::compiled<m_, double>;
static_assert(M::n_states == 4);

int main() { return 0; }
