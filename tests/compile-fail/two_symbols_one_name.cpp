// A state and a parameter both named "x".
// expect: fluxion: two different symbols of the model have one name
// expect: two_symbols_with_one_name<fluxion::symbol_name<2>{"x"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::param<"x"> rate;
constexpr auto m = fx::model(fx::states(x), fx::params(rate), fx::d(x) = -rate * x);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
