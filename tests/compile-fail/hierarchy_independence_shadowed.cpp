// patch is declared independent, but dX reads X at every patch: the reduction
// binds the equation's own variable p again, so X(p) inside it is another
// element (found by the generated suite; this compiled before).
// expect: fluxion: a group is declared independent but the equation of a state reads another element of the group
// expect: group_declared_independent_but_equation_reads_another_element<fluxion::symbol_name<6>{"patch"}, fluxion::symbol_name<2>{"X"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;
using patch = fx::index<"patch", 3>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::state<"X", patch> X;
constexpr fx::param<"r", patch> r;
constexpr auto m = fx::model(fx::states(X), fx::params(r),
                             fx::d(X(p)) = -r(p) * X(p) + fx::sum(p, X(p)) / 3.0,
                             fx::group<patch>(fx::independent));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
