#pragma once
// Requests for the cache lines of a few memory spans (the records of the
// next groups of an array-of-structures batch), into L2, a slice at a time:
// the batch driver spreads them over the transposes of the group in hand.
// Issued at once, a group's ~200 requests stall the loads behind them (Model
// A beyond L2: no faster than none); spread, they save about a tenth of the
// time (see docs/reference/performance.md). A request never faults, so a span may
// extend past what the caller owns by the part of a line. Host only.
#include <cstddef>
#include <cstdint>

#include <fluxion/config/macros.hpp>
#include <fluxion/exec/detail/alignment.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

class spread_prefetch {
 public:
  static constexpr std::size_t max_spans = 2;

  // The lines that hold bytes [first, first + bytes).
  void add(const void* first, std::size_t bytes) {
    if (spans_ == max_spans || bytes == 0) return;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(first);
    const std::uintptr_t from = a - a % cache_line_bytes;
    next_[spans_] = from;
    left_[spans_] = (a + bytes - from + cache_line_bytes - 1) / cache_line_bytes;
    total_ += left_[spans_];
    ++spans_;
  }
  // Divides the lines into `slices` slices (at least one), one a step().
  void slice(std::size_t slices) {
    per_step_ = (total_ + (slices ? slices : 1) - 1) / (slices ? slices : 1);
  }
  void step() { issue(per_step_); }
  // Whatever the steps left: a group may take fewer steps than slices.
  void finish() { issue(total_); }

  // Lines added, and those not requested yet.
  std::size_t lines() const { return total_; }
  std::size_t pending() const {
    std::size_t n = 0;
    for (std::size_t s = current_; s < spans_; ++s) n += left_[s];
    return n;
  }

 private:
  void issue(std::size_t n) {
    for (; n > 0 && current_ < spans_; --n) {
      __builtin_prefetch(reinterpret_cast<const void*>(next_[current_]), 0, 2);
      next_[current_] += cache_line_bytes;
      if (--left_[current_] == 0) ++current_;
    }
  }

  std::uintptr_t next_[max_spans] = {};
  std::size_t left_[max_spans] = {};
  std::size_t spans_ = 0, current_ = 0, total_ = 0, per_step_ = 0;
};

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
