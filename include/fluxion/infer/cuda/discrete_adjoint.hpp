#pragma once
// The GPU log-density's gradient by the discrete adjoint
// (fx::discrete_adjoint; infer/log_density_adjoint.hpp), in three kernels:
// the integrations of the model alone onto tapes, the densities' terms of
// every trajectory and save time in parallel, the backward passes. Every
// trajectory has a tape of save times x n_states + recorded_steps x
// (n_states + 2) values (and its terms' sums, a value and n_params
// derivatives for every 8 save times); when those of all trajectories exceed
// half the free device memory, the kernels take them in chunks that fit. A
// trajectory taking more accepted steps than recorded_steps ends with
// status max_steps. CUDA translation units only.
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/infer/cuda/launch.hpp>
#include <fluxion/infer/cuda/step_order.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::cuda::detail {

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
    std::int32_t recorded_steps, T* __restrict__ partials, fluxion::term_outputs<T> terms, bool one_group) {
  constexpr int np = int(M::n_params);
  const std::size_t group = fluxion::detail::adjoint_save_group_size(o.n_save, one_group);
  const std::size_t groups = fluxion::detail::adjoint_save_groups(o.n_save, one_group);
  for (std::size_t w = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; w < groups * count;
       w += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t g = w / count, b = w % count;
    if (status[b] != solve_status::success) continue;
    const auto i = std::ptrdiff_t(b);
    T pc[np > 0 ? np : 1], value, pbar[np > 0 ? np : 1];
    for (int j = 0; j < np; ++j) pc[j] = p[i * ps.instance + std::ptrdiff_t(j) * ps.element];
    const std::size_t first = g * group, end = first + group < o.n_save ? first + group : o.n_save;
    fluxion::detail::adjoint_save_terms(m, o, lik, data, pc, first, end,
                                        trajectory_tape<M>(tapes, b, count, o.n_save, recorded_steps), &value, pbar,
                                        terms.at(b));
    T* out = partials + g * std::size_t(1 + np) * count + b;
    out[0] = value;
    for (int j = 0; j < np; ++j) out[std::size_t(1 + j) * count] = pbar[j];
  }
}

template <class Method, class M, class Pri, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_ADJOINT_BACKWARD_MIN_BLOCKS) adjoint_backward_kernel(
    M m, ode_options<T> o, Pri pri, std::size_t count, const T* __restrict__ p, strides ps,
    const solve_status* __restrict__ status, T* __restrict__ tapes, std::int32_t recorded_steps,
    const std::int32_t* __restrict__ steps, const std::uint32_t* __restrict__ order, const T* __restrict__ partials,
    T* __restrict__ value, T* __restrict__ gradients, std::size_t grad_stride, solve_statistics* __restrict__ stats,
    bool aligned, std::size_t groups, fluxion::term_outputs<T> terms, std::size_t n_series) {
  constexpr int n = int(M::n_states), np = int(M::n_params);
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
    if (!ok) terms.at(b).fail(n_series);
    else if (groups == 0) terms.at(b).clear_series(n_series);  // no save times: no terms kernel, sums of nothing
    fluxion::detail::write_adjoint_result<M>(o, ok, v, pbar, ybar, value + i, gradients + i,
                                                std::ptrdiff_t(grad_stride));
  }
}

// How many trajectories the discrete adjoint's kernels take at once: all of
// them when their tapes, terms and step counts (bytes_each a trajectory) fit
// in half the free device memory (the scratch pool's unused memory counted
// free), otherwise as many as do, and at most max_chunk
// (discrete_adjoint::max_chunk, 0: no bound); cuda_error when not even one
// fits.
inline std::size_t adjoint_chunk(std::size_t count, std::size_t bytes_each, std::size_t max_chunk) {
  std::size_t affordable = scratch_budget("the discrete adjoint's tapes") / bytes_each;
  if (affordable == 0)
    scratch_exceeded("the discrete adjoint's tape (" + std::to_string(bytes_each) +
                     " bytes a trajectory: its save times and recorded_steps steps)");
  if (max_chunk > 0 && max_chunk < affordable) affordable = max_chunk;
  return affordable < count ? affordable : count;
}

// Plans the chunks (a tape, the terms' groups and a step count for every
// trajectory of a chunk, and the order's index and bins when sorted) and
// the three kernels' grids, the occupancy asked before the scratch is
// taken (a failed query then leaks nothing); launches the kernels chunk
// after chunk; launch_log_density runs it.
template <class Method, class M, class Lik, class Pri>
class discrete_adjoint_launcher {
 public:
  using T = typename M::scalar;

