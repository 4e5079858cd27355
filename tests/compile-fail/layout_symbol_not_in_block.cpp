// A layout block asked for the offset of a symbol it does not hold (a
// parameter, from the state block).
// expect: fluxion::layout: the symbol is not part of this block of the layout.
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto m = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);
using M = fx::compiled<m, double>;

int main() { return int(M::layout::state::offset(k)); }
