#pragma once
// Elementary functions callable from host and device code in float and
// double. In the device pass the CUDA math overloads are used; on the host,
// <cmath>.
#include <cmath>

#include <fluxion/config/macros.hpp>

namespace fluxion::math {

#if FLUXION_DEVICE_PASS
#  define FLUXION_MATH_NS
#else
#  define FLUXION_MATH_NS std
#endif

template <class T> FLUXION_HOST_DEVICE T exp(T x) { return FLUXION_MATH_NS::exp(x); }
template <class T> FLUXION_HOST_DEVICE T log(T x) { return FLUXION_MATH_NS::log(x); }
template <class T> FLUXION_HOST_DEVICE T sqrt(T x) { return FLUXION_MATH_NS::sqrt(x); }
template <class T> FLUXION_HOST_DEVICE T sin(T x) { return FLUXION_MATH_NS::sin(x); }
template <class T> FLUXION_HOST_DEVICE T cos(T x) { return FLUXION_MATH_NS::cos(x); }
template <class T> FLUXION_HOST_DEVICE T tanh(T x) { return FLUXION_MATH_NS::tanh(x); }
template <class T> FLUXION_HOST_DEVICE T cosh(T x) { return FLUXION_MATH_NS::cosh(x); }
template <class T> FLUXION_HOST_DEVICE T abs(T x) { return FLUXION_MATH_NS::fabs(x); }
template <class T> FLUXION_HOST_DEVICE T pow(T x, T y) { return FLUXION_MATH_NS::pow(x, y); }
template <class T> FLUXION_HOST_DEVICE T fmin(T x, T y) { return FLUXION_MATH_NS::fmin(x, y); }
template <class T> FLUXION_HOST_DEVICE T fmax(T x, T y) { return FLUXION_MATH_NS::fmax(x, y); }

#undef FLUXION_MATH_NS

// x^N by repeated squaring, exact for small N and free of pow's special cases.
template <int N, class T>
FLUXION_HOST_DEVICE constexpr T ipow(T x) {
  if constexpr (N < 0) {
    return T(1) / ipow<-N>(x);
  } else if constexpr (N == 0) {
    return T(1);
  } else if constexpr (N == 1) {
    return x;
  } else {
    const T half = ipow<N / 2>(x);
    if constexpr (N % 2 == 0) {
      return half * half;
    } else {
      return half * half * x;
    }
  }
}

template <class T>
FLUXION_HOST_DEVICE constexpr T sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
}

}  // namespace fluxion::math
