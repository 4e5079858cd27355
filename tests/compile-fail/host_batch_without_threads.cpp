// A host batch in a translation unit that read <fluxion/core.hpp> (what
// <fluxion/cuda.hpp> includes) but not <fluxion/fluxion.hpp>, which defines the
// host threads: one error that names the header to include.
// expect: fluxion::host: a host batch, integration or log-density runs on host threads
// expect: include it in this translation unit
#include <fluxion/core.hpp>

#include <span>
namespace fx = fluxion;

constexpr fx::state<"x"> X;
constexpr fx::param<"k"> K;
constexpr auto m = fx::model(fx::states(X), fx::params(K), fx::d(X) = -K * X);
using M = fx::compiled<m, double>;

int main() {
  const double x[1] = {1}, p[1] = {2};
  double dx[1];
  fx::host::rhs(M{}, 0.0, 1, fx::soa(std::span<const double>(x)), fx::soa(std::span<const double>(p)),
                fx::soa(std::span<double>(dx)));
  return 0;
}
