#pragma once
// Stores that bypass the caches (non-temporal stores), for outputs that a
// large batch writes once: a normal store first reads the line it writes
// into the cache (a third of the memory traffic of a right-hand side) and
// evicts inputs still to be read. Host only; on targets without them the
// copy is std::copy_n.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/detail/alignment.hpp>
#if defined(__SSE2__) && !defined(__CUDACC__)
// The narrowest header with the stores used below: <immintrin.h> costs
// every translation unit about half a second to parse, <emmintrin.h> (SSE2)
// almost nothing.
#  if defined(__AVX__)
#    include <immintrin.h>
#  else
#    include <emmintrin.h>
#  endif
#  define FLUXION_HAS_STREAMING_STORES 1
#else
#  define FLUXION_HAS_STREAMING_STORES 0
#endif

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

// Batches write their outputs with streaming stores (structure-of-arrays
// tiles, array-of-structures lanes) in ranges of at least this many bytes
// (beyond L2; in cache, the outputs are better left there).
inline constexpr std::size_t stream_from_batch_bytes = FLUXION_STREAM_FROM_BATCH_BYTES;

// The width of one streaming store, in bytes.
#if FLUXION_HAS_STREAMING_STORES && defined(__AVX512F__)
inline constexpr std::size_t stream_bytes = 64;
#elif FLUXION_HAS_STREAMING_STORES && defined(__AVX__)
inline constexpr std::size_t stream_bytes = 32;
#else
inline constexpr std::size_t stream_bytes = 16;
#endif

// dst[0, n) = src[0, n), the part of dst aligned to stream_bytes with
// streaming stores. Call streaming_done() before anything else may read dst.
template <class T>
void copy_streaming(const T* src, std::size_t n, T* dst) {
#if FLUXION_HAS_STREAMING_STORES
  if constexpr (std::is_trivially_copyable_v<T> && stream_bytes % sizeof(T) == 0) {
    constexpr std::size_t per = stream_bytes / sizeof(T);
    // Only where the stream boundaries fall between values of dst.
    if (reinterpret_cast<std::uintptr_t>(dst) % stream_bytes % sizeof(T) == 0) {
      const std::size_t head = std::min(n, values_to_boundary(dst, stream_bytes));
      std::copy_n(src, head, dst);
      std::size_t i = head;
      // Bytes, whatever T is: the integer forms of the loads and stores.
      for (; i + per <= n; i += per) {
#  if defined(__AVX512F__)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(src + i));
#  elif defined(__AVX__)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
#  else
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
#  endif
      }
      std::copy_n(src + i, n - i, dst + i);
      return;
    }
  }
#endif
  std::copy_n(src, n, dst);
}

// Orders the streaming stores before every later store (they are weakly
// ordered), so that what the caller does next, a thread's join included,
// sees them.
inline void streaming_done() {
#if FLUXION_HAS_STREAMING_STORES
  _mm_sfence();
#endif
}

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
