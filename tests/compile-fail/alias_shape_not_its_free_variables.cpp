// An alias declared over (c) whose body also reads k: the declared shape must
// name every free index variable of the body, each once.
// expect: fluxion: an alias declared with a shape
// expect: alias_shape_is_not_its_free_index_variables<fluxion::symbol_name<2>{"F"}>
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

using comp = fx::index<"comp", 3>;
using stage = fx::index<"stage", 4, fx::ordered>;
constexpr fx::ivar<comp, 0, "c"> c;
constexpr fx::ivar<stage, 0, "k"> k;
constexpr fx::state<"X", comp, stage> X;
constexpr auto F = fx::alias<"F">(c)(2.0 * X(c, k));

int main() { return 0; }
