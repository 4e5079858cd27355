#pragma once
// How far a pointer is from the next boundary of a given alignment, in
// values: where vector loads and stores can start whole (a vector that
// straddles two cache lines costs two accesses) and where streaming stores
// can start at all; and scratch that starts on a cache line. Host only.
#include <cstddef>
#include <cstdint>
#include <vector>

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

// Scratch values for one range, starting on a cache line: lanes read and
// write them as whole vectors, and a vector that straddles two lines costs
// two accesses (std::vector's own storage is only 16-byte aligned).
template <class T>
class line_aligned_scratch {
 public:
  explicit line_aligned_scratch(std::size_t n) : storage_(n + cache_line_bytes / sizeof(T)) {}
  T* data() { return storage_.data() + values_to_boundary(storage_.data(), cache_line_bytes); }

 private:
  std::vector<T> storage_;
};

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
