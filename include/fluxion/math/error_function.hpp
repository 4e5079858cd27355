#pragma once
// The complementary error function, its scaled form erfcx(x) = e^(x^2)
// erfc(x), and from them the log of the standard normal CDF and the ratio
// phi(z) / Phi(z), stable far into the lower tail (z = -40 and beyond).
//
// erfc and erfcx: W. J. Cody, "Rational Chebyshev approximations for the
// error function", Math. Comp. 23 (1969) 631-637, in the form of his CALERF
// (netlib specfun, 1990): rational approximations on |x| <= 0.46875, on
// 0.46875 < |x| <= 4 (of erfcx) and on |x| > 4 (of x erfcx(x) in 1 / x^2),
// to at least 18 significant digits; e^(-x^2) is formed as
// e^(-u^2) e^(-(x - u)(x + u)) with u = trunc(16 x) / 16 so that no
// rounding of x^2 is magnified. Real float and double, host and device.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion::math::special {

namespace cody {

// erfc(x) for |x| <= 0.46875 is 1 - x P(x^2) / Q(x^2).
template <class R>
FLUXION_HOST_DEVICE R erf_small(R x) {
  const R a[5] = {R(3.16112374387056560e00), R(1.13864154151050156e02), R(3.77485237685302021e02),
                  R(3.20937758913846947e03), R(1.85777706184603153e-1)};
  const R b[4] = {R(2.36012909523441209e01), R(2.44024637934444173e02), R(1.28261652607737228e03),
                  R(2.84423683343917062e03)};
  const R y2 = x * x;
  R num = a[4] * y2, den = y2;
  for (int i = 0; i < 3; ++i) {
    num = (num + a[i]) * y2;
    den = (den + b[i]) * y2;
  }
  return x * (num + a[3]) / (den + b[3]);
}

// erfcx(y) for 0.46875 < y <= 4.
template <class R>
FLUXION_HOST_DEVICE R erfcx_middle(R y) {
  const R c[9] = {R(5.64188496988670089e-1), R(8.88314979438837594e00), R(6.61191906371416295e01),
                  R(2.98635138197400131e02), R(8.81952221241769090e02), R(1.71204761263407058e03),
                  R(2.05107837782607147e03), R(1.23033935479799725e03), R(2.15311535474403846e-8)};
  const R d[8] = {R(1.57449261107098347e01), R(1.17693950891312499e02), R(5.37181101862009858e02),
                  R(1.62138957456669019e03), R(3.29079923573345963e03), R(4.36261909014324716e03),
                  R(3.43936767414372164e03), R(1.23033935480374942e03)};
  R num = c[8] * y, den = y;
  for (int i = 0; i < 7; ++i) {
    num = (num + c[i]) * y;
    den = (den + d[i]) * y;
  }
  return (num + c[7]) / (den + d[7]);
}

// erfcx(y) for y > 4.
template <class R>
FLUXION_HOST_DEVICE R erfcx_large(R y) {
  const R p[6] = {R(3.05326634961232344e-1), R(3.60344899949804439e-1), R(1.25781726111229246e-1),
                  R(1.60837851487422766e-2), R(6.58749161529837803e-4), R(1.63153871373020978e-2)};
  const R q[5] = {R(2.56852019228982242e00), R(1.87295284992346047e00), R(5.27905102951428412e-1),
                  R(6.05183413124413191e-2), R(2.33520497626869185e-3)};
  constexpr double inv_sqrt_pi = 0.56418958354775628695;
  if (y > R(1e8)) return R(inv_sqrt_pi) / y;  // the correction is below 1e-16 of the result
  const R z = R(1) / (y * y);
  R num = p[5] * z, den = z;
  for (int i = 0; i < 4; ++i) {
    num = (num + p[i]) * z;
    den = (den + q[i]) * z;
  }
  return (R(inv_sqrt_pi) - z * (num + p[4]) / (den + q[4])) / y;
}

// e^(-y^2) without magnifying the rounding of y^2 (Cody's split).
template <class R>
FLUXION_HOST_DEVICE R exp_minus_square(R y) {
  const R u = special::trunc(y * R(16)) / R(16);
  return special::exp(-u * u) * special::exp(-(y - u) * (y + u));
}

// e^(y^2), likewise.
template <class R>
FLUXION_HOST_DEVICE R exp_square(R y) {
  const R u = special::trunc(y * R(16)) / R(16);
  return special::exp(u * u) * special::exp((y - u) * (y + u));
}

}  // namespace cody

// e^(x^2) erfc(x); infinity below about -26.6 (double), where it overflows.
template <class R>
FLUXION_HOST_DEVICE R erfcx(R x) {
  if (is_nan(x)) return x;
  const R y = special::fabs(x);
  R r;
  if (y <= R(0.46875)) return special::exp(x * x) * (R(1) - cody::erf_small(x));
  if (y <= R(4)) r = cody::erfcx_middle(y);
  else r = cody::erfcx_large(y);
  if (x >= R(0)) return r;
  // erfcx(-y) = 2 e^(y^2) - erfcx(y)
  const R grow = cody::exp_square(y);  // inf past the overflow
  return grow + grow - r;
}

// erfc(x) for real x.
template <class R>
FLUXION_HOST_DEVICE R erfc(R x) {
  if (is_nan(x)) return x;
  const R y = special::fabs(x);
  R r;
  if (y <= R(0.46875)) return R(1) - cody::erf_small(x);
  if (y <= R(4)) r = cody::erfcx_middle(y) * cody::exp_minus_square(y);
  else if (y < R(27)) r = cody::erfcx_large(y) * cody::exp_minus_square(y);
  else r = R(0);  // below the smallest subnormal double
  return x >= R(0) ? r : R(2) - r;
}

// log Phi(z), Phi the standard normal CDF. With t = -z / sqrt 2,
// Phi(z) = erfc(t) / 2. For t > 1/2 (z < -0.707): log erfcx(t) - z^2 / 2 - log 2,
// finite for every finite z; otherwise log1p(-erfc(-t) / 2), where
// erfc(-t) / 2 = 1 - Phi(z) < 0.76.
template <class R>
FLUXION_HOST_DEVICE R log_ndtr(R z) {
  if (is_nan(z)) return z;
  const R t = -z * R(sqrt_half);
  if (t > R(0.5)) return special::log(erfcx(t)) - R(0.5) * z * z - R(ln2);
  return special::log1p(R(-0.5) * erfc(-t));
}

// phi(z) / Phi(z), the inverse Mills ratio (the derivative of log Phi):
// sqrt(2 / pi) / erfcx(-z / sqrt 2) below z = -0.707, where Phi is small;
// the plain ratio above, where Phi > 0.24. About -z for z << 0.
template <class R>
FLUXION_HOST_DEVICE R normal_hazard_ratio(R z) {
  if (is_nan(z)) return z;
  constexpr double sqrt_two_over_pi = 0.79788456080286535588;
  const R t = -z * R(sqrt_half);
  if (t > R(0.5)) return R(sqrt_two_over_pi) / erfcx(t);
  const R phi = special::exp(R(-0.5) * z * z - R(half_log_two_pi));
  return phi / (R(1) - R(0.5) * erfc(-t));
}

}  // namespace fluxion::math::special
