#pragma once
// Structure-of-arrays host batches (instance stride 1 in every buffer):
// several instances at once in the host's SIMD lanes (fluxion::lanes), and,
// when the element streams lie far apart (a large batch), through tiles
// that copy a few whole cache lines of every element into a buffer that
// stays in cache, evaluate there and leave through streaming stores.
#include <algorithm>
#include <cstddef>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/detail/alignment.hpp>
#include <fluxion/exec/detail/instances.hpp>
#include <fluxion/exec/detail/streaming.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

// Structure-of-arrays batches go through tiles (evaluate_soa_lanes) when their
// element streams are at least this far apart; a tile spans up to
// tile_max_lines cache lines of each element, and its buffer up to
// tile_buffer_bytes (so that it stays in L2).
inline constexpr std::size_t tile_from_stride_bytes = FLUXION_TILE_FROM_STRIDE_BYTES;
inline constexpr std::size_t tile_max_lines = 16;
inline constexpr std::size_t tile_buffer_bytes = 256 * 1024;

// Instances a tile holds: whole cache lines of each element (and whole
// groups of lanes), as many as the buffer budget allows, at least one line.
template <class T, std::size_t Width>
constexpr std::size_t soa_tile_instances(std::size_t elements) {
  constexpr std::size_t line = std::max<std::size_t>(Width, cache_line_bytes / sizeof(T));
  const std::size_t lines = tile_buffer_bytes / (elements * sizeof(T) * line);
  return line * std::clamp<std::size_t>(lines, 1, tile_max_lines);
}

// A tile of a structure-of-arrays batch copied to (or from) a small
// contiguous buffer, element-major with element stride `tile`: element j of
// instances [b, b + tile) is `tile` consecutive values at src + j * stride.
template <class T>
void gather_tile(const T* src, std::ptrdiff_t stride, std::size_t elements, std::size_t tile, T* dst) {
  for (std::size_t j = 0; j < elements; ++j)
    std::copy_n(src + std::ptrdiff_t(j) * stride, tile, dst + j * tile);
}
// With `streaming`, through streaming stores (the caller ends with
// streaming_done()).
template <class T>
void scatter_tile(const T* src, std::size_t elements, std::size_t tile, T* dst, std::ptrdiff_t stride,
                  bool streaming = false) {
  for (std::size_t j = 0; j < elements; ++j) {
    if (streaming) copy_streaming(src + j * tile, tile, dst + std::ptrdiff_t(j) * stride);
    else std::copy_n(src + j * tile, tile, dst + std::ptrdiff_t(j) * stride);
  }
}

// Requests a tile's lines (as gather_tile reads them) into the L2 cache.
template <class T>
void prefetch_tile(const T* src, std::ptrdiff_t stride, std::size_t elements, std::size_t tile) {
  constexpr std::size_t line = cache_line_bytes / sizeof(T);
  for (std::size_t j = 0; j < elements; ++j, src += stride)
    for (std::size_t i = 0; i < tile; i += line) __builtin_prefetch(src + i, 0, 2);
}

#if !defined(__CUDACC__)
// Structure-of-arrays batches (instance stride 1 in every buffer), at least
// L::width instances: L::width at a time through m.*_lanes.
template <bool Observe, class L, class M>
void evaluate_soa_lanes(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c,
                        std::size_t begin, std::size_t end) {
  using T = typename M::scalar;
  constexpr std::size_t n_out = Observe ? M::n_observables : M::n_states;
  constexpr std::size_t values_per_instance = M::n_states + M::n_params + n_out;
  const auto lanes_at = [&](const T* x, auto xs, const T* p, auto ps, T* out, auto os) {
    if constexpr (Observe) m.template observe_lanes<L>(t, x, xs, p, ps, out, os);
    else m.template rhs_lanes<L>(t, x, xs, p, ps, out, os);
  };
  // The group of lanes of instances [i, i + L::width) in the caller's buffers.
  const auto group_at = [&](std::size_t i) {
    lanes_at(at_instance(c.x, i), c.x.element_stride, at_instance(c.p, i), c.p.element_stride, at_instance(c.out, i),
             c.out.element_stride);
  };
  // Lanes load and store whole vectors. Buffers from std::vector or malloc
  // are 16-byte aligned, rarely vector-aligned, and then every vector
  // straddles two cache lines (a third of the time of an f64 batch in
  // cache). So the first group of lanes starts at `begin`, unaligned, and
  // the next at the first vector-aligned state, the groups overlapping (their
  // instances are evaluated twice, to the same values); the other buffers
  // are aligned with the states when they were allocated alike. The last
  // group ends at `end`, overlapping the one before it, so that no instance
  // is left to the scalar code.
  std::size_t b = begin;
  if (const std::size_t to_aligned = values_to_boundary(at_instance(c.x, b), sizeof(L)); to_aligned != 0) {
    group_at(b);
    b += to_aligned;
  }
  // Every element of a structure-of-arrays batch is its own memory stream.
  // When they lie far apart (a large batch), hundreds of them compete for
  // the same cache sets and defeat the prefetchers, and a line is evicted
  // before the next group of lanes reads the rest of it. So instances go
  // through tiles: a few consecutive lines of each element are copied,
  // whole, into a buffer that stays in cache (the next tile's lines are
  // requested meanwhile), the lanes evaluate there, and the outputs leave as
  // whole lines, with streaming stores (memory is the bound here, and a
  // normal store reads each line first). Right-hand sides only: observables
  // usually read a few of the states, and a tile copies every element
  // (Model A's observe at B = 65536: 195 ns an instance through tiles, 157
  // without, in double).
  constexpr std::size_t tile = soa_tile_instances<T, L::width>(values_per_instance);
  const bool far_apart = std::size_t(std::max({c.x.element_stride, c.p.element_stride, c.out.element_stride})) *
                             sizeof(T) >= tile_from_stride_bytes;
  if (!Observe && far_apart && end - b >= tile) {
    line_aligned_scratch<T> buffer(values_per_instance * tile);
    T* const xt = buffer.data();
    T* const pt = xt + M::n_states * tile;
    T* const ot = pt + M::n_params * tile;
    const bool stream_out = (end - b) * values_per_instance * sizeof(T) >= stream_from_batch_bytes;
    for (; b + tile <= end; b += tile) {
      gather_tile(at_instance(c.x, b), c.x.element_stride, M::n_states, tile, xt);
      gather_tile(at_instance(c.p, b), c.p.element_stride, M::n_params, tile, pt);
      if (b + 2 * tile <= end) {
        prefetch_tile(at_instance(c.x, b + tile), c.x.element_stride, M::n_states, tile);
        prefetch_tile(at_instance(c.p, b + tile), c.p.element_stride, M::n_params, tile);
      }
      for (std::size_t l = 0; l < tile; l += L::width)
        lanes_at(xt + l, fluxion::detail::fixed_stride<tile>{}, pt + l, fluxion::detail::fixed_stride<tile>{}, ot + l,
                 fluxion::detail::fixed_stride<tile>{});
      scatter_tile(ot, n_out, tile, at_instance(c.out, b), c.out.element_stride, stream_out);
    }
    if (stream_out) streaming_done();
  }
  for (; b + L::width <= end; b += L::width) group_at(b);
  if (b < end) group_at(end - L::width);
}
#endif

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
