#pragma once
// Log-densities and their gradients on the GPU: one thread a trajectory,
// each with its own steps, the likelihood folded in at the save times (no
// trajectory is written to memory). CUDA translation units only.
//
//   fx::log_density_buffers<double> out{value_dev, gradients_dev, status_dev};
//   fx::cuda::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, fx::soa(x0_dev), fx::soa(p_dev), out, stream);
//
// The likelihood, priors, problem and data are host objects, checked on the
// host before anything is launched (as fx::host::log_density checks them);
// the data, save times and tolerances travel to the device in one small
// stream-ordered allocation, freed after the kernel. x0, p and the outputs
// are device memory the caller owns: value[b]; gradients [column][trajectory]
// (the parameters, then the initial states; an empty span asks for the
// value alone, which integrates the model without sensitivities); status[b];
// optionally statistics.
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include <cuda_runtime.h>

#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class T>
struct log_density_buffers {
  std::span<T> value;                      // count values
  std::span<T> gradients;                  // (n_params + n_states) * count values, or empty: value only
  std::span<solve_status> status;          // count values
  std::span<solve_statistics> stats = {};  // count values, or empty
};

namespace cuda {

namespace detail {

template <class Method, bool Gradient, class M, class Lik, class Pri, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS)
    log_density_kernel(M m, ode_options<T> o, Lik lik, const fluxion::detail::series_view<T>* __restrict__ data,
                       Pri pri, std::size_t count, const T* __restrict__ x0, strides xs, const T* __restrict__ p,
                       strides ps, T* __restrict__ value, T* __restrict__ gradients,
                       solve_status* __restrict__ status, solve_statistics* __restrict__ stats) {
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const auto i = std::ptrdiff_t(b);
    solve_statistics st{};
    status[b] = fluxion::detail::trajectory_log_density<Method, Gradient>(
        m, o, lik, data, pri, x0 + i * xs.instance, xs.element, p + i * ps.instance, ps.element, value + i,
        Gradient ? gradients + i : nullptr, std::ptrdiff_t(count), st);
    if (stats) stats[b] = st;
  }
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

template <class M, class Method, class Lik, class Pri>
void log_density(const M& m, Method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr) {
  using T = typename M::scalar;
  constexpr std::size_t columns = M::n_params + M::n_states;
  const bool gradient = !out.gradients.empty();
  std::vector<T> atol;
  const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, gradient, atol);
  const std::size_t n_system = gradient ? sensitivity_system<M>::n_states : M::n_states;
  ode_options<T> o = check_problem(aug, n_system);
  const auto cx = check_buffer("initial state", x0, M::n_states, count, false);
  const auto cp = check_buffer("parameter", p, M::n_params, count, false);
  const auto cv = check_buffer("log-density", batch<T>{out.value, batch_order::soa}, 1, count, true);
  const auto cg = gradient ? check_buffer("gradient", batch<T>{out.gradients, batch_order::soa}, columns, count, true)
                           : checked_buffer<T>{nullptr, 1, 1, 0, 0};
  const auto cst = check_buffer("status", batch<solve_status>{out.status, batch_order::soa}, 1, count, true);
  const bool with_stats = !out.stats.empty();
  const auto cstat = with_stats
                         ? check_buffer("statistics", batch<solve_statistics>{out.stats, batch_order::soa}, 1, count, true)
                         : checked_buffer<solve_statistics>{nullptr, 1, 1, 0, 0};
  check_no_overlap("initial state", cx, "log-density", cv);
  check_no_overlap("parameter", cp, "log-density", cv);
  check_no_overlap("status", cst, "log-density", cv);
  if (gradient) {
    check_no_overlap("initial state", cx, "gradient", cg);
    check_no_overlap("parameter", cp, "gradient", cg);
    check_no_overlap("log-density", cv, "gradient", cg);
    check_no_overlap("status", cst, "gradient", cg);
    detail::check_device_memory("gradient", cg);
  }
  if (with_stats) {
    check_no_overlap("statistics", cstat, "log-density", cv);
    check_no_overlap("statistics", cstat, "status", cst);
    if (gradient) check_no_overlap("statistics", cstat, "gradient", cg);
    detail::check_device_memory("statistics", cstat);
  }
  detail::check_device_memory("initial state", cx);
  detail::check_device_memory("parameter", cp);
  detail::check_device_memory("log-density", cv);
  detail::check_device_memory("status", cst);
  if (count == 0) return;

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
  unsigned char* device = nullptr;
  fluxion::detail::check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&device), host.bytes.size(), stream),
                              "cudaMallocAsync of the log-density's data");
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

  constexpr unsigned threads = detail::block_threads;
  const unsigned blocks = detail::grid_blocks(count);
  const detail::strides xs{cx.element_stride, cx.instance_stride}, ps{cp.element_stride, cp.instance_stride};
  if (gradient)
    detail::log_density_kernel<Method, true><<<blocks, threads, 0, stream>>>(
        m, o, lik, views, pri, count, cx.data, xs, cp.data, ps, cv.data, cg.data, cst.data,
        with_stats ? cstat.data : nullptr);
  else
    detail::log_density_kernel<Method, false><<<blocks, threads, 0, stream>>>(
        m, o, lik, views, pri, count, cx.data, xs, cp.data, ps, cv.data, static_cast<T*>(nullptr), cst.data,
        with_stats ? cstat.data : nullptr);
  const cudaError_t launched = cudaGetLastError();
  cudaFreeAsync(device, stream);
  fluxion::detail::check_cuda(launched, "launch of the fluxion log-density kernel");
}

}  // namespace cuda

}  // namespace fluxion
