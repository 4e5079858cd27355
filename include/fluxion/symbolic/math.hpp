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

// Several values computed together (fluxion::lanes, host SIMD): functions
// apply lane by lane.
template <class T>
concept lane_values = requires { typename T::fluxion_lanes; };

#define FLUXION_MATH_UNARY(NAME, CALL)                                          \
  template <class T>                                                            \
  FLUXION_HOST_DEVICE T NAME(T x) {                                             \
    if constexpr (lane_values<T>) return x.map([](auto e) { return NAME(e); }); \
    else return CALL;                                                           \
  }
#define FLUXION_MATH_BINARY(NAME, CALL)                                                         \
  template <class T>                                                                            \
  FLUXION_HOST_DEVICE T NAME(T x, T y) {                                                        \
    if constexpr (lane_values<T>) return x.map(y, [](auto a, auto b) { return NAME(a, b); });   \
    else return CALL;                                                                           \
  }
FLUXION_MATH_UNARY(exp, FLUXION_MATH_NS::exp(x))
FLUXION_MATH_UNARY(log, FLUXION_MATH_NS::log(x))
FLUXION_MATH_UNARY(sqrt, FLUXION_MATH_NS::sqrt(x))
FLUXION_MATH_UNARY(sin, FLUXION_MATH_NS::sin(x))
FLUXION_MATH_UNARY(cos, FLUXION_MATH_NS::cos(x))
FLUXION_MATH_UNARY(tanh, FLUXION_MATH_NS::tanh(x))
FLUXION_MATH_UNARY(cosh, FLUXION_MATH_NS::cosh(x))
FLUXION_MATH_BINARY(pow, FLUXION_MATH_NS::pow(x, y))
#undef FLUXION_MATH_UNARY
#undef FLUXION_MATH_BINARY

template <class T>
FLUXION_HOST_DEVICE T abs(T x) {
  if constexpr (lane_values<T>) return x.map([](auto e) { return abs(e); });
  else if constexpr (is_complex<T>) return real_part(x) < 0 ? -x : x;
  else return FLUXION_MATH_NS::fabs(x);
}
template <class T>
FLUXION_HOST_DEVICE T fmin(T x, T y) {
  if constexpr (lane_values<T>) return x.map(y, [](auto a, auto b) { return fmin(a, b); });
  else if constexpr (is_complex<T>) return real_part(y) < real_part(x) ? y : x;
  else return FLUXION_MATH_NS::fmin(x, y);
}
template <class T>
FLUXION_HOST_DEVICE T fmax(T x, T y) {
  if constexpr (lane_values<T>) return x.map(y, [](auto a, auto b) { return fmax(a, b); });
  else if constexpr (is_complex<T>) return real_part(x) < real_part(y) ? y : x;
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
  if constexpr (lane_values<T>) {
    return x.map([](auto e) { return sign(e); });
  } else {
    const auto r = real_part(x);
    return r > 0 ? T(1) : (r < 0 ? T(-1) : T(0));
  }
}

}  // namespace fluxion::math
