// Small models with closed-form solutions, declared once for the tests of
// tests/solve that integrate them (each test keeps its own closed form):
//   decay       y' = -k y                            explicit.cpp, vern7.cpp, lanes.cpp
//   oscillator  x'' = -w^2 x as x' = v, v' = -w^2 x  explicit.cpp, vern7.cpp
//   logistic    y' = r y (1 - y / K)                 explicit.cpp, vern7.cpp
//   blowup      y' = k y^2, infinite at t = 1 / (k y0)   explicit.cpp, vern7.cpp
//   relax       y' = c - k y, parameters (k, c)      sensitivity.cpp, bad_inputs.cpp
// The tests build their other models from the same symbols (y, k, ...).
#pragma once
#include <fluxion/fluxion.hpp>

namespace closed_form_models {

namespace fx = fluxion;

constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto decay = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * y);

constexpr fx::state<"x"> x;
constexpr fx::state<"v"> v;
constexpr fx::param<"w"> w;
constexpr auto oscillator = fx::model(fx::states(x, v), fx::params(w), fx::d(x) = v, fx::d(v) = -w * w * x);

constexpr fx::param<"r"> r;
constexpr fx::param<"K"> K;
constexpr auto logistic = fx::model(fx::states(y), fx::params(r, K), fx::d(y) = r * y * (1 - y / K));

constexpr auto blowup = fx::model(fx::states(y), fx::params(k), fx::d(y) = k * y * y);

constexpr fx::param<"c"> c;
constexpr auto relax = fx::model(fx::states(y), fx::params(k, c), fx::d(y) = c - k * y);

}  // namespace closed_form_models
