#pragma once
// The observation densities of the infer layer: one type per family, each
// with static, __host__ __device__ member functions templated on the scalar
// type (float, double; std::complex<double> on the host for log_density):
//
//   Family::log_density(y, params...)           log p(y), pmfs with their normalizing constants
//   Family::log_cdf(c, params...)               log P(Y <= c)
//   Family::log_ccdf(c, params...)              log P(Y > c)
//   Family::log_density_partials(y, params...)  fx::partials<T, N>: value and d/d parameter
//   Family::log_cdf_partials, log_ccdf_partials likewise
//
// plus Family::data (the data_kind its observations must have), Family::discrete,
// and names for the derivative slots (fx::normal::sd, fx::neg_binomial_2::dispersion).
// For discrete families a bound c is floored (P(Y <= 2.5) = P(Y <= 2)).
// Parameters outside their domain give NaN, data outside the support -inf.
//
//   family                   parameters (derivative slots)          data
//   fx::normal               mean, sd                                real
//   fx::lognormal            mu, sigma (of log y)                    positive
//   fx::poisson              mean                                    count
//   fx::neg_binomial_2       mean, dispersion (var mu + mu^2/phi)    count
//   fx::binomial             n (data), probability                  count <= n
//   fx::beta_binomial        n (data), probability, concentration   count <= n
//
// Censored observations: fluxion/infer/censoring.hpp.
#include <fluxion/infer/densities/beta_binomial.hpp>
#include <fluxion/infer/densities/binomial.hpp>
#include <fluxion/infer/densities/lognormal.hpp>
#include <fluxion/infer/densities/neg_binomial_2.hpp>
#include <fluxion/infer/densities/normal.hpp>
#include <fluxion/infer/densities/poisson.hpp>
