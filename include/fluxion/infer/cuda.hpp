#pragma once
// Log-densities and their gradients on the GPU: one thread a trajectory,
// each with its own steps. At the save times a thread records only the
// observables (and their derivatives) in its slot of a scratch buffer, and
// evaluates the densities after its integration, when the warp's threads
// run together (no trajectory is written to memory). CUDA translation units
// only.
//
//   fx::log_density_buffers<double> out{value_dev, gradients_dev, status_dev};
//   fx::cuda::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, fx::soa(x0_dev), fx::soa(p_dev), out, stream);
//
// The likelihood, priors, problem and data are host objects, checked on the
// host before anything is launched (as fx::host::log_density checks them);
// the data, save times and tolerances travel to the device in one
// stream-ordered allocation with the scratch (for every resident thread:
// save times x observables values, x (1 + columns) with the gradient), freed
// after the kernel into fluxion's pool, which keeps it for the next call
// (exec/cuda/scratch.hpp; fx::cuda::release_scratch() returns it). The
// scratch takes at most half the free device memory: fewer threads are
// launched beyond, and cuda_error is raised before any work when not even
// one block's scratch fits. x0, p and the outputs
// are device memory the caller owns: value[b]; gradients [column][trajectory]
// (the parameters, then the initial states; an empty span asks for the
// value alone, which integrates the model without sensitivities); status[b];
// optionally statistics.
//
// With the gradient, fx::cuda::lane_per_column{} (before the stream) spreads
// each trajectory over 1 + n_params + n_states lanes of a warp, one a
// sensitivity column (infer/log_density_columns.hpp), for models of up to 31
// columns: a lane integrates n_states values instead of a thread's
// n_states (1 + columns), and the densities' terms are shared among the
// lanes by save time. Its scratch is a lane's records and terms:
// save times x (observables + the series' partials) values a lane.
//
// With the gradient, fx::discrete_adjoint{} (before the stream) computes it
// backward through each trajectory's recorded steps
// (infer/log_density_adjoint.hpp), in three kernels: the integrations of
// the model alone onto tapes, the densities' terms of every trajectory and
// save time in parallel, the backward passes. Every trajectory has a tape of
// save times x n_states + recorded_steps x (n_states + 2) values (and its
// terms' sums, a value and n_params derivatives for every 8 save times); when
// those of all trajectories exceed half the free device memory, the kernels
// take them in chunks that fit. A trajectory taking more accepted steps than
// recorded_steps ends with status max_steps.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/exec/cuda/scratch.hpp>
#include <fluxion/infer/buffers.hpp>  // log_density_buffers
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/infer/log_density_columns.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/cuda.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

