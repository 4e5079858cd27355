#pragma once
// Ensembles integrated on the GPU: one thread a trajectory, each with its own
// steps (the stepper of solve/explicit_rk.hpp), asynchronous on a stream.
// CUDA translation units only (#include <fluxion/cuda.hpp>).
//
//   fx::ensemble_buffers<double> out{saved_dev, final_dev, status_dev, stats_dev};
//   fx::cuda::integrate(M{}, fx::tsit5{}, problem, B, fx::soa(x0_dev), fx::soa(p_dev), out, stream);
//
// Outputs are device memory the caller owns, in the host result's layout:
// saved states [save][state][trajectory], final states [state][trajectory],
// one status and (optionally: an empty span records none) one statistics
// record per trajectory. The problem (its save times and per-state
// tolerances are host memory) and every buffer are checked on the host
// before anything is launched; the save times and tolerances travel to the
// device in one small stream-ordered allocation, freed after the kernel.
//
// The trajectory's working arrays (the state, the new state and the stages:
// 9 n_states values for Tsit5) live in registers or thread-local memory, so
// models of a few dozen states run well; larger ones spill to local memory.
// Rosenbrock methods also keep an n x n Jacobian and its factors: up to
// max_states_dense_per_thread states (a model beyond it does not compile,
// with a message naming the limit).
//
// Larger models (explicit methods): a warp per trajectory,
//
//   fx::cuda::integrate(M{}, fx::tsit5{}, problem, B, x0, p, out, fx::cuda::warp_per_trajectory{}, stream);
//
// each lane holding every 32nd state component and the same share of the
// stages in registers, the stage's whole state, its derivative, the aliases
// and the parameters in shared memory (solve/cooperative.hpp); the steps are
// the same as a thread's but for the rounding of the error norm's sum. The
// shared memory of the 4 trajectories of a block must fit the device's per-block
// limit (cuda_error before any work otherwise, naming the bytes needed).
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/buffers.hpp>  // ensemble_buffers
#include <fluxion/solve/concepts.hpp>
#include <fluxion/solve/cooperative.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/host.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

namespace cuda {

// The largest model a Rosenbrock method integrates in one GPU thread: two
// 32 x 32 matrices of doubles are 16 KiB of thread-local memory.
inline constexpr std::size_t max_states_dense_per_thread = 32;

namespace detail {

// Blocks per SM the integration kernel's register allocation must allow:
// FLUXION_SOLVE_MIN_BLOCKS_PER_SM (config/tuning.hpp; 1: no cap, the
// stepper's working set decides).

// Where trajectory b of `count` reads and writes: SoA outputs, saved states
// [save][state][trajectory].
template <class M, class T>
__device__ __forceinline__ trajectory_io<T> trajectory_io_of(std::size_t b, std::size_t count, const T* x0,
                                                             strides xs, const T* p, strides ps, T* saved,
                                                             T* final_state, T* crossing_times = nullptr) {
  const auto i = std::ptrdiff_t(b);
  const auto B = std::ptrdiff_t(count);
  return {x0 + i * xs.instance, xs.element, p + i * ps.instance, ps.element, saved + i, B,
          std::ptrdiff_t(M::n_states) * B, final_state + i, B, crossing_times ? crossing_times + i : nullptr, B};
}

// Saves: whether the problem has save times. Without, the trajectory's
// driver compiles without its save-time code, which on a GPU frees the
// registers that the dense output holds (detail::no_saved_states): one more
// kernel, chosen at launch.
template <class Stepper, class M, class T, bool Saves>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_SOLVE_MIN_BLOCKS_PER_SM)
    integrate_kernel(M m, ode_options<T> o, std::size_t count, const T* __restrict__ x0, strides xs,
                     const T* __restrict__ p, strides ps, T* __restrict__ saved, T* __restrict__ final_state,
                     solve_status* __restrict__ status, solve_statistics* __restrict__ stats,
                     T* __restrict__ crossing_times) {
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const trajectory_io<T> io = trajectory_io_of<M>(b, count, x0, xs, p, ps, saved, final_state, crossing_times);
    solve_statistics st{};
    if constexpr (Saves) {
      status[b] = Stepper::run(m, o, io, st);
    } else {
      fluxion::detail::no_saved_states none;
      status[b] = Stepper::run(m, o, io, st, none);
    }
    if (stats) stats[b] = st;
  }
}

