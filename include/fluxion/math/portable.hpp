#pragma once
// Elementary functions that give the same bits on every machine: log, exp,
// cos(2 pi u) and lgamma for the samplers of replayed observations, whose
// draws must be identical on the host and the device. The libraries'
// functions do not promise that (CUDA's log and glibc's may differ in the
// last bit), and compilers contract a * b + c into fused multiply-adds in
// different places (nvcc by default, g++ with -ffp-contract=fast where FMA
// exists). So these are written with explicit fused multiply-adds (fma, one
// rounding, fixed by IEEE 754) wherever a product meets a sum, and otherwise
// only with operations that are correctly rounded everywhere (+ - * /, sqrt,
// exact scaling by powers of two); values that cross a function boundary go
// through opaque(). Accuracy: a few units in the last place,
// which is all a sampler needs.
//
// Algorithms: argument reduction by powers of two and Cody & Waite's split
// of ln 2 (Cody & Waite, Software Manual for the Elementary Functions,
// 1980); log(m) = 2 atanh((m - 1) / (m + 1)) and exp(r) by their Taylor
// series on the reduced ranges (|s| < 0.172, |r| < 0.347), summed by Horner's
// rule in fma; cos(2 pi u) from the quadrant of 4u (exact) and the Taylor
// series of sin and cos on |x| <= pi / 4; lgamma by Stirling's series with
// the argument shifted to 15 or above (Abramowitz & Stegun 6.1.41).
#include <cmath>
#include <cstdint>

#include <fluxion/config/macros.hpp>