namespace cuda {

namespace detail {

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
                       solve_status* __restrict__ status, solve_statistics* __restrict__ stats, T* __restrict__ scratch) {
  const std::size_t slot = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t slots = std::size_t(gridDim.x) * blockDim.x;
  const fluxion::detail::deferred_terms<T> deferred{scratch + slot, std::ptrdiff_t(slots)};
  for (std::size_t b = slot; b < count; b += slots) {
    const auto i = std::ptrdiff_t(b);
    solve_statistics st{};
    status[b] = fluxion::detail::trajectory_log_density<Method, Gradient, true>(
        m, o, lik, data, pri, x0 + i * xs.instance, xs.element, p + i * ps.instance, ps.element, value + i,
        Gradient ? gradients + i : nullptr, std::ptrdiff_t(count), st, deferred);
    if (stats) stats[b] = st;
  }
}

// Trajectory b's tape among the `count` in `tapes` (adjoint_tape::values
// each): by default every value interleaved by trajectory (value k of the
// saved states at tapes[k count + b], the records after all of them). A
// warp's lanes write step r at nearly the same iteration of the forward
// pass (a lane falls behind only by its rejected steps), so those stores
// coalesce. Tuning knobs: FLUXION_ADJOINT_RECORDS_CONTIGUOUS keeps each
// trajectory's step records together, FLUXION_ADJOINT_SAVES_CONTIGUOUS its
// saved states too. Both were slower on the SEIR example (H100, double:
// 4.4 and 4.7 ms against 3.8; bench/ab_seir.sh compares such builds).
template <class M, class T>
__device__ fluxion::detail::adjoint_tape<T> trajectory_tape(T* tapes, std::size_t b, std::size_t count,
                                                            std::size_t n_save, std::int32_t steps) {
  using tape = fluxion::detail::adjoint_tape<T>;
  const std::size_t saved = tape::template saved_values<M>(n_save), recorded = tape::template recorded_values<M>(steps);
#if defined(FLUXION_ADJOINT_SAVES_CONTIGUOUS)
  T* const saves = tapes + b * saved;
  const std::ptrdiff_t save_stride = 1;
#else
  T* const saves = tapes + b;
  const std::ptrdiff_t save_stride = std::ptrdiff_t(count);
#endif
#if defined(FLUXION_ADJOINT_RECORDS_CONTIGUOUS)
  return {saves, save_stride, tapes + count * saved + b * recorded, 1, steps};
#else
  return {saves, save_stride, tapes + count * saved + b, std::ptrdiff_t(count), steps};
#endif
}

// The discrete adjoint (infer/log_density_adjoint.hpp) in three kernels over
// a chunk of `count` trajectories, each with a tape in `tapes` (trajectory_tape):
//  1. a thread a trajectory integrates it onto its tape;
//  2. a thread a (group of adjoint_save_group save times, trajectory)
//     evaluates the densities' terms there, a warp's lanes at the same save
//     times (the same data: their branches agree), with every resident
//     thread busy, instead of each integrating thread evaluating its own
//     one after another; it leaves the seeds on the tape and the group's
//     value and parameter derivatives in `partials`;
//  3. a thread a trajectory sums those in group order, runs the backward
//     pass and adds the priors.
// Each kernel holds only its part's code and registers. Blocks per SM that
// each kernel's register allocation must allow (tuning knobs, measured by
// bench/seir_log_density.cu; 1: the compiler chooses). The terms kernel's 6
// (at most 85 registers a thread): its time is the latency of the censored
// terms' continued fractions, which more resident warps hide (the SEIR
// example's gradient, H100, f64: 4.55 ms with 150 registers, 4.28 with 80,
// 4.26 with 7 blocks).
// (FLUXION_ADJOINT_FORWARD_MIN_BLOCKS, _TERMS_ and _BACKWARD_: config/tuning.hpp.)
template <class Method, class M, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_ADJOINT_FORWARD_MIN_BLOCKS) adjoint_forward_kernel(
    M m, ode_options<T> o, std::size_t count, const T* __restrict__ x0, strides xs, const T* __restrict__ p,
    strides ps, solve_status* __restrict__ status, solve_statistics* __restrict__ stats, T* __restrict__ tapes,
    std::int32_t recorded_steps, std::int32_t* __restrict__ steps) {
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const auto i = std::ptrdiff_t(b);
    fluxion::detail::adjoint_recorder<M> rec{trajectory_tape<M>(tapes, b, count, o.n_save, recorded_steps), o.n_save};
    solve_statistics st{};
    status[b] = fluxion::detail::adjoint_forward<Method>(m, o, x0 + i * xs.instance, xs.element, p + i * ps.instance,
                                                         ps.element, rec, st);
    steps[b] = rec.steps;
    if (stats) stats[b] = st;
  }
}

