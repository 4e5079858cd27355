// An index condition compares variables of two different spaces (p == k).
// expect: fluxion: an index condition compares index variables of two different index spaces
// expect: index_condition_compares_two_spaces<fluxion::symbol_name<6>{"patch"}, fluxion::symbol_name<4>{"age"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p, k)) = fx::where(p == k, -S(p, k), 0));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
