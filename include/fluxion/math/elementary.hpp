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
// min and max, one rule on the host, in SIMD lanes, for complex scalars (by
// the real part) and on the device, so that every path gives the same bits:
//
//   min(a, b) = (b < a || b is NaN) ? b : a
//   max(a, b) = (a < b || b is NaN) ? b : a
//
// At a tie (+0 and -0 included) the first operand; NaN when either operand is
// NaN. (fmin and fmax leave the sign of a zero result unspecified, and
// return the other operand of a NaN.) The derivative's where(a <= b, da, db)
// and where(a >= b, da, db) take the same operand wherever neither is NaN.
template <class T>
FLUXION_HOST_DEVICE constexpr T min(T x, T y) {
  if constexpr (lane_values<T>) return lane_select(y < x || y != y, y, x);
  else return real_part(y) < real_part(x) || real_part(y) != real_part(y) ? y : x;
}
template <class T>
FLUXION_HOST_DEVICE constexpr T max(T x, T y) {
  if constexpr (lane_values<T>) return lane_select(x < y || y != y, y, x);
  else return real_part(x) < real_part(y) || real_part(y) != real_part(y) ? y : x;
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
