#pragma once
// Elementary functions callable from host and device code in float and
// double. In the device pass the CUDA math overloads are used; on the host,
// <cmath>.
#include <cmath>
#include <type_traits>
#if !defined(__CUDACC__)
#  include <complex>
#endif

#include <fluxion/config/macros.hpp>

namespace fluxion::math {

// Complex scalars (host only, for complex-step differentiation): comparisons,
// min, max, abs and sign look at the real part, and abs is extended
// holomorphically as x * sign(Re x), so that Im f(x + ih) / h is df/dx.
template <class T>
inline constexpr bool is_complex = false;
#if !defined(__CUDACC__)
template <class R>
inline constexpr bool is_complex<std::complex<R>> = true;
#endif

template <class T>
FLUXION_HOST_DEVICE constexpr auto real_part(const T& x) {
  if constexpr (is_complex<T>) return x.real();
  else return x;
}

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
template <class T> FLUXION_HOST_DEVICE T abs(T x) {
  if constexpr (is_complex<T>) return real_part(x) < 0 ? -x : x;
  else return FLUXION_MATH_NS::fabs(x);
}
template <class T> FLUXION_HOST_DEVICE T pow(T x, T y) { return FLUXION_MATH_NS::pow(x, y); }
template <class T> FLUXION_HOST_DEVICE T fmin(T x, T y) {
  if constexpr (is_complex<T>) return real_part(y) < real_part(x) ? y : x;
  else return FLUXION_MATH_NS::fmin(x, y);
}
template <class T> FLUXION_HOST_DEVICE T fmax(T x, T y) {
  if constexpr (is_complex<T>) return real_part(x) < real_part(y) ? y : x;
  else return FLUXION_MATH_NS::fmax(x, y);
}

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
  const auto r = real_part(x);
  return r > 0 ? T(1) : (r < 0 ? T(-1) : T(0));
}

}  // namespace fluxion::math