  // series_sums: the series' sums are asked for (the terms in one group a trajectory, as for a series over intervals).
  discrete_adjoint_launcher(const ode_options<T>& o, std::size_t count, const discrete_adjoint& how,
                            bool series_sums = false)
      : one_group_(Lik::accumulates || series_sums),
        recorded_steps_(how.recorded_steps),
        sorted_(how.backward_by_steps),
        aligned_(how.aligned_backward),
        tape_values_(fluxion::detail::adjoint_tape<T>::template values<M>(slot_saves(o), recorded_steps_)),
        save_groups_(fluxion::detail::adjoint_save_groups(o.n_save, one_group_)),
        partial_values_(save_groups_ * (1 + M::n_params)),
        step_bins_(sorted_ ? std::size_t(recorded_steps_) + 1 : 0) {
    slot_bytes_ = (tape_values_ + partial_values_) * sizeof(T) + sizeof(std::int32_t);
    if (sorted_) slot_bytes_ += sizeof(std::uint32_t);
    chunk_ = adjoint_chunk(count, slot_bytes_, how.max_chunk);
    if (sorted_ && chunk_ > std::size_t(UINT32_MAX)) chunk_ = std::size_t(UINT32_MAX);  // the order's indices
    forward_capacity_ = resident_capacity(adjoint_forward_kernel<Method, M, T>, block_threads);
    terms_capacity_ = resident_capacity(adjoint_terms_kernel<M, Lik, T>, block_threads);
    backward_capacity_ = resident_capacity(adjoint_backward_kernel<Method, M, Pri, T>, block_threads);
  }

  std::size_t scratch_bytes() const { return chunk_ * slot_bytes_ + step_bins_ * sizeof(std::uint32_t); }

  cudaError_t launch(const M& m, const ode_options<T>& o, const Lik& lik,
                     const fluxion::detail::series_view<T>* views, const Pri& pri, std::size_t count,
                     const log_density_io<T>& io, T* scratch, cudaStream_t stream) const {
    constexpr unsigned threads = block_threads;
    T* const tapes = scratch;
    T* const partials = tapes + chunk_ * tape_values_;
    auto* const steps = reinterpret_cast<std::int32_t*>(partials + chunk_ * partial_values_);
    std::uint32_t* const order = sorted_ ? reinterpret_cast<std::uint32_t*>(steps + chunk_) : nullptr;
    std::uint32_t* const bins = sorted_ ? order + chunk_ : nullptr;
    const auto forward = adjoint_forward_kernel<Method, M, T>;
    const auto terms = adjoint_terms_kernel<M, Lik, T>;
    const auto backward = adjoint_backward_kernel<Method, M, Pri, T>;
    cudaError_t launched = cudaSuccess;
    for (std::size_t c0 = 0; c0 < count && launched == cudaSuccess; c0 += chunk_) {
      const std::size_t c = count - c0 < chunk_ ? count - c0 : chunk_;
      const auto i = std::ptrdiff_t(c0);
      const T* const x0c = io.x0 + i * io.xs.instance;
      const T* const pc = io.p + i * io.ps.instance;
      solve_statistics* const statsc = io.stats ? io.stats + c0 : nullptr;
      forward<<<grid_for(forward_capacity_, threads, c), threads, 0, stream>>>(
          m, o, c, x0c, io.xs, pc, io.ps, io.status + c0, statsc, tapes, recorded_steps_, steps);
      if (save_groups_ > 0)  // no save times: no terms, and a grid of no blocks is a launch error
        terms<<<grid_for(terms_capacity_, threads, save_groups_ * c), threads, 0, stream>>>(
            m, o, lik, views, c, pc, io.ps, io.status + c0, tapes, recorded_steps_, partials, io.terms.at(c0),
            one_group_);
      if (sorted_) {
        launched = order_by_steps(steps, c, recorded_steps_, bins, order, stream);
        if (launched != cudaSuccess) break;  // no backward pass with an order not written
      }
      backward<<<grid_for(backward_capacity_, threads, c), threads, 0, stream>>>(
          m, o, pri, c, pc, io.ps, io.status + c0, tapes, recorded_steps_, steps, order, partials, io.value + c0,
          io.gradients + c0, count, statsc, aligned_, save_groups_, io.terms.at(c0), Lik::size);
      if (launched == cudaSuccess) launched = cudaGetLastError();
    }
    return launched;
  }

 private:
  bool one_group_;
  std::int32_t recorded_steps_;
  bool sorted_, aligned_;
  std::size_t tape_values_, save_groups_, partial_values_, step_bins_;
  std::size_t slot_bytes_ = 0, chunk_ = 0;
  std::size_t forward_capacity_ = 0, terms_capacity_ = 0, backward_capacity_ = 0;
};

}  // namespace fluxion::cuda::detail
