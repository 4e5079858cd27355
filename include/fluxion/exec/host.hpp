#pragma once
// Host batch drivers. Every buffer is validated against the layout before the
// first output element is written; inputs are read through const pointers and
// never modified.
//
//   M m;
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx));
//   fx::host::observe(m, t, B, fx::aos(x), fx::broadcast(p), fx::aos(y));
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx), fx::host::threads(8));
//
// Batches whose instances are consecutive in every buffer (structure-of-
// arrays) are evaluated several instances at once with the host's SIMD units
// (fluxion::lanes), and so are the right-hand sides of batches whose
// elements are consecutive (array-of-structures records, transposed into
// lanes and back); the rest one instance at a time. fx::host::threads(n)
// spreads a batch over up to n threads, each on a contiguous range of
// instances. A batch with nothing to write (no instances, or an output block
// of no elements) returns once its buffers are checked.
//
// The threads themselves are defined by <fluxion/exec/host_threads.hpp>, which
// <fluxion/fluxion.hpp> includes and <fluxion/cuda.hpp> does not: <thread>
// costs an nvcc translation unit about a second in its three front ends, and
// a unit that only launches kernels never starts one.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <span>
#include <type_traits>
#include <vector>

#include <fluxion/config/tuning.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/compile/concepts.hpp>
#include <fluxion/compile/sparsity.hpp>
#include <fluxion/exec/check.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/exec/detail/alignment.hpp>
#include <fluxion/exec/detail/prefetch.hpp>
#include <fluxion/exec/detail/streaming.hpp>
#if !defined(__CUDACC__)
#  include <fluxion/exec/lanes.hpp>
#  include <fluxion/exec/detail/transpose.hpp>
#endif

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN

// How many threads a batch call uses (1: the calling thread only). Starting
// a thread costs tens of microseconds, so each one is given at least
// `min_values` values to read and write (instances times the values each
// reads and writes); smaller batches use fewer threads.
struct threads {
  static constexpr std::size_t default_min_values = std::size_t(1) << 18;
  unsigned count = 1;
  std::size_t min_values = default_min_values;
  // Ensembles (solve/host.hpp): trajectories of explicit methods several at a
  // time in SIMD lanes; false: one trajectory at a time.
  bool simd_lanes = true;
  constexpr threads() = default;
  constexpr explicit threads(unsigned n, std::size_t min_values_per_thread = default_min_values)
      : count(n > 0 ? n : 1), min_values(min_values_per_thread) {}
};

// The SIMD width, in bytes, that the batch drivers' lanes use here (0 when
// compiled by nvcc, whose host pass evaluates one instance at a time).
#if defined(__CUDACC__)
inline constexpr std::size_t simd_bytes_used = 0;
#else
inline constexpr std::size_t simd_bytes_used = simd_bytes;
#endif

namespace detail {

using fluxion::detail::check_call;  // exec/check.hpp, shared with the CUDA launchers
using fluxion::detail::check_pattern_nnz;
using fluxion::detail::checked_call;

// The length of each range for_ranges hands out for `count` instances (the
// last one may be shorter): a multiple of `grain` (so that SIMD groups do not
// straddle threads), at least exec.min_values / values_per_instance
// instances, and long enough that at most exec.count ranges cover [0, count).
// `count` when the batch stays on one thread.
inline std::size_t range_length(std::size_t count, threads exec, std::size_t grain, std::size_t values_per_instance) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t min_instances = std::max<std::size_t>(
      grain, exec.min_values / std::max<std::size_t>(values_per_instance, 1));
  const std::size_t chunks = std::min<std::size_t>(exec.count, std::max<std::size_t>(count / min_instances, 1));
  if (chunks <= 1) return count;
  // ceil(count / chunks), rounded up to a multiple of grain: never more than
  // `chunks` ranges (count / chunks rounded down would leave a remainder
  // for one more thread). chunks <= count / grain here, so nothing overflows.
  const std::size_t share = count / chunks + (count % chunks != 0);
  return (share + grain - 1) / grain * grain;
}

