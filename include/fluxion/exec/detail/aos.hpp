#pragma once
// Array-of-structures host batches (element stride 1 in every buffer):
// right-hand sides several instances at once, each group's records
// transposed into SIMD lanes and back (exec/detail/transpose.hpp), and
// every call one instance at a time with the unit element strides known at
// compile time, the records ahead requested into the cache in batches
// larger than it.
#include <algorithm>
#include <cstddef>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/exec/detail/alignment.hpp>
#include <fluxion/exec/detail/instances.hpp>
#include <fluxion/exec/detail/prefetch.hpp>
#include <fluxion/exec/detail/streaming.hpp>
#if !defined(__CUDACC__)
#  include <fluxion/exec/detail/transpose.hpp>
#endif

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

// Array-of-structures instances at least this large are prefetched ahead,
// in ranges of at least this many bytes (beyond L2; in cache, prefetching
// only costs instructions).
inline constexpr std::size_t aos_prefetch_from_bytes = 256;
inline constexpr std::size_t aos_prefetch_from_batch_bytes = std::size_t(8) << 20;
// The lanes path of array-of-structures right-hand sides requests the
// records of the group this many groups ahead (1, 2 and 4 timed alike), in
// ranges of at least this many bytes: Model A gained about a tenth at 87 MB
// and beyond, nothing or lost 6% at 22-44 MB, and lost a fifth at 11 MB
// (double, B = 4096), where L3 and its own prefetchers serve it.
inline constexpr std::size_t aos_lanes_prefetch_groups = 2;
inline constexpr std::size_t aos_lanes_prefetch_from_batch_bytes = std::size_t(64) << 20;

#if !defined(__CUDACC__)
// Right-hand sides of array-of-structures batches (element stride 1 in
// every buffer), at least L::width instances: L::width at a time, each
// group's rows transposed into lanes in a small buffer (exec/detail/
// transpose.hpp), evaluated there, and transposed back into the rows of the
// outputs (Model A, B = 264: 142 -> 75 ns an instance in double, 133 -> 48
// in float; the transposes cost about as much as the evaluation). Beyond L2
// the outputs leave through streaming stores when their rows are contiguous.
// The last group ends at `end`, overlapping the one before it (its instances
// evaluated twice, to the same values). Inputs with instance stride 0
// (broadcast) are transposed once. In ranges of 64 MiB or more, the records
// of a group further on are requested a slice at a time between the
// transposes (Model A, B = 65536: about a tenth less time, here and on the
// H200 machine's CPU), for inputs whose records leave less than a line
// between them, so that every line requested holds inputs.
template <class L, class M>
void rhs_aos_lanes(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c, std::size_t begin,
                   std::size_t end) {
  using T = typename M::scalar;
  constexpr std::size_t W = L::width, n_out = M::n_states;
  constexpr fluxion::detail::fixed_stride<W> lane_stride{};
  line_aligned_scratch<T> buffer((M::n_states + M::n_params + 2 * n_out) * W);
  T* const xl = buffer.data();
  T* const pl = xl + M::n_states * W;
  T* const ol = pl + M::n_params * W;
  T* const rows = ol + n_out * W;  // outputs transposed back, for streaming
  const std::size_t range_bytes = (end - begin) * (M::n_states + M::n_params + n_out) * sizeof(T);
  const bool stream_out = std::size_t(c.out.instance_stride) == n_out && range_bytes >= stream_from_batch_bytes;
  const bool prefetch = range_bytes >= aos_lanes_prefetch_from_batch_bytes;
  const auto add_records = [](spread_prefetch& to, const checked_buffer<const T>& in, std::size_t n, std::size_t i) {
    const std::size_t stride = std::size_t(in.instance_stride);
    if (stride != 0 && (stride - std::min(stride, n)) * sizeof(T) < cache_line_bytes)
      to.add(at_instance(in, i), ((W - 1) * stride + n) * sizeof(T));
  };
  if (c.x.instance_stride == 0) load_transposed<L, M::n_states>(c.x.data, 0, xl);
  if (c.p.instance_stride == 0) load_transposed<L, M::n_params>(c.p.data, 0, pl);
  const auto group_at = [&](std::size_t i) {
    spread_prefetch ahead;
    if (prefetch && i + (aos_lanes_prefetch_groups + 1) * W <= end) {
      add_records(ahead, c.x, M::n_states, i + aos_lanes_prefetch_groups * W);
      add_records(ahead, c.p, M::n_params, i + aos_lanes_prefetch_groups * W);
      ahead.slice(M::n_states / W + M::n_params / W);  // the transpose blocks below
    }
    const auto step = [&ahead] { ahead.step(); };
    if (c.x.instance_stride != 0)
      load_transposed<L, M::n_states>(at_instance(c.x, i), c.x.instance_stride, xl, step);
    if (c.p.instance_stride != 0)
      load_transposed<L, M::n_params>(at_instance(c.p, i), c.p.instance_stride, pl, step);
    ahead.finish();
    m.template rhs_lanes<L>(t, xl, lane_stride, pl, lane_stride, ol, lane_stride);
    if (stream_out) {
      store_transposed<L, n_out>(ol, rows, n_out);
      copy_streaming(rows, W * n_out, at_instance(c.out, i));
    } else {
      store_transposed<L, n_out>(ol, at_instance(c.out, i), c.out.instance_stride);
    }
  };
  std::size_t b = begin;
  for (; b + W <= end; b += W) group_at(b);
  if (b < end) group_at(end - W);
  if (stream_out) streaming_done();
}
#endif

// Array-of-structures batches one instance at a time, the unit element
// strides known at compile time. In a batch larger than the caches,
// instances of many values cross a page every few instances, where the
// hardware prefetchers stop; so the lines of the instance about 4 KiB ahead
// are requested now (read for the inputs, write for the output).
template <bool Observe, class M>
void evaluate_aos(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c, std::size_t begin,
                  std::size_t end) {
  using T = typename M::scalar;
  constexpr std::size_t n_out = Observe ? M::n_observables : M::n_states;
  constexpr std::size_t instance_bytes = (M::n_states + M::n_params + n_out) * sizeof(T);
  constexpr std::size_t ahead =
      instance_bytes >= aos_prefetch_from_bytes ? std::max<std::size_t>(1, 4096 / instance_bytes) : 0;
  constexpr std::size_t line = cache_line_bytes / sizeof(T);
  const bool prefetch = (end - begin) * instance_bytes >= aos_prefetch_from_batch_bytes;
  for (std::size_t b = begin; b < end; ++b) {
    if constexpr (ahead > 0) {
      if (prefetch && b + ahead < end) {
        const T* const x_next = at_instance(c.x, b + ahead);
        const T* const p_next = at_instance(c.p, b + ahead);
        T* const out_next = at_instance(c.out, b + ahead);
        for (std::size_t j = 0; j < M::n_states; j += line) __builtin_prefetch(x_next + j, 0, 3);
        for (std::size_t j = 0; j < M::n_params; j += line) __builtin_prefetch(p_next + j, 0, 3);
        for (std::size_t j = 0; j < n_out; j += line) __builtin_prefetch(out_next + j, 1, 3);
      }
    }
    if constexpr (Observe) m.observe(t, at_instance(c.x, b), at_instance(c.p, b), at_instance(c.out, b));
    else m.rhs(t, at_instance(c.x, b), at_instance(c.p, b), at_instance(c.out, b));
  }
}

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