template <class M, class Lik, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_ADJOINT_TERMS_MIN_BLOCKS) adjoint_terms_kernel(
    M m, ode_options<T> o, Lik lik, const fluxion::detail::series_view<T>* __restrict__ data, std::size_t count,
    const T* __restrict__ p, strides ps, const solve_status* __restrict__ status, T* __restrict__ tapes,
    std::int32_t recorded_steps, T* __restrict__ partials) {
  constexpr int np = int(M::n_params);
  constexpr std::size_t group = fluxion::detail::adjoint_save_group;
  const std::size_t groups = fluxion::detail::adjoint_save_groups(o.n_save);
  for (std::size_t w = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; w < groups * count;
       w += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t g = w / count, b = w % count;
    if (status[b] != solve_status::success) continue;
    const auto i = std::ptrdiff_t(b);
    T pc[np > 0 ? np : 1], value, pbar[np > 0 ? np : 1];
    for (int j = 0; j < np; ++j) pc[j] = p[i * ps.instance + std::ptrdiff_t(j) * ps.element];
    const std::size_t first = g * group, end = first + group < o.n_save ? first + group : o.n_save;
    fluxion::detail::adjoint_save_terms(m, o, lik, data, pc, first, end,
                                        trajectory_tape<M>(tapes, b, count, o.n_save, recorded_steps), &value, pbar);
    T* out = partials + g * std::size_t(1 + np) * count + b;
    out[0] = value;
    for (int j = 0; j < np; ++j) out[std::size_t(1 + j) * count] = pbar[j];
  }
}

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

template <class Method, class M, class Pri, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_ADJOINT_BACKWARD_MIN_BLOCKS) adjoint_backward_kernel(
    M m, ode_options<T> o, Pri pri, std::size_t count, const T* __restrict__ p, strides ps,
    const solve_status* __restrict__ status, T* __restrict__ tapes, std::int32_t recorded_steps,
    const std::int32_t* __restrict__ steps, const std::uint32_t* __restrict__ order, const T* __restrict__ partials,
    T* __restrict__ value, T* __restrict__ gradients, std::size_t grad_stride, solve_statistics* __restrict__ stats,
    bool aligned) {
  constexpr int n = int(M::n_states), np = int(M::n_params);
  const std::size_t groups = fluxion::detail::adjoint_save_groups(o.n_save);
  for (std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < count;
       t += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t b = order ? std::size_t(order[t]) : t;  // order: null, or backward_by_steps'
    const auto i = std::ptrdiff_t(b);
    const bool ok = status[b] == solve_status::success;
    const std::int32_t own_steps = ok ? steps[b] : 0;
    // aligned: every lane starts from its warp's longest lane's last record
    // (adjoint_backward's aligned_to), so that the lanes load the same
    // record together, which coalesces on the interleaved tape; each lane
    // starting from its own last record loads each sector alone.
    std::int32_t aligned_to = own_steps;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (aligned) aligned_to = __reduce_max_sync(live_lanes(t, count), own_steps);
#endif
    T v = T(0), pbar[np > 0 ? np : 1], ybar[n];
    for (int j = 0; j < np; ++j) pbar[j] = T(0);
    for (int k = 0; k < n; ++k) ybar[k] = T(0);
    if (ok) {
      T pc[np > 0 ? np : 1];
      for (int j = 0; j < np; ++j) pc[j] = p[i * ps.instance + std::ptrdiff_t(j) * ps.element];
      for (std::size_t g = 0; g < groups; ++g) {
        const T* in = partials + g * std::size_t(1 + np) * count + b;
        v += in[0];
        for (int j = 0; j < np; ++j) pbar[j] += in[std::size_t(1 + j) * count];
      }
      solve_statistics st = stats ? stats[b] : solve_statistics{};
      fluxion::detail::adjoint_recorder<M> rec{
          trajectory_tape<M>(tapes, b, count, o.n_save, recorded_steps), o.n_save, own_steps};
      fluxion::detail::adjoint_finish<Method>(m, o, pri, pc, rec, &v, pbar, ybar, st, aligned_to);
      if (stats) stats[b] = st;
    }
    fluxion::detail::write_adjoint_result<M>(ok, v, pbar, ybar, value + i, gradients + i, std::ptrdiff_t(grad_stride));
  }
}

