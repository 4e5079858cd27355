// Two equations for one state.
// expect: fluxion: the equation for a state is written twice
// expect: equation_written_twice<fluxion::symbol_name<2>{"S"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::param<"beta"> beta;
constexpr auto m = fx::model(fx::states(S, I), fx::params(beta),  //
                             fx::d(S) = -beta * S * I,             //
                             fx::d(I) = beta * S * I,              //
                             fx::d(S) = -beta * S);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
