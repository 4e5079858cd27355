// I is declared over (patch, age) but read inside a reduction with one index.
// expect: fluxion: a symbol is indexed with a different number of indices than the index spaces it is declared over
// expect: symbol_used_with_wrong_number_of_indices<fluxion::symbol_name<2>{"I"}, 2, 1>
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
constexpr auto m = fx::model(fx::states(S, I), fx::params(a, beta),
                             fx::d(S(p, k)) = -beta(p) * S(p, k) * fx::sum(k, I(p)),
                             fx::d(I(p, k)) = beta(p) * S(p, k) - I(p, k), fx::transport<age>(a(k), S, I));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