// The lanes of a warp that integrate one trajectory together, a lane a
// sensitivity column (infer/log_density_columns.hpp): lanes base .. base +
// G - 1. Sums add the lanes' values in lane order on every lane (the same
// value bit for bit).
template <int G>
struct lane_group {
  unsigned base, r, mask;
  __device__ unsigned rank() const { return r; }
  __device__ unsigned size() const { return unsigned(G); }
  __device__ void sync() const { __syncwarp(mask); }
  template <class T>
  __device__ T sum(T v) const {
    T s = __shfl_sync(mask, v, int(base));
    for (int j = 1; j < G; ++j) s += __shfl_sync(mask, v, int(base) + j);
    return s;
  }
  template <class T>
  __device__ T broadcast(T v, int from) const {
    return __shfl_sync(mask, v, int(base) + from);
  }
};

// A lane a sensitivity column: 32 / G trajectories a warp, G = 1 + columns
// lanes each (the warp's last 32 mod G lanes idle); every lane keeps its
// records in its own scratch slot. Blocks of 4 warps: a lane of the SEIR
// example takes 168 registers in double (ptxas, sm_90), so a block of 8 such
// warps fits an SM once, one of 4 three times.
// FLUXION_COLUMNS_MIN_BLOCKS_PER_SM caps the registers for that many blocks
// an SM (config/tuning.hpp; 1: no cap).
inline constexpr unsigned columns_block_threads = 128;
template <class Method, class M, class Lik, class Pri, class T>
__global__ void __launch_bounds__(columns_block_threads, FLUXION_COLUMNS_MIN_BLOCKS_PER_SM)
    log_density_columns_kernel(M m, ode_options<T> o, Lik lik, const fluxion::detail::series_view<T>* __restrict__ data,
                               Pri pri, std::size_t count, const T* __restrict__ x0, strides xs,
                               const T* __restrict__ p, strides ps, T* __restrict__ value, T* __restrict__ gradients,
                               solve_status* __restrict__ status, solve_statistics* __restrict__ stats,
                               T* __restrict__ scratch) {
  constexpr int G = int(1 + M::n_params + M::n_states);
  constexpr unsigned per_warp = 32u / unsigned(G);
  const unsigned lane = threadIdx.x % 32u, group = lane / unsigned(G);
  if (group >= per_warp) return;
  const unsigned base = group * unsigned(G);
  constexpr unsigned lanes = G == 32 ? 0xffffffffu : (1u << unsigned(G % 32)) - 1u;  // G lanes from lane 0
  const unsigned mask = lanes << base;
  const lane_group<G> g{base, lane - base, mask};
  const std::size_t slot = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t slots = std::size_t(gridDim.x) * blockDim.x;
  const fluxion::detail::deferred_terms<T> deferred{scratch + slot, std::ptrdiff_t(slots)};
  for (std::size_t b = slot / 32u * per_warp + group; b < count; b += slots / 32u * per_warp) {
    const auto i = std::ptrdiff_t(b);
    solve_statistics st{};
    const solve_status s = fluxion::detail::trajectory_log_density_members<Method>(
        m, g, o, lik, data, pri, x0 + i * xs.instance, xs.element, p + i * ps.instance, ps.element, value + i,
        gradients + i, std::ptrdiff_t(count), st, deferred);
    if (g.rank() == 0) {
      status[b] = s;
      if (stats) stats[b] = st;
    }
  }
}

// The blocks of `threads` of a kernel that the device keeps resident.
template <class Kernel>
std::size_t resident_capacity(Kernel* kernel, unsigned threads) {
  using fluxion::detail::check_cuda;
  constexpr const char* what = "the log-density kernels' occupancy";
  int device = 0, sms = 0, per_sm = 0;
  check_cuda(cudaGetDevice(&device), what);
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), what);
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), 0), what);
  return std::size_t(sms > 0 ? sms : 1) * std::size_t(per_sm > 0 ? per_sm : 1);
}