namespace fluxion::math::portable {

template <class T>
FLUXION_HOST_DEVICE T fma_(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// x, rounded and kept as it is: a product computed before it cannot be fused
// with a sum after it. Contraction crosses inlined function boundaries (a
// sampler returning d * v, whose caller adds two of them, gets one fused
// multiply-add on the device and two roundings on the host), so the samplers
// pass their inputs and results through this.
template <class T>
FLUXION_HOST_DEVICE T opaque(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return __fadd_rn(x, -0.0f);  // intrinsics are never contracted; x + -0 is x
  else return __dadd_rn(x, -0.0);
#elif defined(__GNUC__) || defined(__clang__)
  __asm__ volatile("" : "+m"(x));  // x goes through memory: the value before is rounded
  return x;
#else
  volatile T v = x;
  return v;
#endif
}

// Correctly rounded on both sides (IEEE 754; nvcc's default -prec-sqrt=true).
template <class T>
FLUXION_HOST_DEVICE T sqrt(T x) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

template <class T>
FLUXION_HOST_DEVICE T floor(T x) {
#if defined(__CUDA_ARCH__)
  return ::floor(x);
#else
  return std::floor(x);
#endif
}

// x = m 2^e with m in [sqrt(1/2), sqrt(2)), for finite positive x (exact).
template <class T>
FLUXION_HOST_DEVICE T split_exponent(T x, int& e) {
#if defined(__CUDA_ARCH__)
  T m = ::frexp(x, &e);
#else
  T m = std::frexp(x, &e);
#endif
  // frexp gives m in [1/2, 1).
  if (m < T(0.70710678118654752440)) {
    m = m * T(2);
    e -= 1;
  }
  return m;
}

template <class T>
FLUXION_HOST_DEVICE T scale_by_power_of_two(T x, int e) {
#if defined(__CUDA_ARCH__)
  return ::ldexp(x, e);
#else
  return std::ldexp(x, e);
#endif
}

// Natural logarithm of a finite positive x.
template <class T>
FLUXION_HOST_DEVICE T log(T x) {
  int e = 0;
  const T m = split_exponent(x, e);
  const T s = (m - T(1)) / (m + T(1));
  const T s2 = s * s;
  // atanh(s) / s = sum_k s^(2k) / (2k + 1), to s^30 (double) or s^14 (float).
  constexpr int terms = sizeof(T) == 4 ? 8 : 16;
  T p = T(1) / T(2 * (terms - 1) + 1);
  for (int k = terms - 2; k >= 0; --k) p = fma_(p, s2, T(1) / T(2 * k + 1));
  const T log_m = T(2) * s * p;
  // e ln 2 in two parts (Cody & Waite): e ln2_hi is exact for |e| < 2^11.
  constexpr T ln2_hi = sizeof(T) == 4 ? T(0.693145751953125) : T(0.6931471803691238164901733398437500);
  constexpr T ln2_lo = sizeof(T) == 4 ? T(1.428606765330187045e-06) : T(1.9082149292705877000e-10);
  return fma_(T(e), ln2_hi, fma_(T(e), ln2_lo, log_m));
}

// e^x for finite x (overflow gives inf, underflow 0).
template <class T>
FLUXION_HOST_DEVICE T exp(T x) {
  constexpr T max_arg = sizeof(T) == 4 ? T(88.8) : T(709.8);
  if (x > max_arg) return T(INFINITY);
  if (x < -max_arg - T(40)) return T(0);
  constexpr T inv_ln2 = T(1.4426950408889634074);
  constexpr T ln2_hi = sizeof(T) == 4 ? T(0.693145751953125) : T(0.6931471803691238164901733398437500);
  constexpr T ln2_lo = sizeof(T) == 4 ? T(1.428606765330187045e-06) : T(1.9082149292705877000e-10);
  // k = nearest integer to x / ln 2 (rounding a product is the same everywhere).
  const T kf = T(static_cast<long long>(fma_(x, inv_ln2, x < T(0) ? T(-0.5) : T(0.5))));
  const T r = fma_(-kf, ln2_lo, fma_(-kf, ln2_hi, x));  // |r| <= about ln 2 / 2
  constexpr int terms = sizeof(T) == 4 ? 10 : 16;       // Taylor to r^(terms-1) / (terms-1)!
  T p = T(1);
  for (int k = terms - 1; k >= 1; --k) p = fma_(p, r / T(k), T(1));
  const int k = int(kf);
  // 2^k in two factors keeps subnormal results right.
  return scale_by_power_of_two(scale_by_power_of_two(p, k / 2), k - k / 2);
}

// cos(2 pi u) for u in [0, 1].
template <class T>
FLUXION_HOST_DEVICE T cos_two_pi(T u) {
  const T v = u * T(4);                  // exact
  const T q = T(static_cast<int>(v + T(0.5)));
  const T f = v - q;                     // exact, in [-1/2, 1/2]
  constexpr T half_pi = T(1.5707963267948966192);
  const T x = f * half_pi, x2 = x * x;   // |x| <= pi / 4
  constexpr int terms = sizeof(T) == 4 ? 6 : 10;
  // cos x = sum (-1)^k x^(2k) / (2k)!, sin x = x sum (-1)^k x^(2k) / (2k+1)!
  T c = T(1), s = T(1);
  for (int k = terms - 1; k >= 1; --k) {
    c = fma_(c, -x2 / T((2 * k - 1) * (2 * k)), T(1));
    s = fma_(s, -x2 / T((2 * k) * (2 * k + 1)), T(1));
  }
  s = s * x;
  switch (static_cast<int>(q) & 3) {  // cos(2 pi u) = cos(pi q / 2 + x)
    case 0: return c;
    case 1: return -s;
    case 2: return -c;
    default: return s;
  }
}

// log Gamma(x) for x > 0: Stirling's series after shifting x above 10.
template <class T>
FLUXION_HOST_DEVICE T lgamma(T x) {
  T shift = T(0);  // log of the product x (x + 1) ... kept in pieces to avoid overflow
  T prod = T(1);
  while (x < T(15)) {
    prod = prod * x;
    x = x + T(1);
    if (prod > T(1e30)) {
      shift = shift + portable::log(prod);
      prod = T(1);
    }
  }
  shift = shift + portable::log(prod);
  const T inv = T(1) / x, inv2 = inv * inv;
  // 1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7) + 1/(1188x^9) - 691/(360360x^11) + 1/(156x^13)
  T series = T(1.0 / 156);
  series = fma_(series, inv2, T(-691.0 / 360360));
  series = fma_(series, inv2, T(1.0 / 1188));
  series = fma_(series, inv2, T(-1.0 / 1680));
  series = fma_(series, inv2, T(1.0 / 1260));
  series = fma_(series, inv2, T(-1.0 / 360));
  series = fma_(series, inv2, T(1.0 / 12));
  constexpr T half_log_two_pi = T(0.91893853320467274178);
  const T lx = portable::log(x);
  // (x - 1/2) log x - x + log(2 pi) / 2 + series / x - shift
  return fma_(x - T(0.5), lx, fma_(series, inv, half_log_two_pi - x)) - shift;
}

}  // namespace fluxion::math::portable
