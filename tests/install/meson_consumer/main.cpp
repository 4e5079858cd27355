// Built against the installed headers only (see tests/install/check.sh):
// a complete model through the one public include.
#include <fluxion/fluxion.hpp>

#include <array>
#include <cstdio>
#include <cstring>

namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::param<"k"> k;
constexpr auto decay = fx::model(fx::states(x), fx::params(k), fx::d(x) = -k * x);
using M = fx::compiled<decay, double>;

int main() {
  std::array<double, 1> x0{2.0}, p{0.5}, dx{};
  fx::host::rhs(M{}, 0.0, std::span<const double>(x0), std::span<const double>(p), std::span<double>(dx));
  std::printf("fluxion %s: dx = %g\n", fluxion::version_string, dx[0]);
  return std::strcmp(fluxion::version_string, FLUXION_VERSION_STRING) == 0 && dx[0] == -1.0 ? 0 : 1;
}