// The grid of a kernel that loops over `work` items (blocks of `threads`):
// enough blocks for all of them, at most `capacity` (resident_capacity).
inline unsigned grid_for(std::size_t capacity, unsigned threads, std::size_t work) {
  const std::size_t needed = (work + threads - 1) / threads;
  return unsigned(needed < capacity ? needed : capacity);
}

template <class Kernel>
unsigned resident_blocks(Kernel* kernel, unsigned threads, std::size_t work) {
  return grid_for(resident_capacity(kernel, threads), threads, work);
}

// The grid of the log-density kernel (blocks of `threads`): at most the
// threads the device keeps resident (each with a scratch slot of
// slot_bytes), and fewer when their scratch would exceed half the free
// device memory (the scratch pool's unused memory counted free); cuda_error
// when not even one block's does.
template <class Kernel>
unsigned log_density_blocks(Kernel* kernel, unsigned threads, std::size_t count, std::size_t slot_bytes) {
  const std::size_t free_bytes = scratch_available_bytes("the log-density's scratch");
  const std::size_t blocks = resident_blocks(kernel, threads, count);
  const std::size_t affordable = free_bytes / 2 / (slot_bytes * threads);
  if (affordable == 0)
    throw fluxion::cuda_error("the log-density's scratch (" + std::to_string(slot_bytes * threads) +
                                  " bytes for a block of " + std::to_string(threads) +
                                  " threads: every thread's records of its save times) exceeds "
                                  "half the free device memory",
                              cudaErrorMemoryAllocation);
  return unsigned(affordable < blocks ? affordable : blocks);
}

// How many trajectories the discrete adjoint's kernels take at once: all of
// them when their tapes, terms and step counts (bytes_each a trajectory) fit
// in half the free device memory (the scratch pool's unused memory counted
// free), otherwise as many as do, and at most max_chunk
// (discrete_adjoint::max_chunk, 0: no bound); cuda_error when not even one
// fits.
inline std::size_t adjoint_chunk(std::size_t count, std::size_t bytes_each, std::size_t max_chunk) {
  const std::size_t free_bytes = scratch_available_bytes("the discrete adjoint's tapes");
  std::size_t affordable = free_bytes / 2 / bytes_each;
  if (affordable == 0)
    throw fluxion::cuda_error("the discrete adjoint's tape (" + std::to_string(bytes_each) +
                                  " bytes a trajectory: its save times and recorded_steps steps) exceeds "
                                  "half the free device memory",
                              cudaErrorMemoryAllocation);
  if (max_chunk > 0 && max_chunk < affordable) affordable = max_chunk;
  return affordable < count ? affordable : count;
}

// Bytes of host data laid out for one copy to the device, each piece aligned.
struct staging {
  std::vector<unsigned char> bytes;
  template <class V>
  std::size_t add(const V* v, std::size_t n) {
    std::size_t at = (bytes.size() + 15) / 16 * 16;
    bytes.resize(at + n * sizeof(V));
    if (n) std::memcpy(bytes.data() + at, v, n * sizeof(V));
    return at;
  }
};

}  // namespace detail

// How the GPU computes a gradient: a thread a trajectory (the default, which
// holds y and all of S), or a lane a sensitivity column (lane_per_column:
// 1 + n_params + n_states lanes a trajectory, each integrating n_states
// values; infer/log_density_columns.hpp). A model with more than 31 columns,
// or a call without the gradient, runs a thread a trajectory either way.
struct lane_per_column {};

template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
void log_density(const M& m, Method method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr) {
  log_density(m, method, pr, lik, data, pri, count, x0, p, out, thread_per_trajectory{}, stream);
}

template <class M, class Method, class Lik, class Pri, class Policy>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri> &&
           (std::is_same_v<Policy, thread_per_trajectory> || std::is_same_v<Policy, lane_per_column> ||
            std::is_same_v<Policy, discrete_adjoint>)
