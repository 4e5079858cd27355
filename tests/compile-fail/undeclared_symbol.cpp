// An equation reads a parameter that the model does not declare.
// expect: fluxion: an expression uses a symbol that the model does not declare
// expect: symbol_not_declared_in_model<fluxion::symbol_name<6>{"gamma"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gamma_;
constexpr auto m = fx::model(fx::states(S), fx::params(beta), fx::d(S) = -beta * S - gamma_ * S);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
