// The device cases of the mpi suite as plain host functions (device_cases.cu,
// compiled by nvcc; their Catch2 bodies in device.cpp, by the host compiler).
// Each returns the text of the error it raised on this rank ("none" when it
// returned), so that the bodies compare it across ranks.
#pragma once
#include <mpi.h>

#include <string>

namespace mpi_device_cases {

// The GPUs CUDA reports to this process (0 without a driver or a device).
int visible_gpus();
// fx::mpi::select_device with or without sharing: "device <n>" or the error.
std::string select_device(MPI_Comm comm, bool share);
// fx::mpi::cuda::integrate given host buffers: refused on every rank.
std::string integrate_host_buffers(MPI_Comm comm);
// fx::mpi::cuda::integrate under the dynamic schedule: refused on every rank.
std::string integrate_dynamic(MPI_Comm comm);
// Lorenz (Tsit5) and a log-density across the ranks' GPUs (select_device
// with sharing) against fluxion::cuda's single-process calls on this rank's
// GPU: "same" when this rank's parts equal them bit for bit.
std::string lorenz_across_gpus(MPI_Comm comm);

}  // namespace mpi_device_cases
