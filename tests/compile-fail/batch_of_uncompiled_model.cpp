// A batch evaluation given the model made by fx::model(...) instead of its
// compiled evaluator.
// expect: fluxion: a batch evaluation takes a model that satisfies fluxion::compiled_model
// expect: pass fluxion::compiled<model, T>{}
#include <vector>

#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto m = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);

int main() {
  const std::vector<double> x{1.0}, p{2.0};
  std::vector<double> dx(1);
  fx::host::rhs(m, 0.0, 1, fx::soa(x), fx::soa(p), fx::soa(dx));
  return int(dx[0]);
}