// The thread type for_ranges starts, std::thread, defined by
// <fluxion/exec/host_threads.hpp>. Its argument only makes it depend on the
// caller's template, so that <thread> is needed where a batch is run, not
// where this header is read.
template <class F>
struct host_thread;

template <class T, class = void>
struct is_complete : std::false_type {};
template <class T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
// Stands in for the thread type where it is missing, so that the
// static_assert below is the only error.
struct no_host_thread {
  struct type {
    template <class G>
    explicit type(G&&) {}
    void join() {}
  };
};

// Calls f(begin, end) on contiguous ranges covering [0, count), each
// range_length long but the last: on the calling thread and up to
// exec.count - 1 more. Falls back to fewer threads if the system refuses to
// start one. An exception thrown by f (std::bad_alloc of a range's scratch,
// say) on any thread reaches the caller once every thread has joined,
// instead of ending the process; the first range's, if several throw.
template <class F>
void for_ranges(std::size_t count, threads exec, std::size_t grain, std::size_t values_per_instance, const F& f) {
  static_assert(is_complete<host_thread<F>>::value,
                "fluxion::host: a host batch, integration or log-density runs on host threads, which "
                "<fluxion/fluxion.hpp> defines: include it in this translation unit (<fluxion/cuda.hpp> and "
                "<fluxion/core.hpp> leave <thread> out).");
  using thread =
      typename fluxion::detail::if_t<is_complete<host_thread<F>>::value, host_thread<F>, no_host_thread>::type;
  const std::size_t per = range_length(count, exec, grain, values_per_instance);
  if (per >= count) {
    f(std::size_t{0}, count);
    return;
  }
  // Range k is [k per, (k + 1) per); each keeps what it throws.
  std::vector<std::exception_ptr> thrown((count - 1) / per + 1);
  const auto run = [&f, &thrown, per](std::size_t begin, std::size_t end) noexcept {
    try {
      f(begin, end);
    } catch (...) {
      thrown[begin / per] = std::current_exception();
    }
  };
  std::vector<thread> pool;
  pool.reserve((count - 1) / per);
  std::size_t begin = per;  // [0, per) runs on this thread
  while (begin < count) {
    const std::size_t end = count - begin > per ? begin + per : count;
    try {
      pool.emplace_back([&run, begin, end] { run(begin, end); });
    } catch (...) {
      break;  // no more threads: the rest runs here
    }
    begin = end;
  }
  run(std::size_t{0}, per);
  if (begin < count) run(begin, count);
  for (auto& th : pool) th.join();
  for (const auto& e : thrown)
    if (e) std::rethrow_exception(e);
}

inline constexpr std::size_t range_grain = 64;
// Structure-of-arrays batches go through tiles (evaluate_soa_lanes) when their
// element streams are at least this far apart; a tile spans up to
// tile_max_lines cache lines of each element, and its buffer up to
// tile_buffer_bytes (so that it stays in L2).
inline constexpr std::size_t tile_from_stride_bytes = FLUXION_TILE_FROM_STRIDE_BYTES;
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
// Tiles write their outputs with streaming stores in ranges of at least
// this many bytes (beyond L2; in cache, the outputs are better left there).
inline constexpr std::size_t stream_from_batch_bytes = FLUXION_STREAM_FROM_BATCH_BYTES;
inline constexpr std::size_t tile_max_lines = 16;
inline constexpr std::size_t tile_buffer_bytes = 256 * 1024;

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

// Instances a tile holds: whole cache lines of each element (and whole
// groups of lanes), as many as the buffer budget allows, at least one line.
template <class T, std::size_t Width>
constexpr std::size_t soa_tile_instances(std::size_t elements) {
  constexpr std::size_t line = std::max<std::size_t>(Width, cache_line_bytes / sizeof(T));
  const std::size_t lines = tile_buffer_bytes / (elements * sizeof(T) * line);
  return line * std::clamp<std::size_t>(lines, 1, tile_max_lines);
}