void log_density(const M& m, Method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, Policy policy, cudaStream_t stream = nullptr) {
  using T = typename M::scalar;
  constexpr std::size_t columns = M::n_params + M::n_states;
  const bool gradient = !out.gradients.empty();
  constexpr bool by_adjoint = std::is_same_v<Policy, discrete_adjoint>;
  std::int32_t recorded_steps = 0;
  std::size_t max_chunk = 0;
  bool sorted_backward = false, aligned_backward = false;
  if constexpr (by_adjoint) {
    fluxion::detail::check_adjoint_settings(policy);
    recorded_steps = policy.recorded_steps;
    max_chunk = policy.max_chunk;
    sorted_backward = policy.backward_by_steps;
    aligned_backward = policy.aligned_backward;
  }
  const bool adjoint_kernel = by_adjoint && gradient;
  // Forward sensitivities integrate the augmented system (its tolerances);
  // the adjoint and the value alone, the model.
  const bool sensitivities = gradient && !adjoint_kernel;
  std::vector<T> atol;
  const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, sensitivities, atol);
  const std::size_t n_system = sensitivities ? sensitivity_system<M>::n_states : M::n_states;
  ode_options<T> o = check_problem(aug, n_system);
  const auto c = fluxion::detail::check_log_density_buffers<T>(M::n_states, M::n_params, count, x0, p, out);
  const auto& [cx, cp, cv, cg, cst, cstat, with_gradient, with_stats] = c;
  detail::check_device_memory(c);
  if (count == 0) return;
  // Each resident thread's deferred terms: every observable (and its
  // derivatives) at every save time.
  using sink_t = fluxion::detail::log_density_sink<M, Lik, true, true>;
  using value_sink_t = fluxion::detail::log_density_sink<M, Lik, false, true>;
  constexpr bool by_column = std::is_same_v<Policy, lane_per_column> && 1 + columns <= 32;
  const bool columns_kernel = by_column && gradient;
  const std::size_t n_slot_saves = o.n_save > 0 ? o.n_save : 1;
  std::size_t slot_bytes = std::size_t(gradient ? sink_t::record : value_sink_t::record) * n_slot_saves * sizeof(T);
  if constexpr (by_column) {
    using member_sink_t = fluxion::detail::member_log_density_sink<M, Lik, detail::lane_group<int(1 + columns)>>;
    if (gradient) slot_bytes = member_sink_t::slot_values(n_slot_saves) * sizeof(T);
  }
  // The discrete adjoint: a tape, the terms' groups and a step count for
  // every trajectory of a chunk (all of them when they fit).
  const std::size_t tape_values = fluxion::detail::adjoint_tape<T>::template values<M>(n_slot_saves, recorded_steps);
  const std::size_t save_groups = fluxion::detail::adjoint_save_groups(o.n_save);
  const std::size_t partial_values = save_groups * (1 + M::n_params);
  std::size_t chunk = 0;
  // The sort's bins: a step count each (0 .. recorded_steps).
  const std::size_t step_bins = adjoint_kernel && sorted_backward ? std::size_t(recorded_steps) + 1 : 0;
  if (adjoint_kernel) {
    slot_bytes = (tape_values + partial_values) * sizeof(T) + sizeof(std::int32_t);
    if (sorted_backward) slot_bytes += sizeof(std::uint32_t);
    chunk = detail::adjoint_chunk(count, slot_bytes, max_chunk);
    if (sorted_backward && chunk > std::size_t(UINT32_MAX)) chunk = std::size_t(UINT32_MAX);  // the order's indices
  }
  // The adjoint's kernels' resident blocks, asked before the scratch is
  // taken (a failed query then leaks nothing).
  std::size_t forward_capacity = 0, terms_capacity = 0, backward_capacity = 0;
  if constexpr (by_adjoint)
    if (adjoint_kernel) {
      forward_capacity = detail::resident_capacity(detail::adjoint_forward_kernel<Method, M, T>, detail::block_threads);
      terms_capacity = detail::resident_capacity(detail::adjoint_terms_kernel<M, Lik, T>, detail::block_threads);
      backward_capacity =
          detail::resident_capacity(detail::adjoint_backward_kernel<Method, M, Pri, T>, detail::block_threads);
    }
  // A lane a column: a trajectory's lanes in one warp, so 32 / G trajectories a warp.
  const std::size_t lanes_needed =
      columns_kernel ? (count + 32 / (1 + columns) - 1) / (32 / (1 + columns)) * 32 : count;
  const unsigned threads = columns_kernel ? detail::columns_block_threads : detail::block_threads;
  unsigned blocks = 0;
  if constexpr (by_column)
    if (gradient)
      blocks = detail::log_density_blocks(detail::log_density_columns_kernel<Method, M, Lik, Pri, T>, threads,
                                          lanes_needed, slot_bytes);
  if (!columns_kernel && !adjoint_kernel)
    blocks = gradient ? detail::log_density_blocks(detail::log_density_kernel<Method, true, M, Lik, Pri, T>, threads,
                                                   count, slot_bytes)
                      : detail::log_density_blocks(detail::log_density_kernel<Method, false, M, Lik, Pri, T>, threads,
                                                   count, slot_bytes);
  const std::size_t slots = adjoint_kernel ? chunk : std::size_t(blocks) * threads;

  // Save times, tolerances, the series' data and their views: one copy.
  detail::staging host;
  const std::size_t at_save = host.add(o.save_times, o.n_save);
  const std::size_t at_atol = host.add(o.atol_per_state, o.atol_per_state ? n_system : 0);
  struct series_offsets {
    std::size_t values, mask, trials;
  };
  std::vector<series_offsets> offsets;
  for (const auto& d : data)
    offsets.push_back({host.add(d.values.data(), d.values.size()), host.add(d.mask.data(), d.mask.size()),
                       host.add(d.trials.data(), d.trials.size())});
  const std::size_t views_bytes = (data.size() > 0 ? data.size() : 1) * sizeof(fluxion::detail::series_view<T>);
  const std::size_t at_views = (host.bytes.size() + 15) / 16 * 16;
  host.bytes.resize(at_views + views_bytes);
  // The scratch follows the data in the same allocation (not copied).
  const std::size_t at_scratch = (host.bytes.size() + 255) / 256 * 256;
  auto* const device = static_cast<unsigned char*>(detail::scratch_alloc(
      at_scratch + slots * slot_bytes + step_bins * sizeof(std::uint32_t), stream,
      "cudaMallocFromPoolAsync of the log-density's data and scratch"));
  for (std::size_t k = 0; k < data.size(); ++k) {
    const fluxion::detail::series_view<T> v{
        reinterpret_cast<const observation<T>*>(device + offsets[k].values),
        data[k].mask.empty() ? nullptr : device + offsets[k].mask,
        data[k].trials.empty() ? nullptr : reinterpret_cast<const T*>(device + offsets[k].trials)};
    std::memcpy(host.bytes.data() + at_views + k * sizeof(v), &v, sizeof(v));
  }
  const cudaError_t copied =
      cudaMemcpyAsync(device, host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice, stream);
  if (copied != cudaSuccess) cudaFreeAsync(device, stream);
  fluxion::detail::check_cuda(copied, "cudaMemcpyAsync of the log-density's data");
  o.save_times = o.n_save ? reinterpret_cast<const T*>(device + at_save) : nullptr;
  o.atol_per_state = o.atol_per_state ? reinterpret_cast<const T*>(device + at_atol) : nullptr;
  const auto* views = reinterpret_cast<const fluxion::detail::series_view<T>*>(device + at_views);
  T* scratch = reinterpret_cast<T*>(device + at_scratch);

  const detail::strides xs{cx.element_stride, cx.instance_stride}, ps{cp.element_stride, cp.instance_stride};
  solve_statistics* const stats = with_stats ? cstat.data : nullptr;
  cudaError_t launched = cudaSuccess;
  if (adjoint_kernel) {
    if constexpr (by_adjoint) {
      T* const tapes = scratch;
      T* const partials = tapes + chunk * tape_values;
      auto* const steps = reinterpret_cast<std::int32_t*>(partials + chunk * partial_values);
      std::uint32_t* const order = sorted_backward ? reinterpret_cast<std::uint32_t*>(steps + chunk) : nullptr;
      std::uint32_t* const bins = sorted_backward ? order + chunk : nullptr;
      const auto forward = detail::adjoint_forward_kernel<Method, M, T>;
      const auto terms = detail::adjoint_terms_kernel<M, Lik, T>;
      const auto backward = detail::adjoint_backward_kernel<Method, M, Pri, T>;
      for (std::size_t c0 = 0; c0 < count && launched == cudaSuccess; c0 += chunk) {
        const std::size_t c = count - c0 < chunk ? count - c0 : chunk;
        const auto i = std::ptrdiff_t(c0);
        const T* const x0c = cx.data + i * cx.instance_stride;
        const T* const pc = cp.data + i * cp.instance_stride;
        solve_statistics* const statsc = stats ? stats + c0 : nullptr;
        forward<<<detail::grid_for(forward_capacity, threads, c), threads, 0, stream>>>(
            m, o, c, x0c, xs, pc, ps, cst.data + c0, statsc, tapes, recorded_steps, steps);
        if (save_groups > 0)  // no save times: no terms, and a grid of no blocks is a launch error
          terms<<<detail::grid_for(terms_capacity, threads, save_groups * c), threads, 0, stream>>>(
              m, o, lik, views, c, pc, ps, cst.data + c0, tapes, recorded_steps, partials);
        if (sorted_backward) {
          launched = detail::order_by_steps(steps, c, recorded_steps, bins, order, stream);
          if (launched != cudaSuccess) break;  // no backward pass with an order not written
        }
        backward<<<detail::grid_for(backward_capacity, threads, c), threads, 0, stream>>>(
            m, o, pri, c, pc, ps, cst.data + c0, tapes, recorded_steps, steps, order, partials, cv.data + c0,
            cg.data + c0, count, statsc, aligned_backward);
        if (launched == cudaSuccess) launched = cudaGetLastError();
      }
    }
  } else if (columns_kernel) {
    if constexpr (by_column)
      detail::log_density_columns_kernel<Method><<<blocks, threads, 0, stream>>>(
          m, o, lik, views, pri, count, cx.data, xs, cp.data, ps, cv.data, cg.data, cst.data, stats, scratch);
  } else if (gradient) {
    detail::log_density_kernel<Method, true><<<blocks, threads, 0, stream>>>(
        m, o, lik, views, pri, count, cx.data, xs, cp.data, ps, cv.data, cg.data, cst.data, stats, scratch);
  } else {
    detail::log_density_kernel<Method, false><<<blocks, threads, 0, stream>>>(
        m, o, lik, views, pri, count, cx.data, xs, cp.data, ps, cv.data, static_cast<T*>(nullptr), cst.data, stats,
        scratch);
  }
  if (launched == cudaSuccess) launched = cudaGetLastError();
  cudaFreeAsync(device, stream);
  fluxion::detail::check_cuda(launched, "launch of the fluxion log-density kernel");
}

// A model, method, likelihood or priors that are not ones: one sentence
// naming the concept (infer/concepts.hpp) instead of errors from inside.
template <class M, class Method, class Problem, class Lik, class Data, class Pri, class... Rest>
  requires(!fluxion::detail::log_density_parts<M, Method, Lik, Pri>)
auto log_density(const M&, Method, const Problem&, const Lik&, const Data&, const Pri&, Rest&&...) {
  return fluxion::detail::require_log_density<M, Method, Lik, Pri>();
}

}  // namespace cuda

}  // namespace fluxion
