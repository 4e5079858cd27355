// One body per inline function, whichever compiler builds it. A program that
// links nvcc-built (.cu) and host-compiler-built (.cpp) units calling the same
// fluxion::host function template (a Python module with both, say) must run
// each unit's own body: they differ (the host compiler's evaluates several
// instances at once in SIMD lanes, nvcc's host pass one at a time), so one
// name for both would be an ODR violation and the linker would keep one of
// them for both units. fluxion::host therefore opens an inline namespace per
// compiler (FLUXION_HOST_ABI_BEGIN, config/macros.hpp).
//
// odr_pair.cu (nvcc) and odr_pair.cpp (host compiler) instantiate
// fluxion::host::rhs and fluxion::host::integrate (Tsit5) for the same model
// (odr_model.hpp) and export their addresses and results. Checked here (host
// compiler; Catch2 is never built by nvcc): the two units' instantiations
// are two functions, each unit calling its own (the host compiler's through
// SIMD lanes, nvcc's without), and both results agree with the model's
// equations written out in plain C++ (the right-hand side, and the linear
// chain's closed-form solution).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include "odr_pair.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

constexpr std::size_t B = 13;  // a few SIMD groups and a remainder

struct batch_inputs {
  std::vector<double> x = std::vector<double>(odr_pair::n_states * B);
  std::vector<double> p = std::vector<double>(odr_pair::n_params * B);
  batch_inputs() {
    for (std::size_t b = 0; b < B; ++b) {
      x[b] = 1.0 + 0.25 * double(b);       // x
      x[B + b] = 0.5 - 0.03 * double(b);   // y
      p[b] = 0.3 + 0.05 * double(b);       // a
      p[B + b] = 1.1 + 0.02 * double(b);   // b (never equal to a here)
    }
  }
};

// The oracle: the model's equations, and the closed form of x' = -a x,
// y' = a x - b y (a != b).
void rhs_oracle(double x, double y, double a, double b, double& dx, double& dy) {
  dx = -a * x;
  dy = a * x - b * y;
}
void solution(double t, double x0, double y0, double a, double b, double& x, double& y) {
  x = x0 * std::exp(-a * t);
  y = y0 * std::exp(-b * t) + a * x0 / (b - a) * (std::exp(-a * t) - std::exp(-b * t));
}

}  // namespace

TEST_CASE("the nvcc unit and the host compiler's unit each run their own fluxion::host bodies") {
  const odr_pair::unit_report from_nvcc = odr_pair::nvcc::report();
  const odr_pair::unit_report native = odr_pair::native::report();
  INFO("rhs: nvcc " << from_nvcc.rhs_address << ", host compiler " << native.rhs_address);
  INFO("integrate: nvcc " << from_nvcc.integrate_address << ", host compiler " << native.integrate_address);
  // One address for both would be one definition kept for two different
  // bodies (the ODR violation the inline namespaces prevent).
  CHECK(from_nvcc.rhs_address != native.rhs_address);
  CHECK(from_nvcc.integrate_address != native.integrate_address);
  // nvcc's host pass evaluates one instance at a time; the host compiler, in lanes.
  CHECK(from_nvcc.simd_bytes_used == 0);
  CHECK(native.simd_bytes_used > 0);
}

TEST_CASE("each unit's fluxion::host::rhs follows the equations, the host compiler's through SIMD lanes") {
  const batch_inputs in;
  std::vector<double> dx_nvcc(odr_pair::n_states * B, -1.0), dx_native(odr_pair::n_states * B, -1.0);
  const std::size_t groups_nvcc = odr_pair::nvcc::rhs(0.5, B, in.x.data(), in.p.data(), dx_nvcc.data());
  const std::size_t groups_native = odr_pair::native::rhs(0.5, B, in.x.data(), in.p.data(), dx_native.data());
  CHECK(groups_nvcc == 0);
  CHECK(groups_native > 0);
  for (std::size_t b = 0; b < B; ++b) {
    double dx = 0, dy = 0;
    rhs_oracle(in.x[b], in.x[B + b], in.p[b], in.p[B + b], dx, dy);
    CHECK_THAT(dx_nvcc[b], WithinRel(dx, 1e-15));
    CHECK_THAT(dx_nvcc[B + b], WithinAbs(dy, 1e-15 * (std::abs(in.p[b] * in.x[b]) + std::abs(in.p[B + b] * in.x[B + b]))));
    CHECK_THAT(dx_native[b], WithinRel(dx, 1e-15));
    CHECK_THAT(dx_native[B + b],
               WithinAbs(dy, 1e-15 * (std::abs(in.p[b] * in.x[b]) + std::abs(in.p[B + b] * in.x[B + b]))));
  }
}

TEST_CASE("each unit's fluxion::host::integrate (Tsit5) follows the closed-form solution") {
  const batch_inputs in;
  constexpr double t1 = 2.0;
  std::vector<double> end_nvcc(odr_pair::n_states * B, -1.0), end_native(odr_pair::n_states * B, -1.0);
  REQUIRE(odr_pair::nvcc::integrate(t1, B, in.x.data(), in.p.data(), end_nvcc.data()));
  REQUIRE(odr_pair::native::integrate(t1, B, in.x.data(), in.p.data(), end_native.data()));
  for (std::size_t b = 0; b < B; ++b) {
    double x = 0, y = 0;
    solution(t1, in.x[b], in.x[B + b], in.p[b], in.p[B + b], x, y);
    CHECK_THAT(end_nvcc[b], WithinAbs(x, 1e-8));
    CHECK_THAT(end_nvcc[B + b], WithinAbs(y, 1e-8));
    CHECK_THAT(end_native[b], WithinAbs(x, 1e-8));
    CHECK_THAT(end_native[B + b], WithinAbs(y, 1e-8));
  }
}
