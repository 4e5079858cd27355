#pragma once
// The scalars of the special functions (fluxion::math::special, the
// headers of this folder beside elementary.hpp and portable.hpp) and the
// elementary functions over them.
//
// The infer layer's densities, priors and transforms call them in float and
// double, and, on the host, std::complex<double> in their parameters
// (complex-step derivatives in the tests: Im f(x + ih) / h is f'(x)).
// Branches look at the real part. The special functions are also evaluated
// over dual numbers (math/dual.hpp) to differentiate an algorithm with
// respect to a shape parameter, so the helpers here are plain overloadable
// function templates.
#include <cfloat>
#include <cmath>

#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>

#if FLUXION_DEVICE_PASS
#  define FLUXION_SF_NS
#else
#  define FLUXION_SF_NS std
#endif

namespace fluxion::math::special {

// The real type under a scalar: R for R and for std::complex<R>.
template <class T>
struct real_of_t {
  using type = T;
};
#if !defined(__CUDACC__)
template <class R>
struct real_of_t<std::complex<R>> {
  using type = R;
};
#endif
template <class T>
using real_of = typename real_of_t<T>::type;

template <class T>
inline constexpr bool is_complex = math::is_complex<T>;

// The real value that branches look at (overloaded for dual numbers).
template <class T>
FLUXION_HOST_DEVICE constexpr real_of<T> value_of(const T& x) {
  return math::real_part(x);
}

// Machine constants, as functions so that device code can call them without
// relaxed constexpr.
template <class R>
FLUXION_HOST_DEVICE constexpr R epsilon() {
  return sizeof(R) == sizeof(float) ? R(FLT_EPSILON) : R(DBL_EPSILON);
}
template <class R>
FLUXION_HOST_DEVICE constexpr R smallest_normal() {
  return sizeof(R) == sizeof(float) ? R(FLT_MIN) : R(DBL_MIN);
}
template <class T>
FLUXION_HOST_DEVICE constexpr T not_a_number() {
  return T(NAN);
}
template <class T>
FLUXION_HOST_DEVICE constexpr T infinity() {
  return T(INFINITY);
}

inline constexpr double ln2 = 0.69314718055994530942;
inline constexpr double half_log_two_pi = 0.91893853320467274178;  // log(2 pi) / 2
inline constexpr double sqrt_half = 0.70710678118654752440;         // 1 / sqrt(2)

// exp, log, sqrt: fluxion's math wrappers (real and complex).
template <class T>
FLUXION_HOST_DEVICE T exp(T x) {
  return math::exp(x);
}
template <class T>
FLUXION_HOST_DEVICE T log(T x) {
  return math::log(x);
}
template <class T>
FLUXION_HOST_DEVICE T sqrt(T x) {
  return math::sqrt(x);
}

// log(1 + x) and exp(x) - 1: the library's for real x; for complex x the
// plain formula, whose imaginary part is still exact to first order in the
// step (all a complex-step derivative reads).
template <class T>
FLUXION_HOST_DEVICE T log1p(T x) {
  if constexpr (is_complex<T>) return math::log(T(1) + x);
  else return FLUXION_SF_NS::log1p(x);
}
template <class T>
FLUXION_HOST_DEVICE T expm1(T x) {
  if constexpr (is_complex<T>) return math::exp(x) - T(1);
  else return FLUXION_SF_NS::expm1(x);
}

// Real only.
template <class R>
FLUXION_HOST_DEVICE R fabs(R x) {
  return FLUXION_SF_NS::fabs(x);
}
template <class R>
FLUXION_HOST_DEVICE R floor(R x) {
  return FLUXION_SF_NS::floor(x);
}
template <class R>
FLUXION_HOST_DEVICE R trunc(R x) {
  return FLUXION_SF_NS::trunc(x);
}
template <class R>
FLUXION_HOST_DEVICE bool is_nan(R x) {
  return x != x;
}
template <class R>
FLUXION_HOST_DEVICE bool is_inf(R x) {
  return x == infinity<R>() || x == -infinity<R>();
}

}  // namespace fluxion::math::special

#undef FLUXION_SF_NS
