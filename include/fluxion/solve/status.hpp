#pragma once
// How a trajectory's integration ended, and what it cost.
#include <cstdint>

namespace fluxion {

enum class solve_status : std::int32_t {
  success = 0,         // reached the end of the span; every save time written
  max_steps = 1,       // the step budget (accepted + rejected steps) ran out first
  step_too_small = 2,  // the error control asked for a step of 16 eps |t| or less
  non_finite = 3,      // the state or its error estimate stayed non-finite as the step shrank
};

inline constexpr const char* to_string(solve_status s) {
  switch (s) {
    case solve_status::success: return "success";
    case solve_status::max_steps: return "max_steps";
    case solve_status::step_too_small: return "step_too_small";
    case solve_status::non_finite: return "non_finite";
  }
  return "unknown";
}

// 32-bit counts: a GPU thread keeps them in half the registers, and
// ode_problem::max_steps is at most 1e8 steps, so none can overflow.
struct solve_statistics {
  std::int32_t accepted = 0;
  std::int32_t rejected = 0;
  std::int32_t rhs_evaluations = 0;
  std::int32_t jacobian_evaluations = 0;
  std::int32_t factorizations = 0;
};

}  // namespace fluxion
