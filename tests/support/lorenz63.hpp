// Lorenz 1963 with no observables, the non-stiff reference problem of
// tests/solve/reference_data.cpp (against data/lorenz_t1.csv) and of the
// device ensembles of tests/device/solve_cases.cu:
//   x' = sigma (y - x),  y' = x (rho - z) - y,  z' = x y - beta z
// (flat::lorenz in flat_models.hpp adds two observables: another model).
#pragma once
#include <fluxion/fluxion.hpp>

namespace lorenz63 {

namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::state<"z"> z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;
constexpr auto lorenz = fx::model(fx::states(x, y, z), fx::params(sigma, rho, beta),  //
                                  fx::d(x) = sigma * (y - x),                         //
                                  fx::d(y) = x * (rho - z) - y,                       //
                                  fx::d(z) = x * y - beta * z);

}  // namespace lorenz63
