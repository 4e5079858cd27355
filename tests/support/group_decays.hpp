// Ten decays integrated by a group of members (host threads in
// tests/solve/cooperative.cpp, a warp's lanes in tests/device/solve_cases.cu):
//   y_i' = -rate_i y_i,  rate_i = c k_i (an alias: a scratch step that the
//   members sync after),  i over ten states (shares of 4, 2 and 1 leave
//   padding; a warp of 32 lanes leaves 22)
#pragma once
#include <fluxion/fluxion.hpp>

namespace group_decays {

namespace fx = fluxion;

using ten = fx::index<"i", 10>;
constexpr fx::ivar<ten, 0, "i"> i;
constexpr fx::state<"y", ten> y;
constexpr fx::param<"k", ten> k;
constexpr fx::param<"c"> c;
constexpr auto rate = fx::alias<"rate">(c * k(i));
constexpr auto decays = fx::model(fx::states(y), fx::params(k, c), fx::d(y(i)) = -rate(i) * y(i));

}  // namespace group_decays
