#pragma once
// Moving W instances of an array-of-structures batch into lanes and back:
// element j of instances [b, b + W) becomes one vector of lanes (and the
// reverse for outputs), W elements at a time through a W x W transpose in
// registers (log2 W rounds of W two-vector shuffles: 24 shuffles for 64
// doubles with AVX-512), the few elements left over one value at a time.
// Host only: the lanes are the compiler's vector extensions.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/exec/detail/alignment.hpp>
#include <fluxion/exec/lanes.hpp>

#if defined(__has_builtin)
#  if __has_builtin(__builtin_shufflevector)
#    define FLUXION_HAS_SHUFFLEVECTOR 1
#  endif
#endif
#ifndef FLUXION_HAS_SHUFFLEVECTOR
#  define FLUXION_HAS_SHUFFLEVECTOR 0
#endif

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

// Whether the transposes run in registers here (the compiler has
// __builtin_shufflevector: GCC 12 and later, Clang). Without it the batch
// drivers leave array-of-structures right-hand sides one instance at a time
// rather than transpose them value by value (transpose_in_registers' other
// branch, kept so that the header compiles everywhere).
inline constexpr bool register_transpose = FLUXION_HAS_SHUFFLEVECTOR;

#if FLUXION_HAS_SHUFFLEVECTOR
// One round of the transpose: rows a and b (= a + D) swap their off-diagonal
// blocks of D lanes, a taking b's lower block and b taking a's upper one.
template <std::size_t W, std::size_t D, bool Upper>
constexpr int swap_blocks_index(std::size_t k) {
  if constexpr (!Upper) return (k & D) == 0 ? int(k) : int(W + k - D);
  else return (k & D) == 0 ? int(k + D) : int(W + k);
}
template <std::size_t D, class V, std::size_t... K>
[[gnu::always_inline]] inline void swap_blocks(V& a, V& b, std::index_sequence<K...>) {
  constexpr std::size_t W = sizeof...(K);
  const V lower = __builtin_shufflevector(a, b, swap_blocks_index<W, D, false>(K)...);
  const V upper = __builtin_shufflevector(a, b, swap_blocks_index<W, D, true>(K)...);
  a = lower;
  b = upper;
}
// Every index below is a constant (a fold over an index sequence, no loop):
// g++ 12 keeps an array of vectors that a loop indexes on the stack, and
// reads back each row it has just stored there, a store-forwarding stall a
// row (AVX2, Model A in cache, double: 258 against 59 ns an instance).
template <std::size_t D, std::size_t I, std::size_t W, class V>
[[gnu::always_inline]] inline void swap_if_first(V (&rows)[W]) {
  if constexpr ((I & D) == 0) swap_blocks<D>(rows[I], rows[I + D], std::make_index_sequence<W>{});
}
template <std::size_t D, std::size_t W, class V, std::size_t... I>
[[gnu::always_inline]] inline void transpose_round(V (&rows)[W], std::index_sequence<I...>) {
  (swap_if_first<D, I>(rows), ...);
}
template <std::size_t D, std::size_t W, class V>
[[gnu::always_inline]] inline void transpose_rounds(V (&rows)[W]) {
  if constexpr (D >= 1) {
    transpose_round<D>(rows, std::make_index_sequence<W>{});
    transpose_rounds<D / 2>(rows);
  }
}
#endif

// rows[i][k] <- rows[k][i] for W rows of W lanes.
template <std::size_t W, class V>
[[gnu::always_inline]] inline void transpose_in_registers(V (&rows)[W]) {
#if FLUXION_HAS_SHUFFLEVECTOR
  transpose_rounds<W / 2>(rows);
#else
  for (std::size_t i = 0; i < W; ++i)
    for (std::size_t k = i + 1; k < W; ++k) {
      const auto v = rows[i][k];
      rows[i][k] = rows[k][i];
      rows[k][i] = v;
    }
#endif
}

// W vectors at from + r * from_stride (r < W), transposed, to
// to + r * to_stride: W elements of W records into W vectors of lanes, or
// back. Always inlined: as a call, its W vectors go through memory (Model
// A in cache, double: 114 against 72 ns an instance).
template <std::size_t W, class V, class T, std::size_t... R>
[[gnu::always_inline]] inline void transpose_block(const T* from, std::ptrdiff_t from_stride, T* to,
                                                   std::ptrdiff_t to_stride, std::index_sequence<R...>) {
  V rows[W];
  (std::memcpy(&rows[R], from + std::ptrdiff_t(R) * from_stride, sizeof(V)), ...);
  transpose_in_registers(rows);
  (std::memcpy(to + std::ptrdiff_t(R) * to_stride, &rows[R], sizeof(V)), ...);
}
template <std::size_t W, class V, class T>
[[gnu::always_inline]] inline void transpose_block(const T* from, std::ptrdiff_t from_stride, T* to,
                                                   std::ptrdiff_t to_stride) {
  transpose_block<W, V>(from, from_stride, to, to_stride, std::make_index_sequence<W>{});
}

// Both directions start the whole vectors at a vector boundary of the first
// record (the elements before it, and after the last whole vector, one value
// at a time): vectors that straddle two cache lines cost two accesses (Model
// A in cache, double: 134-146 against 76-79 ns an instance); buffers from
// std::vector or malloc are only 16-byte aligned, and in records a multiple
// of the vector long, every record is aligned alike.
//
// lanes[j * W + i] = src[i * instance_stride + j] for the N elements of W
// instances (rows of N values, instance_stride apart; 0: one row for all).
// after_block() runs after each W x W block (the batch driver spreads its
// requests for later groups' records over them).
struct no_step {
  void operator()() const {}
};
template <class L, std::size_t N, class T = typename L::value_type, class AfterBlock = no_step>
void load_transposed(const T* src, std::ptrdiff_t instance_stride, T* lanes, AfterBlock after_block = {}) {
  constexpr std::size_t W = L::width;
  using V = typename L::vector;
  const auto one_by_one = [&](std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j)
      for (std::size_t i = 0; i < W; ++i) lanes[j * W + i] = src[std::ptrdiff_t(i) * instance_stride + j];
  };
  std::size_t j = std::min(N, values_to_boundary(src, sizeof(V)));
  one_by_one(0, j);
  for (; j + W <= N; j += W) {
    transpose_block<W, V>(src + j, instance_stride, lanes + j * W, W);
    after_block();
  }
  one_by_one(j, N);
}

// The reverse: dst[i * instance_stride + j] = lanes[j * W + i].
template <class L, std::size_t N, class T = typename L::value_type>
void store_transposed(const T* lanes, T* dst, std::ptrdiff_t instance_stride) {
  constexpr std::size_t W = L::width;
  using V = typename L::vector;
  const auto one_by_one = [&](std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j)
      for (std::size_t i = 0; i < W; ++i) dst[std::ptrdiff_t(i) * instance_stride + j] = lanes[j * W + i];
  };
  std::size_t j = std::min(N, values_to_boundary(dst, sizeof(V)));
  one_by_one(0, j);
  for (; j + W <= N; j += W) transpose_block<W, V>(lanes + j * W, W, dst + j, instance_stride);
  one_by_one(j, N);
}

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
