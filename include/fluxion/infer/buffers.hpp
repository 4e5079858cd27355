#pragma once
// Outputs of a log-density in buffers the caller owns, the same for the host
// (fluxion::host::log_density) and the GPU (fluxion::cuda::log_density;
// there device memory): value[b]; gradients [column][trajectory] (the
// parameters, then the initial states; an empty span asks for the value
// alone); status[b]; optionally (an empty span records none) statistics.
// Each is checked for its size and apart from the inputs and the other
// outputs before any work (fluxion::layout_error).
//
//   fx::log_density_buffers<double> out{value, gradients, status};
#include <span>

#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct log_density_buffers {
  std::span<T> value;                      // count values
  std::span<T> gradients;                  // (n_params + n_states) * count values, or empty: value only
  std::span<solve_status> status;          // count values
  std::span<solve_statistics> stats = {};  // count values, or empty
};

}  // namespace fluxion
