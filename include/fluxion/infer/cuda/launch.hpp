#pragma once
// What the GPU log-density's launchers (one a strategy: thread_per_trajectory.hpp,
// lane_per_column.hpp, discrete_adjoint.hpp in this folder) share: their
// grids, bounded by the threads the device keeps resident and by the scratch
// that half its free memory holds, and the one launch around a strategy's
// kernels: the save times, tolerances, events and series' data staged into one
// stream-ordered allocation with the scratch (exec/cuda/scratch.hpp), copied
// once, the kernels launched, the allocation freed. Host code, CUDA
// translation units only.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/exec/cuda/scratch.hpp>
#include <fluxion/infer/buffers.hpp>
#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::cuda::detail {

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

template <class Kernel>
unsigned resident_blocks(Kernel* kernel, unsigned threads, std::size_t work) {
  return grid_for(resident_capacity(kernel, threads), threads, work);
}

// Half the device memory that scratch can take (exec/cuda/scratch.hpp): what
// a launcher sizes its scratch by.
inline std::size_t scratch_budget(const char* what) { return scratch_available_bytes(what) / 2; }

// The cuda_error of a launcher whose smallest piece of scratch (`piece`:
// what it is and its bytes) does not fit in scratch_budget.
[[noreturn]] inline void scratch_exceeded(const std::string& piece) {
  throw fluxion::cuda_error(piece + " exceeds half the free device memory", cudaErrorMemoryAllocation);
}

// The grid of the log-density kernel (blocks of `threads`): at most the
// threads the device keeps resident (each with a scratch slot of
// slot_bytes), and fewer when their scratch would exceed half the free
// device memory (the scratch pool's unused memory counted free); cuda_error
// when not even one block's does.
template <class Kernel>
unsigned log_density_blocks(Kernel* kernel, unsigned threads, std::size_t count, std::size_t slot_bytes) {
  const std::size_t budget = scratch_budget("the log-density's scratch");
  const std::size_t blocks = resident_blocks(kernel, threads, count);
  const std::size_t affordable = budget / (slot_bytes * threads);
  if (affordable == 0)
    scratch_exceeded("the log-density's scratch (" + std::to_string(slot_bytes * threads) + " bytes for a block of " +
                     std::to_string(threads) + " threads: every thread's records of its save times)");
  return unsigned(affordable < blocks ? affordable : blocks);
}

