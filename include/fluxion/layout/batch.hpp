#pragma once
// How a batch of instances lies in a user buffer: element j of instance b is
// at data[b * instance_stride + j * element_stride].
//
//   fx::aos(span)           instances one after another (element stride 1)
//   fx::soa(span)           element-major, instance fastest (instance stride 1)
//   fx::soa(span, pitch)    the same, element rows `pitch` values apart
//                           (fx::soa_pitch<T>(count) picks one the caches like)
//   fx::strided(span, e, i) any pair, e.g. a state embedded in a wider record
//   fx::broadcast(span)     one instance read by every instance (inputs only)
#include <cstddef>
#include <span>
#include <type_traits>

namespace fluxion {

enum class batch_order { aos, soa, strided, broadcast };

template <class T>
struct batch {
  std::span<T> data;
  batch_order order = batch_order::aos;
  std::ptrdiff_t element_stride = 1;   // used when order == strided
  std::ptrdiff_t instance_stride = 0;  // used when order == strided
  std::size_t pitch = 0;               // soa: element rows this many values apart (0: the instance count)

  // A batch of writable data is also a batch of read-only data.
  template <class U = T>
    requires(!std::is_const_v<U>)
  constexpr operator batch<const U>() const {
    return {data, order, element_stride, instance_stride, pitch};
  }

  // Concrete strides for `count` instances of `n` elements.
  struct strides {
    std::ptrdiff_t element;
    std::ptrdiff_t instance;
  };
  constexpr strides resolve(std::size_t n, std::size_t count) const {
    switch (order) {
      case batch_order::aos: return {1, std::ptrdiff_t(n)};
      case batch_order::soa: return {std::ptrdiff_t(pitch != 0 ? pitch : count), 1};
      case batch_order::broadcast: return {1, 0};
      default: return {element_stride, instance_stride};
    }
  }
};

template <class T>
constexpr batch<T> aos(std::span<T> data) {
  return {data, batch_order::aos};
}
template <class T>
constexpr batch<T> soa(std::span<T> data) {
  return {data, batch_order::soa};
}
// Rows of `pitch` >= count values, the values past the batch's instances
// unused (checked when the batch is used: a smaller pitch is a layout_error).
template <class T>
constexpr batch<T> soa(std::span<T> data, std::size_t pitch) {
  return {data, batch_order::soa, 1, 0, pitch};
}

// A row pitch for structure-of-arrays buffers of `count` instances of T:
// whole 64-byte cache lines, an odd number of them from 4 lines on. Rows a
// multiple of 2 KiB long (256 doubles, 512 floats, any larger power of two)
// put every element's stream into the same few cache sets, which then evict
// each other; an odd number of lines spreads them over all the sets, and
// whole lines keep every row's vectors aligned alike.
//
//   const std::size_t pitch = fx::soa_pitch<double>(B);   // 264 for B = 256
//   std::vector<double> x(M::n_states * pitch);           // x[j * pitch + b]
//   fx::host::rhs(m, t, B, fx::soa(x, pitch), fx::soa(p, pitch), fx::soa(dx, pitch));
template <class T>
constexpr std::size_t soa_pitch(std::size_t count) {
  constexpr std::size_t line = 64 / sizeof(T) > 0 ? 64 / sizeof(T) : 1;
  std::size_t lines = (count + line - 1) / line;
  if (lines >= 4 && lines % 2 == 0) ++lines;
  return lines * line;
}

template <class T>
constexpr batch<T> strided(std::span<T> data, std::ptrdiff_t element_stride, std::ptrdiff_t instance_stride) {
  return {data, batch_order::strided, element_stride, instance_stride};
}
template <class T>
constexpr batch<const T> broadcast(std::span<const T> data) {
  return {data, batch_order::broadcast};
}
// Containers (std::vector, std::array) convert through std::span.
template <class C>
constexpr auto aos(C& c) -> decltype(aos(std::span(c))) {
  return aos(std::span(c));
}
template <class C>
constexpr auto soa(C& c) -> decltype(soa(std::span(c))) {
  return soa(std::span(c));
}
template <class C>
constexpr auto soa(C& c, std::size_t pitch) -> decltype(soa(std::span(c), pitch)) {
  return soa(std::span(c), pitch);
}
template <class C>
constexpr auto strided(C& c, std::ptrdiff_t e, std::ptrdiff_t i) -> decltype(strided(std::span(c), e, i)) {
  return strided(std::span(c), e, i);
}
template <class C>
constexpr auto broadcast(const C& c) -> decltype(broadcast(std::span(c))) {
  return broadcast(std::span(c));
}

}  // namespace fluxion
