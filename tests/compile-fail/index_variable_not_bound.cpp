// The right-hand side of R(p) reads S(p, k) but nothing binds k.
// expect: fluxion: the right-hand side of an equation or observable uses an index variable that its left-hand side does not bind
// expect: index_variable_not_bound_by_left_side<fluxion::symbol_name<2>{"R"}, fluxion::symbol_name<4>{"age"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"R", patch> R;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(fx::states(S, R),                  //
                             fx::d(S(p, k)) = -S(p, k),         //
                             fx::d(R(p)) = S(p, k));
using M = fx::compiled<m, double>;
static_assert(M::n_states > 0);

int main() { return 0; }