// The save times a trajectory's scratch records are sized for (at least one).
template <class T>
std::size_t slot_saves(const ode_options<T>& o) {
  return o.n_save > 0 ? o.n_save : 1;
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

// A log-density call's checked buffers (infer/buffers.hpp) as its kernels
// take them: device pointers and strides; stats null when none are recorded.
template <class T>
struct log_density_io {
  const T* x0;
  strides xs;
  const T* p;
  strides ps;
  T* value;
  T* gradients;  // null for the value alone
  solve_status* status;
  solve_statistics* stats;
  fluxion::term_outputs<T> terms;  // trajectory 0's; null where not asked for
};

// Runs one strategy's launcher (thread_per_trajectory_launcher,
// lane_per_column_launcher, discrete_adjoint_launcher), already planned (its
// grid, its scratch_bytes()), on `count` trajectories: the save times,
// tolerances (n_system of them, when per state), the events, the series' data and their
// views in one copy, the launcher's scratch after them in the same
// allocation (not copied), then launcher.launch(...) with the options'
// pointers moved to the device; the allocation is freed after the kernels
// (stream-ordered), and a failed copy or launch raises cuda_error.
template <class Launcher, class M, class Lik, class Pri>
void launch_log_density(const Launcher& launcher, const M& m, ode_options<typename M::scalar> o,
                        std::size_t n_system, const Lik& lik, std::span<const series_data<typename M::scalar>> data,
                        const fluxion::detail::observation_timeline<typename M::scalar>& timeline, const Pri& pri,
                        std::size_t count, const fluxion::detail::checked_log_density<typename M::scalar>& c,
                        cudaStream_t stream) {
  using T = typename M::scalar;
  // Save times, tolerances, the series' data and their views: one copy.
  staging host;
  const std::size_t at_save = host.add(o.save_times, o.n_save);
  const std::size_t at_atol = host.add(o.atol_per_state, o.atol_per_state ? n_system : 0);
  const std::size_t at_maps = host.add(timeline.maps.data(), timeline.maps.size());
  const std::size_t at_events = host.add(o.events, o.n_events);
  struct series_offsets {
    std::size_t values, mask, trials, parameter_values;
  };
  std::vector<series_offsets> offsets;
  for (const auto& d : data)
    offsets.push_back({host.add(d.values.data(), d.values.size()), host.add(d.mask.data(), d.mask.size()),
                       host.add(d.trials.data(), d.trials.size()),
                       host.add(d.parameter_values.data(), d.parameter_values.size())});
  const std::size_t views_bytes = (data.size() > 0 ? data.size() : 1) * sizeof(fluxion::detail::series_view<T>);
  const std::size_t at_views = (host.bytes.size() + 15) / 16 * 16;
  host.bytes.resize(at_views + views_bytes);
  // The scratch follows the data in the same allocation (not copied).
  const std::size_t at_scratch = (host.bytes.size() + 255) / 256 * 256;
  auto* const device = static_cast<unsigned char*>(scratch_alloc(
      at_scratch + launcher.scratch_bytes(), stream,
      "cudaMallocFromPoolAsync of the log-density's data and scratch"));
  // A series' maps where it has them (observation_timeline): at the same
  // offsets in the device's copy of timeline.maps.
  const auto on_device = [&](const std::int32_t* map) {
    return map ? reinterpret_cast<const std::int32_t*>(device + at_maps) + (map - timeline.maps.data()) : nullptr;
  };
  for (std::size_t k = 0; k < data.size(); ++k) {
    const fluxion::detail::series_view<T> v{
        reinterpret_cast<const observation<T>*>(device + offsets[k].values),
        data[k].mask.empty() ? nullptr : device + offsets[k].mask,
        data[k].trials.empty() ? nullptr : reinterpret_cast<const T*>(device + offsets[k].trials),
        data[k].parameter_values.empty() ? nullptr : reinterpret_cast<const T*>(device + offsets[k].parameter_values),
        on_device(timeline.at(k)),
        on_device(timeline.save_of(k)),
        timeline.first_term[k]};
    std::memcpy(host.bytes.data() + at_views + k * sizeof(v), &v, sizeof(v));
  }
  const cudaError_t copied =
      cudaMemcpyAsync(device, host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice, stream);
  if (copied != cudaSuccess) cudaFreeAsync(device, stream);
  fluxion::detail::check_cuda(copied, "cudaMemcpyAsync of the log-density's data");
  o.save_times = o.n_save ? reinterpret_cast<const T*>(device + at_save) : nullptr;
  o.atol_per_state = o.atol_per_state ? reinterpret_cast<const T*>(device + at_atol) : nullptr;
  o.events = o.n_events ? reinterpret_cast<const timed_event<T>*>(device + at_events) : nullptr;
  const auto* views = reinterpret_cast<const fluxion::detail::series_view<T>*>(device + at_views);
  T* scratch = reinterpret_cast<T*>(device + at_scratch);
  const log_density_io<T> io{c.x0.data,    strides_of(c.x0), c.p.data,      strides_of(c.p),
                             c.value.data, c.gradients.data, c.status.data, c.with_stats ? c.stats.data : nullptr,
                             c.terms()};
  cudaError_t launched = launcher.launch(m, o, lik, views, pri, count, io, scratch, stream);
  if (launched == cudaSuccess) launched = cudaGetLastError();
  cudaFreeAsync(device, stream);
  fluxion::detail::check_cuda(launched, "launch of the fluxion log-density kernel");
}

}  // namespace fluxion::cuda::detail
