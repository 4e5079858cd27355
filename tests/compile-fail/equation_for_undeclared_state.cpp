// An equation for a state that fx::states(...) does not list.
// expect: fluxion: an equation is written for a symbol that is not declared with fx::states(...)
// expect: equation_for_a_symbol_that_is_not_a_declared_state<fluxion::symbol_name<2>{"E"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"E"> E;
constexpr fx::param<"beta"> beta;
constexpr auto m = fx::model(fx::states(S), fx::params(beta),  //
                             fx::d(S) = -beta * S,              //
                             fx::d(E) = beta * S);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
