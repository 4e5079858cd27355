// A log-density asked of a Rosenbrock method (its gradient needs an explicit one).
// expect: fluxion: the method of a log-density must satisfy fluxion::explicit_tableau
#include <span>
#include <vector>

#include <fluxion/fluxion.hpp>
namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr fx::param<"sd"> sd;
constexpr auto m = fx::model(fx::states(y), fx::params(k, sd), fx::d(y) = -k * y,
                             fx::observe<"level">() = y);
using M = fx::compiled<m, double>;

int main() {
  const std::vector<double> x0{1.0}, p{1.0, 0.1}, days{1.0, 2.0};
  const std::vector<fx::observation<double>> level = {fx::observation<double>::exact(0.4),
                                                      fx::observation<double>::exact(0.1)};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = days};
  constexpr fx::series<fx::normal> series{.name = "level", .observable = 0, .parameters = {1}};
  const std::vector<fx::series_data<double>> data = {{.values = level}};
  const auto r = fx::host::log_density(M{}, fx::rodas5p{}, pr, fx::likelihood(series), std::span(data),
                                       fx::priors<>{}, 1, fx::soa(x0), fx::soa(p));
  return int(r.value.size());
}
