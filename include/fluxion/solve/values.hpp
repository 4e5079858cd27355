#pragma once
// Scalar helpers of the solvers' arithmetic, host and device: whether a
// value is finite, the unit roundoff, a quiet NaN.
#include <cmath>

#include <fluxion/config/macros.hpp>

namespace fluxion::detail {

template <class T>
FLUXION_HOST_DEVICE constexpr bool finite(T v) {
  return v == v && v - v == T(0);  // false for NaN and +-inf, without <cmath> classification
}
template <class T>
FLUXION_HOST_DEVICE constexpr T epsilon_of() {
  return sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313080847e-16);
}
template <class T>
FLUXION_HOST_DEVICE T quiet_nan() {
  return T(::nan(""));
}

}  // namespace fluxion::detail
