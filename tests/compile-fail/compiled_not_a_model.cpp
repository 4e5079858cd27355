// fx::compiled given a value that is not a model made by fx::model(...).
// expect: fluxion::compiled: the first argument must be a model made by fluxion::model(...)
#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;

int main() {
  using M = fx::compiled<y, double>;
  return int(M::n_states);
}
