// The stiff test problems of tests/solve (stiff.cpp, reference_data.cpp,
// lanes.cpp, host_buffers.cpp, user_methods.cpp) and of
// tests/device/solve_cases.cu (robertson), declared once:
//   prothero_robinson  y' = lambda (y - sin t) + cos t, y = sin t + (y0 - sin 0) e^(lambda t)
//   robertson          Robertson's kinetics, rate constants k1, k2, k3
//   van_der_pol        scaled: y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps
#pragma once
#include <fluxion/fluxion.hpp>

namespace stiff_models {

namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"lambda"> lambda;
constexpr auto prothero_robinson =
    fx::model(fx::states(y), fx::params(lambda), fx::d(y) = lambda * (y - fx::sin(fx::t)) + fx::cos(fx::t));

constexpr fx::state<"y1"> y1;
constexpr fx::state<"y2"> y2;
constexpr fx::state<"y3"> y3;
constexpr fx::param<"k1"> k1;
constexpr fx::param<"k2"> k2;
constexpr fx::param<"k3"> k3;
constexpr auto robertson = fx::model(fx::states(y1, y2, y3), fx::params(k1, k2, k3),  //
                                     fx::d(y1) = -k1 * y1 + k3 * y2 * y3,             //
                                     fx::d(y2) = k1 * y1 - k2 * y2 * y2 - k3 * y2 * y3,  //
                                     fx::d(y3) = k2 * y2 * y2);

constexpr fx::param<"eps"> eps;
constexpr auto van_der_pol = fx::model(fx::states(y1, y2), fx::params(eps),  //
                                       fx::d(y1) = y2,                       //
                                       fx::d(y2) = ((1 - y1 * y1) * y2 - y1) / eps);

}  // namespace stiff_models
