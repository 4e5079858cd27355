#pragma once
// A value with its partial derivatives: what the densities, censoring,
// priors and transforms of the infer layer return when asked for
// derivatives, to be chained into the gradient of a log-density through
// forward sensitivities.
//
//   auto r = fx::normal::log_density_partials(y, mean, sd);
//   r.value                      // log p(y | mean, sd)
//   r.grad[fx::normal::mean]     // d/d mean
//   r.grad[fx::normal::sd]       // d/d sd
//
// The order of grad is the order of the differentiable parameters in the
// call; each family names them (fx::normal::mean, fx::normal::sd, ...).
// Trivially copyable; host and device.
#include <fluxion/config/macros.hpp>

namespace fluxion {

template <class T, int N>
struct partials {
  static_assert(N >= 1, "fluxion::partials holds at least one derivative.");
  static constexpr int size = N;

  T value;
  T grad[N];
};

}  // namespace fluxion
