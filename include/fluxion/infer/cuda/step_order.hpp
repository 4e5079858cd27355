#pragma once
// The discrete adjoint's backward pass in the order of its trajectories'
// accepted steps (discrete_adjoint::backward_by_steps): a counting sort on
// the device, three small kernels, and the live lanes of a warp in a
// grid-stride loop. CUDA translation units only.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include <fluxion/exec/cuda/launch.hpp>

namespace fluxion::cuda::detail {

// The backward pass's order (discrete_adjoint::backward_by_steps): the
// chunk's trajectories by their accepted steps, most first, by a counting
// sort, so that the lanes of a warp run as many steps each and the longest
// warps start first. Within one step count the order is the atomics'; it
// moves no result, since each trajectory's backward pass is the same
// whichever thread runs it. A warp's lanes with the same count take their
// places with one atomic (warp-aggregated). On the SEIR example (23 to 61
// steps) it costs 3.5% (H100, double): sorted warps share no sectors of the
// interleaved tape (docs/guide/fitting.md). The kernels are
// templates (over the index type, std::uint32_t) so that every translation
// unit may define them.
__device__ inline unsigned step_bin(std::int32_t steps, std::int32_t recorded_steps) {
  return unsigned(recorded_steps - steps);
}

// The lanes of thread i's warp in this iteration of a grid-stride loop over
// `count` items: those with i < count (blocks of whole warps, consecutive i).
__device__ inline unsigned live_lanes(std::size_t i, std::size_t count) {
  const std::size_t warp_first = i - threadIdx.x % 32u;
  return count - warp_first >= 32 ? 0xffffffffu : (1u << unsigned(count - warp_first)) - 1u;
}

template <class Index>
__global__ void step_count_kernel(const std::int32_t* __restrict__ steps, std::size_t count,
                                  std::int32_t recorded_steps, Index* __restrict__ bins) {
  const unsigned lane = threadIdx.x % 32u;
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned key = step_bin(steps[b], recorded_steps);
    const unsigned peers = __match_any_sync(live_lanes(b, count), key);
    if (lane == unsigned(__ffs(int(peers)) - 1)) atomicAdd(&bins[key], Index(__popc(peers)));
  }
}

// Counts to exclusive offsets, in place: one block of step_scan_threads.
inline constexpr unsigned step_scan_threads = 1024;
template <class Index>
__global__ void __launch_bounds__(step_scan_threads) step_offsets_kernel(Index* __restrict__ bins, std::size_t n_bins) {
  __shared__ Index partial[step_scan_threads];
  const std::size_t per = (n_bins + step_scan_threads - 1) / step_scan_threads;
  const std::size_t first = threadIdx.x * per, end = first + per < n_bins ? first + per : n_bins;
  Index sum = 0;
  for (std::size_t k = first; k < end; ++k) sum += bins[k];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned d = 1; d < step_scan_threads; d *= 2) {  // inclusive (Hillis and Steele)
    const Index v = threadIdx.x >= d ? partial[threadIdx.x - d] : Index(0);
    __syncthreads();
    partial[threadIdx.x] += v;
    __syncthreads();
  }
  Index at = threadIdx.x > 0 ? partial[threadIdx.x - 1] : Index(0);
  for (std::size_t k = first; k < end; ++k) {
    const Index c = bins[k];
    bins[k] = at;
    at += c;
  }
}

template <class Index>
__global__ void step_order_kernel(const std::int32_t* __restrict__ steps, std::size_t count,
                                  std::int32_t recorded_steps, Index* __restrict__ offsets, Index* __restrict__ order) {
  const unsigned lane = threadIdx.x % 32u;
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned key = step_bin(steps[b], recorded_steps);
    const unsigned peers = __match_any_sync(live_lanes(b, count), key);
    const int leader = __ffs(int(peers)) - 1;
    Index at = 0;
    if (lane == unsigned(leader)) at = atomicAdd(&offsets[key], Index(__popc(peers)));
    at = __shfl_sync(peers, at, leader) + Index(__popc(peers & ((1u << lane) - 1u)));
    order[at] = Index(b);
  }
}

// Writes order (count indices): 0 .. count - 1 by steps[b] (each in 0 ..
// recorded_steps), most first; bins: recorded_steps + 1 values of scratch.
inline cudaError_t order_by_steps(const std::int32_t* steps, std::size_t count, std::int32_t recorded_steps,
                                  std::uint32_t* bins, std::uint32_t* order, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const std::size_t n_bins = std::size_t(recorded_steps) + 1;
  const cudaError_t cleared = cudaMemsetAsync(bins, 0, n_bins * sizeof(std::uint32_t), stream);
  if (cleared != cudaSuccess) return cleared;
  const unsigned blocks = unsigned((count + block_threads - 1) / block_threads);
  step_count_kernel<<<blocks, block_threads, 0, stream>>>(steps, count, recorded_steps, bins);
  step_offsets_kernel<<<1, step_scan_threads, 0, stream>>>(bins, n_bins);
  step_order_kernel<<<blocks, block_threads, 0, stream>>>(steps, count, recorded_steps, bins, order);
  return cudaGetLastError();
}

}  // namespace fluxion::cuda::detail
