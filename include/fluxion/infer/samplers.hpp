#pragma once
// Draws from the observation densities for replayed (posterior predictive)
// observations, from a keyed fx::draw_stream: the same draws on the host and
// the device, bit for bit, whatever the batch, threads or launch shape (the
// stream is named by its key; the arithmetic is that of
// detail/portable_math.hpp, with explicit fused multiply-adds, and every
// input and result goes through math::portable::opaque, so that no
// product of the caller's fuses with a sum in here, nor one of ours with a
// sum of the caller's). Do not
// compile these with -ffast-math (it lets the compiler reassociate).
//
//   fx::draw_stream s({.seed = 7, .trajectory = b, .series = j, .time = k});
//   double y = fx::sample_normal(s, mean, sd);
//   long long c = fx::sample_neg_binomial_2(s, mean, phi);   // variance mean + mean^2 / phi
//
// Parameters are those of the densities: normal (mean, sd), log-normal
// (mu, sigma of the log), Poisson (mean), negative binomial (mean mu,
// dispersion phi: variance mu + mu^2 / phi, Stan's neg_binomial_2), binomial
// (n, p), beta-binomial (n, mean probability p, concentration kappa: the
// success probability is Beta(p kappa, (1 - p) kappa)). Parameters outside
// their domain give NaN (real draws) or -1 (counts).
//
// Algorithms: Box & Muller (1958) for the normal; Knuth's product of
// uniforms (TAOCP 2, 3.4.1) for Poisson means below 10, Hoermann's
// transformed rejection PTRS ("The transformed rejection method for
// generating Poisson random variables", Insurance: Math. Econ. 12 (1993)
// 39-45; constants as there and in NumPy) from 10; Marsaglia & Tsang (ACM
// TOMS 26 (2000) 363-372) for the gamma, with Gamma(a) = Gamma(a + 1)
// U^(1/a) below shape 1; the negative binomial as a gamma-Poisson mixture;
// the binomial as a count of n Bernoulli trials (n uniforms: meant for the
// modest n of surveys and test panels); the beta as X / (X + Y) of gammas.
#include <cstdint>

#include <fluxion/config/macros.hpp>
#include <fluxion/infer/philox.hpp>
#include <fluxion/math/portable.hpp>

