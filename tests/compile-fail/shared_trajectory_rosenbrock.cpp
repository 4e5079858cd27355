// A group of members integrating one trajectory with a Rosenbrock method.
// expect: fluxion::integrate_shared: a group of members integrates one trajectory with an explicit method
#include <fluxion/fluxion.hpp>
#include <fluxion/solve/cooperative.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto m = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);
using M = fx::compiled<m, double>;

struct one_member {
  unsigned rank() const { return 0; }
  unsigned size() const { return 1; }
  void sync() const {}
  double sum(double v) const { return v; }
};

int main() {
  double shared[fx::shared_state_system<M, 1, one_member>::shared_values] = {};
  double x0 = 1, p = 1, last = 0;
  const fx::ode_options<double> o{.t0 = 0, .t1 = 1};
  const fx::trajectory_io<double> io{&x0, 1, &p, 1, nullptr, 0, 0, &last, 1};
  fx::solve_statistics st{};
  return int(fx::integrate_shared<fx::rodas5p, 1, false>(M{}, one_member{}, o, io, shared, st));
}
