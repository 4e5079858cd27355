// A state declared in fx::states(...) without an equation.
// expect: fluxion: a state has no equation
// expect: state_has_no_equation<fluxion::symbol_name<2>{"E"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"E"> E;
constexpr fx::param<"beta"> beta;
constexpr auto m = fx::model(fx::states(S, E), fx::params(beta), fx::d(S) = -beta * S);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
