// Transport of S and I over stage, a space neither is shaped over.
// expect: fluxion: stage transport names a state that is not shaped over the transport's space (an unknown space for that state)
// expect: transport_of_a_state_not_shaped_over_the_space<fluxion::symbol_name<2>{"S"}, fluxion::symbol_name<6>{"stage"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;
using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
using zone = fx::index<"zone", 2>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"I", patch, age> I;
constexpr fx::param<"a", age> a;
constexpr fx::param<"beta", patch> beta;
using stage = fx::index<"stage", 3, fx::ordered>;
constexpr fx::ivar<stage, 0, "j"> j;
constexpr fx::param<"m", stage> mrate;
constexpr auto m = fx::model(fx::states(S, I), fx::params(a, beta, mrate),
                             fx::d(S(p, k)) = -beta(p) * S(p, k), fx::d(I(p, k)) = beta(p) * S(p, k) - I(p, k),
                             fx::transport<stage>(mrate(j), S, I));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
