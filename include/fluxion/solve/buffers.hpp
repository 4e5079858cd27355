#pragma once
// Outputs of an ensemble integration in buffers the caller owns, the same
// for the host (fluxion::host::integrate) and the GPU (fluxion::cuda::
// integrate; there device memory): saved states [save][state][trajectory],
// final states [state][trajectory], one status and (optionally: an empty
// span records none) one statistics record per trajectory. Each is checked
// for its size and apart from the inputs and the other outputs before any
// work (fluxion::layout_error).
//
//   fx::ensemble_buffers<double> out{saved, final_state, status, stats};
#include <span>

#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct ensemble_buffers {
  std::span<T> saved;                       // save_times.size() * n_states * count values
  std::span<T> final_state;                 // n_states * count values
  std::span<solve_status> status;           // count values
  std::span<solve_statistics> stats = {};   // count values, or empty
};

}  // namespace fluxion
