#pragma once
// Dual numbers v + d eps (eps^2 = 0): forward-mode differentiation of an
// algorithm, here the continued fraction of the incomplete beta function with
// respect to its shape parameter (the negative binomial's dispersion), whose
// derivative has no closed form. Each operation carries the exact derivative
// of its result, so the derivative of the converged approximant is computed
// alongside its value (Griewank & Walther, Evaluating Derivatives, 2nd ed.,
// 2008, ch. 3). Only what the special functions here need.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

template <class R>
struct dual {
  R v = R(0);  // value
  R d = R(0);  // derivative

  constexpr dual() = default;
  FLUXION_HOST_DEVICE constexpr dual(R value) : v(value), d(R(0)) {}  // a constant
  FLUXION_HOST_DEVICE constexpr dual(R value, R derivative) : v(value), d(derivative) {}
};

template <class R>
struct real_of_t<dual<R>> {
  using type = R;
};

template <class R>
FLUXION_HOST_DEVICE constexpr R value_of(const dual<R>& x) {
  return x.v;
}

template <class R>
FLUXION_HOST_DEVICE constexpr dual<R> operator-(dual<R> a) {
  return {-a.v, -a.d};
}
template <class R>
FLUXION_HOST_DEVICE constexpr dual<R> operator+(dual<R> a, dual<R> b) {
  return {a.v + b.v, a.d + b.d};
}
template <class R>
FLUXION_HOST_DEVICE constexpr dual<R> operator-(dual<R> a, dual<R> b) {
  return {a.v - b.v, a.d - b.d};
}
template <class R>
FLUXION_HOST_DEVICE constexpr dual<R> operator*(dual<R> a, dual<R> b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d};
}
template <class R>
FLUXION_HOST_DEVICE constexpr dual<R> operator/(dual<R> a, dual<R> b) {
  const R q = a.v / b.v;
  return {q, (a.d - q * b.d) / b.v};
}
// Mixed with a real constant on either side.
#define FLUXION_DUAL_MIXED(OP)                                                                    \
  template <class R>                                                                              \
  FLUXION_HOST_DEVICE constexpr dual<R> operator OP(dual<R> a, R b) { return a OP dual<R>(b); }   \
  template <class R>                                                                              \
  FLUXION_HOST_DEVICE constexpr dual<R> operator OP(R a, dual<R> b) { return dual<R>(a) OP b; }
FLUXION_DUAL_MIXED(+)
FLUXION_DUAL_MIXED(-)
FLUXION_DUAL_MIXED(*)
FLUXION_DUAL_MIXED(/)
#undef FLUXION_DUAL_MIXED

template <class R>
FLUXION_HOST_DEVICE dual<R> exp(dual<R> a) {
  const R e = special::exp(a.v);
  return {e, e * a.d};
}
template <class R>
FLUXION_HOST_DEVICE dual<R> expm1(dual<R> a) {
  return {special::expm1(a.v), special::exp(a.v) * a.d};
}
template <class R>
FLUXION_HOST_DEVICE dual<R> log(dual<R> a) {
  return {special::log(a.v), a.d / a.v};
}
template <class R>
FLUXION_HOST_DEVICE dual<R> log1p(dual<R> a) {
  return {special::log1p(a.v), a.d / (R(1) + a.v)};
}
template <class R>
FLUXION_HOST_DEVICE dual<R> sqrt(dual<R> a) {
  const R s = special::sqrt(a.v);
  return {s, a.d / (R(2) * s)};
}

}  // namespace fluxion::math::special
