// An equation d(beta) = ... for a parameter.
// expect: fluxion: an equation is written for a parameter
// expect: equation_for_a_parameter<fluxion::symbol_name<5>{"beta"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::param<"beta"> beta;
constexpr auto m = fx::model(fx::states(S), fx::params(beta),  //
                             fx::d(S) = -beta * S,              //
                             fx::d(beta) = 0.1 * beta);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