namespace fluxion {

template <class T>
FLUXION_HOST_DEVICE T sample_standard_normal(draw_stream& s) {
  namespace pm = math::portable;
  const T u1 = s.template uniform<T>(), u2 = s.template uniform<T>();
  return pm::opaque(pm::sqrt(T(-2) * pm::log(u1)) * pm::cos_two_pi(u2));
}

template <class T>
FLUXION_HOST_DEVICE T sample_normal(draw_stream& s, T mean, T sd) {
  namespace pm = math::portable;
  mean = pm::opaque(mean), sd = pm::opaque(sd);
  if (!(sd >= T(0))) return T(NAN);
  return pm::opaque(pm::fma_(sd, sample_standard_normal<T>(s), mean));
}

template <class T>
FLUXION_HOST_DEVICE T sample_lognormal(draw_stream& s, T mu, T sigma) {
  namespace pm = math::portable;
  mu = pm::opaque(mu), sigma = pm::opaque(sigma);
  if (!(sigma >= T(0))) return T(NAN);
  return pm::opaque(pm::exp(pm::fma_(sigma, sample_standard_normal<T>(s), mu)));
}

// Gamma(shape, rate): mean shape / rate.
template <class T>
FLUXION_HOST_DEVICE T sample_gamma(draw_stream& s, T shape, T rate) {
  namespace pm = math::portable;
  shape = pm::opaque(shape), rate = pm::opaque(rate);
  if (!(shape > T(0)) || !(rate > T(0))) return T(NAN);
  T boost = T(1);
  if (shape < T(1)) {  // Gamma(a) = Gamma(a + 1) U^(1/a)
    boost = pm::exp(pm::log(s.template uniform<T>()) / shape);
    shape = shape + T(1);
  }
  const T d = shape - T(1) / T(3), c = T(1) / pm::sqrt(T(9) * d);
  for (;;) {
    const T z = sample_standard_normal<T>(s);
    const T w = pm::fma_(c, z, T(1));
    if (!(w > T(0))) continue;
    const T v = w * w * w;
    const T u = s.template uniform<T>();
    // Accept when log u < z^2 / 2 + d - d v + d log v.
    const T bound = pm::fma_(T(0.5) * z, z, pm::fma_(d, pm::log(v), pm::fma_(-d, v, d)));
    if (pm::log(u) < bound) return pm::opaque(d * v * boost / rate);
  }
}

template <class T>
FLUXION_HOST_DEVICE T sample_beta(draw_stream& s, T a, T b) {
  const T x = sample_gamma<T>(s, a, T(1)), y = sample_gamma<T>(s, b, T(1));
  return math::portable::opaque(x / (x + y));
}

// Poisson(mean) as a count (-1 for a negative or non-finite mean).
template <class T>
FLUXION_HOST_DEVICE long long sample_poisson(draw_stream& s, T mean) {
  namespace pm = math::portable;
  mean = pm::opaque(mean);
  if (!(mean >= T(0)) || !(mean < T(1e15))) return -1;
  if (mean == T(0)) return 0;
  if (mean < T(10)) {  // Knuth: the first k with U_1 ... U_(k+1) <= e^-mean
    const T limit = pm::exp(-mean);
    long long k = 0;
    T prod = s.template uniform<T>();
    while (prod > limit) {
      prod = prod * s.template uniform<T>();
      ++k;
    }
    return k;
  }
  // PTRS (Hoermann 1993).
  const T slam = pm::sqrt(mean), loglam = pm::log(mean);
  const T b = pm::fma_(T(2.53), slam, T(0.931));
  const T a = pm::fma_(T(0.02483), b, T(-0.059));
  const T invalpha = T(1.1239) + T(1.1328) / (b - T(3.4));
  const T vr = T(0.9277) - T(3.6224) / (b - T(2));
  for (;;) {
    const T U = s.template uniform<T>() - T(0.5);
    const T V = s.template uniform<T>();
    const T us = T(0.5) - (U < T(0) ? -U : U);
    const T kf = pm::floor(pm::fma_(T(2) * a / us + b, U, mean + T(0.43)));
    if (us >= T(0.07) && V <= vr) return (long long)kf;
    if (kf < T(0) || (us < T(0.013) && V > us)) continue;
    // log(V invalpha / (a / us^2 + b)) <= -mean + k log(mean) - log k!
    const T lhs = pm::log(V) + pm::log(invalpha) - pm::log(a / (us * us) + b);
    if (lhs <= pm::fma_(kf, loglam, -mean) - pm::lgamma(kf + T(1))) return (long long)kf;
  }
}

// Negative binomial with mean mu and dispersion phi (variance mu + mu^2 / phi).
template <class T>
FLUXION_HOST_DEVICE long long sample_neg_binomial_2(draw_stream& s, T mu, T phi) {
  mu = math::portable::opaque(mu), phi = math::portable::opaque(phi);
  if (!(mu >= T(0)) || !(phi > T(0))) return -1;
  if (mu == T(0)) return 0;
  return sample_poisson<T>(s, sample_gamma<T>(s, phi, phi / mu));
}

template <class T>
FLUXION_HOST_DEVICE long long sample_binomial(draw_stream& s, long long n, T p) {
  p = math::portable::opaque(p);
  if (n < 0 || !(p >= T(0) && p <= T(1))) return -1;
  long long k = 0;
  for (long long i = 0; i < n; ++i) k += s.template uniform<T>() < p ? 1 : 0;
  return k;
}

// Beta-binomial: n trials with success probability Beta(p kappa, (1 - p) kappa).
template <class T>
FLUXION_HOST_DEVICE long long sample_beta_binomial(draw_stream& s, long long n, T p, T kappa) {
  p = math::portable::opaque(p), kappa = math::portable::opaque(kappa);
  if (n < 0 || !(p > T(0) && p < T(1)) || !(kappa > T(0))) return -1;
  return sample_binomial<T>(s, n, sample_beta<T>(s, p * kappa, (T(1) - p) * kappa));
}

}  // namespace fluxion