// A warp's lanes as the members of a group integrating one trajectory
// (solve/cooperative.hpp). The sum is a butterfly: at every level lane i
// adds v_i + v_(i^m) and its partner v_(i^m) + v_i, the same value
// (addition commutes), so all lanes end with the same sum bit for bit.
struct warp_members {
  __device__ unsigned rank() const { return threadIdx.x % 32u; }
  __device__ unsigned size() const { return 32u; }
  __device__ void sync() const { __syncwarp(); }
  template <class T>
  __device__ T sum(T v) const {
    for (int m = 16; m >= 1; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
  }
};

// A warp a trajectory: blocks of 4 warps, each trajectory with
// shared_values values of the dynamic shared memory. Small blocks, since a
// lane's share of Model A's stages takes 127-152 registers in double (ptxas,
// sm_90): a block of 8 such warps fits an SM's registers once, one of 4
// three times.
// FLUXION_WARP_MIN_BLOCKS_PER_SM caps the registers for that many blocks an
// SM (config/tuning.hpp; 1: no cap).
inline constexpr unsigned warp_block_threads = 128;
template <class Method, class M, class T, bool Saves>
__global__ void __launch_bounds__(warp_block_threads, FLUXION_WARP_MIN_BLOCKS_PER_SM)
    integrate_warp_kernel(M m, ode_options<T> o, std::size_t count, const T* __restrict__ x0, strides xs,
                          const T* __restrict__ p, strides ps, T* __restrict__ saved, T* __restrict__ final_state,
                          solve_status* __restrict__ status, solve_statistics* __restrict__ stats) {
  using system = shared_state_system<M, 32, warp_members>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* shared = reinterpret_cast<T*>(shared_bytes) + std::size_t(threadIdx.x / 32u) * system::shared_values;
  const warp_members lanes;
  const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32u);
  for (std::size_t b = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32u; b < count; b += warps) {
    const trajectory_io<T> io = trajectory_io_of<M>(b, count, x0, xs, p, ps, saved, final_state);
    solve_statistics st{};
    const solve_status s = integrate_shared<Method, 32, Saves>(m, lanes, o, io, shared, st);
    if (lanes.rank() == 0) {
      status[b] = s;
      if (stats) stats[b] = st;
    }
  }
}

}  // namespace detail

// How the GPU integrates an ensemble: a thread a trajectory (the default), or
// a warp a trajectory (larger models; see above).
struct thread_per_trajectory {};
struct warp_per_trajectory {};

template <class M, class Method>
  requires ode_system<M> && ode_method<Method>
void integrate(const M& m, Method method, const ode_problem<typename M::scalar>& pr, std::size_t count,
               batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
               const ensemble_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr) {
  integrate(m, method, pr, count, x0, p, out, thread_per_trajectory{}, stream);
}

template <class M, class Method, class Policy>
  requires ode_system<M> && ode_method<Method> &&
           (std::is_same_v<Policy, thread_per_trajectory> || std::is_same_v<Policy, warp_per_trajectory>)
