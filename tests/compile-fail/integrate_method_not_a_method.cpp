// An integration given something that is not a method (here a tolerance).
// expect: fluxion: the method of an integration must satisfy fluxion::ode_method
// expect: fluxion::tsit5, fluxion::vern7
#include <vector>

#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto m = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);
using M = fx::compiled<m, double>;

int main() {
  const std::vector<double> x0{1.0}, p{1.0};
  const auto r = fx::host::integrate(M{}, 1e-6, fx::ode_problem<double>{.t0 = 0, .t1 = 1}, 1, fx::soa(x0), fx::soa(p));
  return int(r.status.size());
}
