#pragma once
// A host batch spread over threads: for_ranges cuts [0, count) into
// contiguous ranges, at most fx::host::threads::count of them and none
// shorter than its min_values allow, and calls f(begin, end) on each, the
// first on the calling thread. Every host driver (evaluations, integrations,
// log-densities) maps its instances through it. The thread type is only
// declared here: <fluxion/exec/host_threads.hpp> defines it as std::thread,
// so that <thread> is read where a batch is run, not where this is.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <type_traits>
#include <vector>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/exec/threads.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

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

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