// Instance b's pointers into a validated buffer.
template <class T>
auto at_instance(const checked_buffer<T>& c, std::size_t b) {
  return c.data + std::ptrdiff_t(b) * c.instance_stride;
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

// Instances [from, to), one at a time, any strides. Observables when Observe.
template <bool Observe, class M>
void evaluate_one_at_a_time(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c,
                            std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    if constexpr (Observe)
      m.observe(t, at_instance(c.x, i), c.x.element_stride, at_instance(c.p, i), c.p.element_stride,
                at_instance(c.out, i), c.out.element_stride);
    else
      m.rhs(t, at_instance(c.x, i), c.x.element_stride, at_instance(c.p, i), c.p.element_stride,
            at_instance(c.out, i), c.out.element_stride);
  }
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

// Evaluates instances [begin, end) by the fastest path their buffers allow:
// SIMD lanes across instances for structure-of-arrays batches, and for the
// right-hand sides of array-of-structures batches; unit element strides at
// compile time for other array-of-structures calls; any strides otherwise.
// Observables when Observe.
template <bool Observe, class M>
void evaluate_range(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c, std::size_t begin,
                    std::size_t end) {
  using T = typename M::scalar;
  const bool unit_elements = c.x.element_stride == 1 && c.p.element_stride == 1 && c.out.element_stride == 1;
#if !defined(__CUDACC__)
  if constexpr (std::is_floating_point_v<T>) {
    using L = lanes<T>;
    if (end - begin >= L::width) {
      if (c.x.instance_stride == 1 && c.p.instance_stride == 1 && c.out.instance_stride == 1)
        return evaluate_soa_lanes<Observe, L>(m, t, c, begin, end);
      // Observables usually read a few of the states; transposing all of
      // them would cost more than it saves.
      if constexpr (!Observe && register_transpose)
        if (unit_elements) return rhs_aos_lanes<L>(m, t, c, begin, end);
    }
  }
#endif
  if (unit_elements) return evaluate_aos<Observe>(m, t, c, begin, end);
  evaluate_one_at_a_time<Observe>(m, t, c, begin, end);
}
}  // namespace detail

// d(state)/dt for `count` instances.
template <compiled_model M>
void rhs(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
         batch<const typename M::scalar> p, batch<typename M::scalar> dx, threads exec = threads{}) {
  const auto c = detail::check_call<M>(count, x, p, dx, "state derivative", M::n_states);
  if (count == 0 || M::n_states == 0) return;  // nothing to write
  detail::for_ranges(count, exec, detail::range_grain, 2 * M::n_states + M::n_params,
                     [&](std::size_t b, std::size_t e) { detail::evaluate_range<false>(m, t, c, b, e); });
}

// Observables for `count` instances.
template <compiled_model M>
void observe(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
             batch<const typename M::scalar> p, batch<typename M::scalar> y, threads exec = threads{}) {
  const auto c = detail::check_call<M>(count, x, p, y, "observable", M::n_observables);
  if (count == 0 || M::n_observables == 0) return;  // nothing to write
  detail::for_ranges(count, exec, detail::range_grain, M::n_states + M::n_params + M::n_observables,
                     [&](std::size_t b, std::size_t e) { detail::evaluate_range<true>(m, t, c, b, e); });
}

// Dense Jacobians for `count` instances: each instance's rows x columns
// matrix, row-major, is one batch element block (J is M::jacobian::x, p,
// obs_x or obs_p).
template <class M, typename M::jacobian J>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, threads exec = threads{}) {
  using shape = typename M::template jacobian_shape<J>;
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian", shape::rows * shape::columns);
  if (count == 0 || shape::rows * shape::columns == 0) return;  // nothing to write
  detail::for_ranges(count, exec, 1, M::n_states + M::n_params + shape::rows * shape::columns,
                     [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      m.template jacobian_dense<J>(t, detail::at_instance(c.x, b), c.x.element_stride, detail::at_instance(c.p, b),
                                   c.p.element_stride, detail::at_instance(c.out, b), c.out.element_stride);
  });
}

