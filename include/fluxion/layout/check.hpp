#pragma once
// Run-time checks of user buffers against the layout, done on the host before
// anything is written: null pointers, misalignment, strides, sizes, outputs
// that would write one address twice, and inputs overlapping outputs.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/error.hpp>

namespace fluxion {

// A validated buffer: where a batch lies and which bytes it touches.
template <class T>
struct checked_buffer {
  T* data;
  std::ptrdiff_t element_stride;
  std::ptrdiff_t instance_stride;
  std::uintptr_t first_byte;  // of the touched range
  std::uintptr_t end_byte;    // one past the touched range
};

namespace detail {
inline std::string strides_text(std::size_t count, std::size_t n, std::ptrdiff_t es, std::ptrdiff_t is) {
  return std::to_string(count) + " instance(s) of " + std::to_string(n) + " element(s) with element stride " +
         std::to_string(es) + " and instance stride " + std::to_string(is);
}
}  // namespace detail

// Checks one buffer meant for `count` instances of the `n` elements of
// `block`. Outputs must not map two elements to one address. A block with no
// elements (n = 0: a model without observables, a Jacobian without
// non-zeros) is checked like any other, its strides included; it needs no
// storage (a null or empty buffer is fine) and touches no byte. A batch of no
// instances touches nothing either, and only its explicit strides
// (fx::strided) are checked.
template <class T>
checked_buffer<T> check_buffer(const std::string& block, const batch<T>& b, std::size_t n, std::size_t count,
                               bool output) {
  constexpr auto largest_stride = std::size_t(std::numeric_limits<std::ptrdiff_t>::max());
  if (b.order == batch_order::soa) {
    // A structure-of-arrays element stride is the pitch, or else the
    // instance count: a std::ptrdiff_t, like every stride.
    if (b.pitch != 0 && b.pitch < count)
      throw layout_error(block, "structure-of-arrays pitch is smaller than the " + std::to_string(count) +
                                    " instance(s) of the batch", count, b.pitch);
    if (b.pitch > largest_stride)
      throw layout_error(block, "structure-of-arrays pitch of " + std::to_string(b.pitch) +
                                    " values exceeds PTRDIFF_MAX, the largest element stride", largest_stride,
                         b.pitch);
    if (b.pitch == 0 && count > largest_stride)
      throw layout_error(block, "a structure-of-arrays batch of " + std::to_string(count) +
                                    " instances exceeds PTRDIFF_MAX instances (its element stride is the "
                                    "instance count; a stride is a std::ptrdiff_t)",
                         largest_stride, count);
  }
  const auto [es, is] = b.resolve(n, count);
  T* data = b.data.data();
  const std::size_t size = b.data.size();
  // No instance: the strides fx::aos and fx::soa derive from the count mean nothing.
  const bool check_strides = count > 0 || b.order == batch_order::strided;
  if (check_strides && es < 1)
    throw layout_error(block, "element stride must be at least 1, got " + std::to_string(es), 1, es,
                       layout_error::signed_values{});
  if (check_strides && is < 0)
    throw layout_error(block, "instance stride must not be negative, got " + std::to_string(is), 0, is,
                       layout_error::signed_values{});
  if (count == 0) return {data, es, is, 0, 0};
  // Elements the batch spans: (count-1)*is + (n-1)*es + 1 (none when n = 0),
  // checked for overflow so that huge strides cannot wrap around and pass;
  // an empty block's instances must be addressable all the same.
  // Reported: the most elements PTRDIFF_MAX bytes hold, and the elements
  // the strides span (SIZE_MAX where even that count wraps around).
  std::size_t span_instances = 0, span_elements = 0, needed = 0, bytes = 0;
  if (__builtin_mul_overflow(count - 1, std::size_t(is), &span_instances) ||
      (n > 0 && __builtin_mul_overflow(n - 1, std::size_t(es), &span_elements)) ||
      __builtin_add_overflow(span_instances, span_elements, &needed) || __builtin_add_overflow(needed, 1, &needed))
    throw layout_error(block,
                       "strides overflow the address space for " + detail::strides_text(count, n, es, is) +
                           ": the elements they span do not fit a std::size_t",
                       largest_stride / sizeof(T), std::size_t(-1));
  if (__builtin_mul_overflow(needed, sizeof(T), &bytes) || bytes > largest_stride)
    throw layout_error(block,
                       "strides overflow the address space for " + detail::strides_text(count, n, es, is) + ": " +
                           std::to_string(needed) + " elements span more than PTRDIFF_MAX bytes",
                       largest_stride / sizeof(T), needed);
  if (n == 0) needed = bytes = 0;
  // A null pointer with a length (std::span(nullptr, k)) holds nothing; an
  // empty buffer (a null pointer, no values) is one too small, below.
  if (data == nullptr && needed > 0 && size > 0)
    throw layout_error(block,
                       "null buffer: its data pointer is null though its length is " + std::to_string(size) +
                           " (no value can be read)",
                       needed, 0);
  if (reinterpret_cast<std::uintptr_t>(data) % alignof(T) != 0)
    throw layout_error(block, "buffer is not aligned to its scalar type", alignof(T),
                       reinterpret_cast<std::uintptr_t>(data) % alignof(T));
  if (output && n > 0 && is == 0 && count > 1)
    throw layout_error(block, "an output needs a non-zero instance stride for " + std::to_string(count) + " instances",
                       1, 0);
  if (needed > size)
    throw layout_error(block, "buffer too small for " + detail::strides_text(count, n, es, is), needed, size);
  if (output && count > 1 && n > 1) {
    // (b, j) -> b*is + j*es is one-to-one unless a smaller lattice step lands
    // inside the batch: the first collision is at b = es/g, j = is/g.
    const std::ptrdiff_t g = std::gcd(es, is);
    if (std::size_t(es / g) < count && std::size_t(is / g) < n)
      throw layout_error(block, "strides write two elements to one address for " + detail::strides_text(count, n, es, is),
                         1, 2);
  }
  const auto first = reinterpret_cast<std::uintptr_t>(data);
  return {data, es, is, first, first + bytes};
}

// The number of values, n_outer x n per instance, of a result the library
// allocates for `count` instances (a std::vector), checked before anything
// is allocated: a result past PTRDIFF_MAX bytes (the most a std::vector
// holds; a count whose product with the per-instance size wraps around
// among them) raises layout_error naming the block and the count, expected
// the most instances that fit, actual the count. Broadcast inputs check no
// size against the count, so only this bounds it.
template <class T>
std::size_t result_values(const std::string& block, std::size_t count, std::size_t n, std::size_t n_outer = 1) {
  constexpr auto largest_bytes = std::size_t(std::numeric_limits<std::ptrdiff_t>::max());
  std::size_t per_instance = 0;
  const bool per_instance_fits = !__builtin_mul_overflow(n, n_outer, &per_instance);
  if (per_instance_fits && per_instance == 0) return 0;
  const std::size_t most = per_instance_fits ? largest_bytes / sizeof(T) / per_instance : 0;
  if (count > most)
    throw layout_error(block,
                       "a result of " + std::to_string(count) + " instance(s) of " +
                           (n_outer == 1 ? std::to_string(n) : std::to_string(n_outer) + " x " + std::to_string(n)) +
                           " element(s) would exceed PTRDIFF_MAX bytes, the largest buffer; at most " +
                           std::to_string(most) + " instance(s) fit",
                       most, count);
  return per_instance * count;
}

// Conservative: the byte ranges the two batches span must not intersect, even
// where interleaved strides would never touch one address.
template <class A, class B>
void check_no_overlap(const std::string& input_block, const checked_buffer<A>& in, const std::string& output_block,
                      const checked_buffer<B>& out) {
  if (in.first_byte < out.end_byte && out.first_byte < in.end_byte && in.end_byte > in.first_byte &&
      out.end_byte > out.first_byte)
    throw layout_error(output_block, "output buffer overlaps the input buffer of block '" + input_block + "'", 0,
                       std::size_t(std::min(in.end_byte, out.end_byte) - std::max(in.first_byte, out.first_byte)));
}

// A checked buffer's block name and byte range, for check_outputs_apart.
struct named_bytes {
  const char* block;
  checked_buffer<const void> bytes;
  template <class T>
  named_bytes(const char* name, const checked_buffer<T>& b)
      : block(name), bytes{b.data, 1, 1, b.first_byte, b.end_byte} {}
};

// Every output apart from every input and from every output listed before
// it (check_no_overlap on each pair; the later output is the one named in
// the error). An absent output (an empty range) overlaps nothing.
inline void check_outputs_apart(std::initializer_list<named_bytes> inputs, std::initializer_list<named_bytes> outputs) {
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    for (const auto& in : inputs) check_no_overlap(in.block, in.bytes, out->block, out->bytes);
    for (auto before = outputs.begin(); before != out; ++before)
      check_no_overlap(before->block, before->bytes, out->block, out->bytes);
  }
}

}  // namespace fluxion
