// An observable shaped by one variable twice.
// expect: fluxion: an observable must be shaped by distinct index variables
// expect: observable_needs_distinct_index_variables<fluxion::symbol_name<5>{"diag"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
constexpr fx::state<"S", patch> S;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr auto m = fx::model(fx::states(S), fx::d(S(p)) = -S(p),  //
                             fx::observe<"diag">(p, p) = 2 * S(p));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
