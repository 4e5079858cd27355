#pragma once
// How a batch of instances lies in a user buffer: element j of instance b is
// at data[b * instance_stride + j * element_stride].
//
//   fx::aos(span)           instances one after another (element stride 1)
//   fx::soa(span)           element-major, instance fastest (instance stride 1)
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

  // A batch of writable data is also a batch of read-only data.
  template <class U = T>
    requires(!std::is_const_v<U>)
  constexpr operator batch<const U>() const {
    return {data, order, element_stride, instance_stride};
  }

  // Concrete strides for `count` instances of `n` elements.
  struct strides {
    std::ptrdiff_t element;
    std::ptrdiff_t instance;
  };
  constexpr strides resolve(std::size_t n, std::size_t count) const {
    switch (order) {
      case batch_order::aos: return {1, std::ptrdiff_t(n)};
      case batch_order::soa: return {std::ptrdiff_t(count), 1};
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
constexpr auto strided(C& c, std::ptrdiff_t e, std::ptrdiff_t i) -> decltype(strided(std::span(c), e, i)) {
  return strided(std::span(c), e, i);
}
template <class C>
constexpr auto broadcast(const C& c) -> decltype(broadcast(std::span(c))) {
  return broadcast(std::span(c));
}

}  // namespace fluxion
