// Two equations for one state.
// expect: fluxion: the equation for a state is written twice
// expect: equation_written_twice<fluxion::symbol_name<2>{"S"}>
// expect: a term for one element or a range goes inside it as fx::where(k == 0, term, 0)
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
