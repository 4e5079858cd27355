#pragma once
// The MPI layer on GPUs: one GPU a rank, each rank's trajectories on its
// device by the single-process CUDA launchers. CUDA translation units only
// (nvcc), with the MPI headers.
//
// NOT YET RUN ON A GPU: this header compiles under nvcc and its no-GPU
// paths are tested (tests/mpi/device.cpp, where CUDA builds); the device
// cases of that test are written but have not run on a GPU machine.
//
//   const int dev = fx::mpi::select_device(MPI_COMM_WORLD);                 // node-local rank -> GPU
//   fx::mpi::select_device(MPI_COMM_WORLD, {.share = true});                // more ranks than GPUs
//   fx::mpi::cuda::integrate(MPI_COMM_WORLD, M{}, fx::tsit5{}, pr, count, x0_dev, p_dev, out_dev, stream);
//   fx::mpi::cuda::log_density(MPI_COMM_WORLD, M{}, fx::tsit5{}, pr, lik, data, pri, count, x0_dev, p_dev,
//                              out_dev, stream);
//
// select_device: device_for (mpi/device_map.hpp) of this rank's node-local
// rank (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED), its node's rank count
// and cudaGetDeviceCount, then cudaSetDevice; a device_error on any rank
// (more ranks than GPUs without sharing, no GPU) is raised on every rank.
//
// fx::mpi::cuda::integrate and log_density: the host forms' rules
// (mpi/integrate.hpp, mpi/log_density.hpp: the owned ranges, the layouts,
// the values every rank passes alike, the agreed checks) with buffers in
// device memory (inputs: the global batch, or this rank's range with
// input_scope::local; outputs: this rank's range), each rank's range by
// fluxion::cuda::integrate or fluxion::cuda::log_density on `stream`,
// asynchronously as those are (the report's seconds time the launch). The
// static split only: the dynamic schedule moves results through host memory
// (a problem_error on every rank). Gathers and reductions take host buffers:
// copy a rank's results to the host first (cudaMemcpy), then
// fx::mpi::gather / fx::mpi::reduce, which need no CUDA-aware MPI.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>
#include <span>

#include <fluxion/cuda.hpp>
#include <fluxion/mpi/agree.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/device_map.hpp>
#include <fluxion/mpi/integrate.hpp>
#include <fluxion/mpi/log_density.hpp>
#include <fluxion/mpi/schedule.hpp>

namespace fluxion::mpi {

// This rank's GPU (above); its number.
inline int select_device(MPI_Comm comm, const device_map& map = {}) {
  const node_place place = node_local(comm);
  const detail::private_comm c(comm);
  int device = -1;
  detail::agree(c.get(), [&] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();  // no driver or no device: no GPU is visible
      count = 0;
    }
    device = device_for(place.rank, place.ranks, count, map);
    fluxion::detail::check_cuda(cudaSetDevice(device), "cudaSetDevice");
  });
  return device;
}

namespace detail {

// A rank's trajectories on its GPU (the host forms' host_integrations and
// host_log_densities, mpi/integrate.hpp and mpi/log_density.hpp).
template <class Policy>
struct on_device {
  static constexpr bool dynamic = false;
  Policy policy;
  cudaStream_t stream;
  template <class Bundle>
  void check_memory(const Bundle& c) const {
    fluxion::cuda::detail::check_device_memory(c);
  }
  template <class M, class Method, class T>
  void integrate(const M& m, Method method, const ode_problem<T>& pr, std::size_t count, batch<const T> x0,
                 batch<const T> p, const ensemble_buffers<T>& out) const {
    fluxion::cuda::integrate(m, method, pr, count, x0, p, out, policy, stream);
  }
  template <class M, class Method, class T, class Lik, class Pri>
  void log_density(const M& m, Method method, const ode_problem<T>& pr, const Lik& lik,
                   std::span<const series_data<T>> data, const Pri& pri, std::size_t count, batch<const T> x0,
                   batch<const T> p, const log_density_buffers<T>& out) const {
    fluxion::cuda::log_density(m, method, pr, lik, data, pri, count, x0, p, out, policy, stream);
  }
};

}  // namespace detail

namespace cuda {

// Device buffers: out holds this rank's owned range (mpi/integrate.hpp's
// layout); Policy: fluxion::cuda::thread_per_trajectory or warp_per_trajectory.
template <class M, class Method, class Policy = fluxion::cuda::thread_per_trajectory>
  requires ode_system<M> && ode_method<Method>
schedule_report integrate(MPI_Comm comm, const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                          std::size_t count, batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                          const ensemble_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr,
                          const distribution& d = {}, Policy policy = {}) {
  return mpi::detail::integrate_on(mpi::detail::on_device<Policy>{policy, stream}, comm, m, method, pr,
                                   count, x0, p, out, d);
}

// Device buffers: out holds this rank's owned range (mpi/log_density.hpp's
// layout); Policy: fluxion::cuda::thread_per_trajectory, lane_per_column or
// discrete_adjoint.
template <class M, class Method, class Lik, class Pri, class Policy = fluxion::cuda::thread_per_trajectory>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
schedule_report log_density(MPI_Comm comm, const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                            const Lik& lik, std::span<const series_data<typename M::scalar>> data, const Pri& pri,
                            std::size_t count, batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                            const log_density_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr,
                            const distribution& d = {}, Policy policy = {}) {
  return mpi::detail::log_density_on(mpi::detail::on_device<Policy>{policy, stream}, comm, m, method, pr,
                                     lik, data, pri, count, x0, p, out, d);
}

}  // namespace cuda

}  // namespace fluxion::mpi
