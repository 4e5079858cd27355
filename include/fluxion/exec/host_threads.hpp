#pragma once
// The host thread pool's thread type (exec/detail/for_ranges.hpp): std::thread.
// Kept apart so that translation units that run no host batch (CUDA units
// that only launch kernels, through <fluxion/cuda.hpp>) do not read <thread>.
// <fluxion/fluxion.hpp> includes it.
#include <thread>

#include <fluxion/config/macros.hpp>
#include <fluxion/exec/detail/for_ranges.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

template <class F>
struct host_thread {
  using type = std::thread;
};

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
