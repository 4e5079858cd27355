#pragma once
// The GPU log-density a thread a trajectory (fx::cuda::thread_per_trajectory,
// the default; and every call without the gradient): each thread integrates
// its trajectory, with the forward sensitivities when the gradient is asked
// for (the model's states and all of S), records its observables (and their
// derivatives) at the save times in its slot of the scratch, and evaluates
// the densities after its integration, when the warp's threads run together
// (infer/log_density.hpp's deferred terms). CUDA translation units only.
#include <cstddef>

#include <cuda_runtime.h>

#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/infer/cuda/launch.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::cuda::detail {

// Blocks per SM the log-density kernel's register allocation must allow,
// when defined (a tuning knob: NVCC_FLAGS=-DFLUXION_LOG_DENSITY_MIN_BLOCKS_PER_SM=3
// bash bench/run_inference.sh OUT measures it; by default the compiler chooses).
#ifdef FLUXION_LOG_DENSITY_MIN_BLOCKS_PER_SM
#  define FLUXION_LOG_DENSITY_LAUNCH_BOUNDS __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_LOG_DENSITY_MIN_BLOCKS_PER_SM)
#else
#  define FLUXION_LOG_DENSITY_LAUNCH_BOUNDS __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS)
#endif

// One thread a trajectory; each resident thread keeps its deferred terms in
// its slot of `scratch` (slots gridDim.x * blockDim.x apart).
template <class Method, bool Gradient, class M, class Lik, class Pri, class T>
__global__ void FLUXION_LOG_DENSITY_LAUNCH_BOUNDS
    log_density_kernel(M m, ode_options<T> o, Lik lik, const fluxion::detail::series_view<T>* __restrict__ data,
                       Pri pri, std::size_t count, const T* __restrict__ x0, strides xs, const T* __restrict__ p,
                       strides ps, T* __restrict__ value, T* __restrict__ gradients,
                       solve_status* __restrict__ status, solve_statistics* __restrict__ stats, T* __restrict__ scratch,
                       fluxion::term_outputs<T> terms) {
  const std::size_t slot = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t slots = std::size_t(gridDim.x) * blockDim.x;
  const fluxion::detail::deferred_terms<T> deferred{scratch + slot, std::ptrdiff_t(slots)};
  for (std::size_t b = slot; b < count; b += slots) {
    const auto i = std::ptrdiff_t(b);
    solve_statistics st{};
    status[b] = fluxion::detail::trajectory_log_density<Method, Gradient, true>(
        m, o, lik, data, pri, x0 + i * xs.instance, xs.element, p + i * ps.instance, ps.element, value + i,
        Gradient ? gradients + i : nullptr, std::ptrdiff_t(count), st, deferred, terms.at(b));
    if (stats) stats[b] = st;
  }
}

// Plans the grid (as many resident threads as the scratch allows, a slot
// each) and launches log_density_kernel; launch_log_density runs it.
template <class Method, bool Gradient, class M, class Lik, class Pri>
class thread_per_trajectory_launcher {
 public:
  using T = typename M::scalar;

  thread_per_trajectory_launcher(const ode_options<T>& o, std::size_t count)
      : slot_bytes_(std::size_t(fluxion::detail::log_density_sink<M, Lik, Gradient, true>::record) * slot_saves(o) *
                    sizeof(T)),
        blocks_(log_density_blocks(log_density_kernel<Method, Gradient, M, Lik, Pri, T>, block_threads, count,
                                   slot_bytes_)) {}

  std::size_t scratch_bytes() const { return std::size_t(blocks_) * block_threads * slot_bytes_; }

  cudaError_t launch(const M& m, const ode_options<T>& o, const Lik& lik,
                     const fluxion::detail::series_view<T>* views, const Pri& pri, std::size_t count,
                     const log_density_io<T>& io, T* scratch, cudaStream_t stream) const {
    log_density_kernel<Method, Gradient><<<blocks_, block_threads, 0, stream>>>(
        m, o, lik, views, pri, count, io.x0, io.xs, io.p, io.ps, io.value,
        Gradient ? io.gradients : static_cast<T*>(nullptr), io.status, io.stats, scratch, io.terms);
    return cudaSuccess;
  }

 private:
  std::size_t slot_bytes_;
  unsigned blocks_;
};

}  // namespace fluxion::cuda::detail
