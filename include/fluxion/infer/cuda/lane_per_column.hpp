#pragma once
// The GPU log-density's gradient a lane a sensitivity column
// (fx::cuda::lane_per_column): each trajectory spread over
// 1 + n_params + n_states lanes of a warp, one a column of the forward
// sensitivities (infer/log_density_columns.hpp), for models of up to 31
// columns: a lane integrates n_states values instead of a thread's
// n_states (1 + columns), and the densities' terms are shared among the
// lanes by save time. Its scratch is a lane's records and terms: save times
// x (observables + the series' partials) values a lane. CUDA translation
// units only.
#include <cstddef>

#include <cuda_runtime.h>

#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/infer/cuda/launch.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_columns.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::cuda {

// How the GPU computes a gradient: a thread a trajectory (the default, which
// holds y and all of S), or a lane a sensitivity column (lane_per_column:
// 1 + n_params + n_states lanes a trajectory, each integrating n_states
// values; infer/log_density_columns.hpp). A model with more than 31 columns,
// or a call without the gradient, runs a thread a trajectory either way.
struct lane_per_column {};

}  // namespace fluxion::cuda

namespace fluxion::cuda::detail {

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
                               T* __restrict__ scratch, fluxion::term_outputs<T> terms) {
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
        gradients + i, std::ptrdiff_t(count), st, deferred, terms.at(b));
    if (g.rank() == 0) {
      status[b] = s;
      if (stats) stats[b] = st;
    }
  }
}

// Plans the grid (a trajectory's lanes in one warp, so 32 / G trajectories
// a warp; as many resident lanes as the scratch allows, a slot each) and
// launches log_density_columns_kernel; launch_log_density runs it.
template <class Method, class M, class Lik, class Pri>
class lane_per_column_launcher {
 public:
  using T = typename M::scalar;
  static constexpr std::size_t columns = M::n_params + M::n_states;
  static_assert(1 + columns <= 32, "fluxion::cuda: a lane a column holds a trajectory's columns in one warp.");

  lane_per_column_launcher(const ode_options<T>& o, std::size_t count)
      : slot_bytes_(fluxion::detail::member_log_density_sink<M, Lik, lane_group<int(1 + columns)>>::slot_values(
                        slot_saves(o)) *
                    sizeof(T)),
        blocks_(log_density_blocks(log_density_columns_kernel<Method, M, Lik, Pri, T>, columns_block_threads,
                                   (count + 32 / (1 + columns) - 1) / (32 / (1 + columns)) * 32, slot_bytes_)) {}

  std::size_t scratch_bytes() const { return std::size_t(blocks_) * columns_block_threads * slot_bytes_; }

  cudaError_t launch(const M& m, const ode_options<T>& o, const Lik& lik,
                     const fluxion::detail::series_view<T>* views, const Pri& pri, std::size_t count,
                     const log_density_io<T>& io, T* scratch, cudaStream_t stream) const {
    log_density_columns_kernel<Method><<<blocks_, columns_block_threads, 0, stream>>>(
        m, o, lik, views, pri, count, io.x0, io.xs, io.p, io.ps, io.value, io.gradients, io.status, io.stats,
        scratch, io.terms);
    return cudaSuccess;
  }

 private:
  std::size_t slot_bytes_;
  unsigned blocks_;
};

}  // namespace fluxion::cuda::detail