void integrate(const M& m, Method, const ode_problem<typename M::scalar>& pr, std::size_t count,
               batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
               const ensemble_buffers<typename M::scalar>& out, Policy, cudaStream_t stream = nullptr) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states;
  static_assert(!keeps_dense_matrix<Method> || n <= max_states_dense_per_thread,
                "fluxion::cuda::integrate: a Rosenbrock method keeps each trajectory's n x n iteration matrix and "
                "its factors in one GPU thread, which holds them for models of up to "
                "fluxion::cuda::max_states_dense_per_thread (32) states; integrate larger stiff models on the host "
                "(fluxion::host::integrate) or with an explicit method.");
  ode_options<T> o = check_problem(pr, n, M::n_params, fluxion::detail::observable_count_of<M>);
  if (std::is_same_v<Policy, warp_per_trajectory> && o.n_crossings > 0)
    throw problem_error("fluxion::cuda::integrate: crossing events are not supported with a warp per trajectory "
                        "yet; integrate with a thread per trajectory (the default)");
  const auto c = fluxion::detail::check_ensemble<T>(n, M::n_params, o.n_save, count, x0, p, out, o.n_crossings);
  const auto& [cx, cp, cs, cf, cst, cstat, with_stats, ccross] = c;
  detail::check_device_memory(c);
  if (count == 0) return;
  constexpr bool by_warp = std::is_same_v<Policy, warp_per_trajectory>;
  constexpr unsigned threads = by_warp ? detail::warp_block_threads : detail::block_threads;
  std::size_t shared_bytes = 0;
  if constexpr (by_warp) {
    using system = shared_state_system<M, 32, detail::warp_members>;
    shared_bytes = system::shared_values * sizeof(T) * (threads / 32u);
    int device = 0, limit = 0;
    constexpr const char* what = "the shared memory of a warp per trajectory";
    fluxion::detail::check_cuda(cudaGetDevice(&device), what);
    fluxion::detail::check_cuda(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), what);
    if (shared_bytes > std::size_t(limit))
      throw fluxion::cuda_error("fluxion::cuda::integrate: a warp per trajectory keeps each trajectory's state, its "
                                "derivative, the aliases and the parameters in shared memory, " +
                                    std::to_string(system::shared_values * sizeof(T)) + " bytes for this model, " +
                                    std::to_string(shared_bytes) + " for the " + std::to_string(threads / 32u) +
                                    " trajectories of a block, beyond the device's " + std::to_string(limit) +
                                    " bytes a block",
                                cudaErrorInvalidValue);
    const auto kernel = o.n_save > 0 ? detail::integrate_warp_kernel<Method, M, T, true>
                                     : detail::integrate_warp_kernel<Method, M, T, false>;
    fluxion::detail::check_cuda(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)), what);
  }

  // Save times, per-state tolerances and events: host spans, copied next to
  // each other (the events 16-byte aligned after the values).
  const std::size_t n_atol = o.atol_per_state ? n : 0;
  const std::size_t values_bytes = (o.n_save + n_atol) * sizeof(T);
  const std::size_t at_events = (values_bytes + 15) / 16 * 16;
  const std::size_t at_crossings = (at_events + o.n_events * sizeof(timed_event<T>) + 15) / 16 * 16;
  const std::size_t table_bytes = o.n_events + o.n_crossings > 0
                                      ? at_crossings + o.n_crossings * sizeof(crossing_event<T>)
                                      : values_bytes;
  unsigned char* table = nullptr;
  if (table_bytes > 0) {
    fluxion::detail::check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&table), table_bytes, stream),
                                "cudaMallocAsync of the save times");
    const auto copy = [&](std::size_t at, const void* from, std::size_t bytes, const char* what) {
      if (bytes == 0) return;
      const cudaError_t copied = cudaMemcpyAsync(table + at, from, bytes, cudaMemcpyHostToDevice, stream);
      if (copied != cudaSuccess) cudaFreeAsync(table, stream);
      fluxion::detail::check_cuda(copied, what);
    };
    copy(0, o.save_times, o.n_save * sizeof(T), "cudaMemcpyAsync of the save times");
    copy(o.n_save * sizeof(T), o.atol_per_state, n_atol * sizeof(T), "cudaMemcpyAsync of the absolute tolerances");
    copy(at_events, o.events, o.n_events * sizeof(timed_event<T>), "cudaMemcpyAsync of the events");
    copy(at_crossings, o.crossings, o.n_crossings * sizeof(crossing_event<T>), "cudaMemcpyAsync of the crossings");
    o.save_times = o.n_save ? reinterpret_cast<const T*>(table) : nullptr;
    o.atol_per_state = n_atol ? reinterpret_cast<const T*>(table) + o.n_save : nullptr;
    o.events = o.n_events ? reinterpret_cast<const timed_event<T>*>(table + at_events) : nullptr;
    o.crossings = o.n_crossings ? reinterpret_cast<const crossing_event<T>*>(table + at_crossings) : nullptr;
  }
  using stepper = typename stepper_of<Method, M>::type;
  const detail::strides xs = detail::strides_of(cx), ps = detail::strides_of(cp);
  solve_statistics* const stats = with_stats ? cstat.data : nullptr;
  if constexpr (by_warp) {
    // A trajectory a warp: threads / 32 trajectories a block.
    const unsigned blocks = detail::grid_for(65535u * 32u, threads / 32u, count);
    if (o.n_save > 0)
      detail::integrate_warp_kernel<Method, M, T, true><<<blocks, threads, shared_bytes, stream>>>(
          m, o, count, cx.data, xs, cp.data, ps, cs.data, cf.data, cst.data, stats);
    else
      detail::integrate_warp_kernel<Method, M, T, false><<<blocks, threads, shared_bytes, stream>>>(
          m, o, count, cx.data, xs, cp.data, ps, cs.data, cf.data, cst.data, stats);
  } else if (o.n_save > 0)
    detail::integrate_kernel<stepper, M, T, true><<<detail::grid_blocks(count), threads, 0, stream>>>(
        m, o, count, cx.data, xs, cp.data, ps, cs.data, cf.data, cst.data, stats, ccross.data);
  else
    detail::integrate_kernel<stepper, M, T, false><<<detail::grid_blocks(count), threads, 0, stream>>>(
        m, o, count, cx.data, xs, cp.data, ps, cs.data, cf.data, cst.data, stats, ccross.data);
  const cudaError_t launched = cudaGetLastError();
  if (table) cudaFreeAsync(table, stream);
  fluxion::detail::check_cuda(launched, "launch of the fluxion integration kernel");
}

// A model or method that is not one: one sentence naming the concept
// (solve/concepts.hpp) instead of errors from inside the integrator.
// (Its return type is deduced, so that the sentence comes first, before
// any error about the use of the result.)
template <class M, class Method, class... Rest>
  requires(!ode_system<M> || !ode_method<Method>)
auto integrate(const M&, Method, Rest&&...) {
  return fluxion::detail::require_integration<M, Method>();
}

}  // namespace cuda

}  // namespace fluxion
