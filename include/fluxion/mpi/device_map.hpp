#pragma once
// Which GPU a rank uses: one rank a GPU by node-local rank, overridable.
// A pure function of its arguments, so that the decision is tested without
// a GPU; fluxion::mpi::select_device (mpi/cuda.hpp) asks MPI for the
// node-local rank (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) and CUDA for
// the device count, then sets the device.
//
//   fx::mpi::device_for(local_rank, local_ranks, device_count);              // local_rank
//   fx::mpi::device_for(local_rank, local_ranks, device_count, {.devices = {2, 3}});   // {2, 3}[local_rank]
//   fx::mpi::device_for(local_rank, local_ranks, device_count, {.share = true});       // round-robin
//   fx::mpi::device_for(local_rank, local_ranks, device_count, {.device = 1});         // this rank: device 1
//
// Rules, in order:
//   - no visible GPU: device_error;
//   - map.device >= 0: that device (device_error unless below device_count);
//   - the devices to spread over: map.devices (each below device_count, none
//     twice), or every visible device 0 .. device_count - 1;
//   - local_ranks at most their number: device number local_rank of them;
//   - more ranks on the node than devices: with map.share, device number
//     local_rank % their number; without, device_error (the message names
//     the ranks, the devices and the way out), the same on every rank of
//     the node.
#include <algorithm>
#include <string>
#include <vector>

#include <fluxion/mpi/error.hpp>

namespace fluxion::mpi {

struct device_map {
  std::vector<int> devices = {};  // the GPUs a node's ranks spread over, in order; empty: all visible ones
  bool share = false;             // more ranks on a node than devices: round-robin instead of an error
  int device = -1;                // >= 0: this rank's device, whatever the others do
};

inline int device_for(int local_rank, int local_ranks, int device_count, const device_map& map = {}) {
  if (local_ranks < 1 || local_rank < 0 || local_rank >= local_ranks)
    throw device_error("fluxion::mpi: node-local rank " + std::to_string(local_rank) + " is not among the " +
                       std::to_string(local_ranks) + " ranks of the node");
  if (device_count < 1)
    throw device_error("fluxion::mpi: no GPU is visible to the ranks of this node (the device count is " +
                       std::to_string(device_count) + ")");
  if (map.device >= 0) {
    if (map.device >= device_count)
      throw device_error("fluxion::mpi: device " + std::to_string(map.device) + " was asked for, but the node has " +
                         std::to_string(device_count) + " visible GPU(s), 0 to " + std::to_string(device_count - 1));
    return map.device;
  }
  std::vector<int> devices = map.devices;
  if (devices.empty())
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
  std::string listed;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const int d = devices[k];
    if (d < 0 || d >= device_count)
      throw device_error("fluxion::mpi: device_map::devices lists device " + std::to_string(d) + ", but the node has " +
                         std::to_string(device_count) + " visible GPU(s), 0 to " + std::to_string(device_count - 1));
    if (std::find(devices.begin(), devices.begin() + std::ptrdiff_t(k), d) != devices.begin() + std::ptrdiff_t(k))
      throw device_error("fluxion::mpi: device_map::devices lists device " + std::to_string(d) + " twice");
    listed += (k == 0 ? "" : ", ") + std::to_string(d);
  }
  const int usable = int(devices.size());
  if (local_ranks > usable && !map.share)
    throw device_error("fluxion::mpi: " + std::to_string(local_ranks) + " ranks run on this node but " +
                       std::to_string(usable) + " GPU(s) are available to them (device(s) " + listed +
                       "): one rank a GPU needs a GPU for every rank; set device_map::share = true to let ranks "
                       "share GPUs round-robin, or start at most " + std::to_string(usable) + " rank(s) a node");
  return devices[std::size_t(local_rank % usable)];
}

}  // namespace fluxion::mpi
