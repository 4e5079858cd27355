// Model B of the benchmarks (Lorenz, as bench/ensemble_device.cu writes it)
// as a Python module, for bench/python_bench.py.
#pragma once
#include <fluxion/python.hpp>

namespace lorenz {
namespace fx = fluxion;
inline constexpr fx::state<"x"> X;
inline constexpr fx::state<"y"> Y;
inline constexpr fx::state<"z"> Z;
inline constexpr fx::param<"sigma"> sigma;
inline constexpr fx::param<"rho"> rho;
inline constexpr fx::param<"beta"> beta;
inline constexpr auto model = fx::model(fx::states(X, Y, Z), fx::params(sigma, rho, beta),  //
                                        fx::d(X) = sigma * (Y - X),                         //
                                        fx::d(Y) = X * (rho - Z) - Y,                       //
                                        fx::d(Z) = X * Y - beta * Z);
}  // namespace lorenz

FLUXION_PYTHON_MODULE(lorenz_py, fluxion::python::module_spec<lorenz::model>);