// Sparse Jacobian values (CSR order of fluxion::jacobian_pattern<M, J>, nnz
// per instance) for `count` instances.
template <class M, typename M::jacobian J>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     threads exec = threads{}) {
  detail::check_pattern_nnz<M, J>(nnz);
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian values", nnz);
  if (count == 0 || nnz == 0) return;  // nothing to write
  detail::for_ranges(count, exec, 1, M::n_states + M::n_params + nnz, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      m.template jacobian_values<J>(t, detail::at_instance(c.x, b), c.x.element_stride, detail::at_instance(c.p, b),
                                    c.p.element_stride, detail::at_instance(c.out, b), c.out.element_stride);
  });
}

// The same with the model deduced: fluxion::host::jacobian_values<M::jacobian::x>(m, ...).
// Prefer this form in .cu files (see fluxion::jacobian_kind).
template <jacobian_kind J, class M>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, threads exec = threads{}) {
  jacobian_dense<M, J>(m, t, count, x, p, out, exec);
}
template <jacobian_kind J, class M>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     threads exec = threads{}) {
  jacobian_values<M, J>(m, t, count, x, p, out, nnz, exec);
}

namespace detail {
// (d rhs / d state) v when States, else (d rhs / d parameters) v.
template <bool States, class M>
void jvp(const M& m, typename M::scalar t, std::size_t count, const batch<const typename M::scalar>& x,
         const batch<const typename M::scalar>& p, const batch<const typename M::scalar>& v,
         const batch<typename M::scalar>& out, threads exec) {
  const auto c = check_call<M>(count, x, p, out, "state derivative", M::n_states, &v,
                               States ? M::n_states : M::n_params);
  const auto& cv = c.v;
  if (count == 0 || M::n_states == 0) return;  // nothing to write
  for_ranges(count, exec, range_grain, 3 * M::n_states + 2 * M::n_params, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      if constexpr (States)
        m.jvp_x(t, at_instance(c.x, b), c.x.element_stride, at_instance(c.p, b), c.p.element_stride,
                at_instance(cv, b), cv.element_stride, at_instance(c.out, b), c.out.element_stride);
      else
        m.jvp_p(t, at_instance(c.x, b), c.x.element_stride, at_instance(c.p, b), c.p.element_stride,
                at_instance(cv, b), cv.element_stride, at_instance(c.out, b), c.out.element_stride);
    }
  });
}
}  // namespace detail

// Jacobian-vector products (d rhs/d state) v and (d rhs/d parameters) v for
// `count` instances; v is laid out like the states (jvp_x) or parameters (jvp_p).
template <compiled_model M>
void jvp_x(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           threads exec = threads{}) {
  detail::jvp<true>(m, t, count, x, p, v, out, exec);
}
template <compiled_model M>
void jvp_p(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           threads exec = threads{}) {
  detail::jvp<false>(m, t, count, x, p, v, out, exec);
}

// One instance, contiguous buffers.
template <compiled_model M>
void rhs(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
         std::span<const typename M::scalar> p, std::span<typename M::scalar> dx) {
  rhs(m, t, 1, aos(x), aos(p), aos(dx));
}
template <compiled_model M>
void observe(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
             std::span<const typename M::scalar> p, std::span<typename M::scalar> y) {
  observe(m, t, 1, aos(x), aos(p), aos(y));
}

// Something else than a compiled model: one sentence naming the concept
// (compile/concepts.hpp) instead of a list of candidates.
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto rhs(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto observe(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto jvp_x(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto jvp_p(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}

FLUXION_HOST_ABI_END
}  // namespace fluxion::host
