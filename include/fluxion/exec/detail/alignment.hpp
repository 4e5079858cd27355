#pragma once
// How far a pointer is from the next boundary of a given alignment, in
// values: where vector loads and stores can start whole (a vector that
// straddles two cache lines costs two accesses) and where streaming stores
// can start at all. Host only.
#include <cstddef>
#include <cstdint>

#include <fluxion/config/macros.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

inline constexpr std::size_t cache_line_bytes = 64;

// Values of T from p to the next address that is a multiple of `bytes` (0
// when p is one). p is aligned to T, so the distance is whole values when
// `bytes` is a multiple of sizeof(T).
template <class T>
std::size_t values_to_boundary(const T* p, std::size_t bytes) {
  const std::size_t past = reinterpret_cast<std::uintptr_t>(p) % bytes;
  return past == 0 ? 0 : (bytes - past) / sizeof(T);
}

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
