// C is declared over (patch, patch); its first index is a variable over age.
// expect: fluxion: a symbol is indexed by an index variable over another space than the one it is declared over at that position
// expect: index_variable_over_wrong_space<fluxion::symbol_name<2>{"C"}, 0, fluxion::symbol_name<6>{"patch"}, fluxion::symbol_name<4>{"age"}>
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
constexpr fx::param<"C", patch, patch> C;
constexpr auto m = fx::model(fx::states(S, I), fx::params(a, beta, C),
                             fx::d(S(p, k)) = -beta(p) * S(p, k) * fx::sum(q, C(k, q) * I(q, k)),
                             fx::d(I(p, k)) = beta(p) * S(p, k) - I(p, k), fx::group<patch>(fx::coupled));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
