// Alias "A" reads "B", which reads an alias named "A": a cycle by name.
// expect: fluxion: an alias depends on itself through its own body or other aliases
// expect: alias_depends_on_itself<fluxion::symbol_name<2>{"A"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr auto a1 = fx::alias<"A">(x);
constexpr auto b = fx::alias<"B">(a1 * 2);
constexpr auto a2 = fx::alias<"A">(b + 1);
constexpr auto m = fx::model(fx::states(x), fx::d(x) = -a2);
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
