#pragma once
// Model A of BENCHMARKS.md: the staged, coupled metapopulation SEIR, P = 8
// patches, K = 4 age stages, with a hand-written reference (plain loops over
// plain arrays in the canonical flat order, no fluxion).
//
//   states  S, E, I, R [P][K]    (4 * P * K = 128, S block first)
//   params  beta[P], C[P][P], sigma, gamma, a[K]   (P + P*P + 2 + K = 78)
//   N_p   = sum_k S + E + I + R
//   lam_p = beta_p * sum_q C[p][q] * (sum_k I[q][k]) / N_q
//   aging k -> k+1 at rate a[k] for every compartment; no outflow from k = K-1
//   observable incidence[p] = sum_k sigma * E[p][k]
#include <array>
#include <cstddef>
#include <random>

#include <fluxion/fluxion.hpp>

namespace model_a {

namespace fx = fluxion;

inline constexpr int P = 8, K = 4;
using patch = fx::index<"patch", P>;
using age = fx::index<"age", K, fx::ordered>;

inline constexpr fx::ivar<patch, 0, "p"> p;
inline constexpr fx::ivar<patch, 1, "q"> q;
inline constexpr fx::ivar<age, 0, "k"> k;
inline constexpr fx::state<"S", patch, age> S;
inline constexpr fx::state<"E", patch, age> E;
inline constexpr fx::state<"I", patch, age> I;
inline constexpr fx::state<"R", patch, age> R;
inline constexpr fx::param<"beta", patch> beta;
inline constexpr fx::param<"C", patch, patch> C;
inline constexpr fx::param<"sigma"> sigma;
inline constexpr fx::param<"gamma"> gam;
inline constexpr fx::param<"a", age> a;

inline constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k) + E(p, k) + I(p, k) + R(p, k)));
inline constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * fx::sum(k, I(q, k)) / N(q)));
inline constexpr auto model = fx::model(                 //
    fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),  //
    fx::d(S(p, k)) = -lam(p) * S(p, k),                  //
    fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),  //
    fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),     //
    fx::d(R(p, k)) = gam * I(p, k),                       //
    fx::transport<age>(a(k), S, E, I, R),                 //
    fx::group<patch>(fx::coupled),                        //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));

inline constexpr std::size_t n_states = 4 * P * K;          // 128
inline constexpr std::size_t n_params = P + P * P + 2 + K;  // 78
inline constexpr std::size_t n_observables = P;
// Canonical flat offsets.
constexpr std::size_t xi(int c, int pp, int kk) { return std::size_t((c * P + pp) * K + kk); }
inline constexpr std::size_t beta_at = 0, C_at = P, sigma_at = P + P * P, gamma_at = sigma_at + 1, a_at = sigma_at + 2;

template <class T>
void reference_rhs(const T* x, const T* prm, T* dx) {
  T frac[P];
  for (int pp = 0; pp < P; ++pp) {
    T n = 0, it = 0;
    for (int c = 0; c < 4; ++c)
      for (int kk = 0; kk < K; ++kk) n += x[xi(c, pp, kk)];
    for (int kk = 0; kk < K; ++kk) it += x[xi(2, pp, kk)];
    frac[pp] = it / n;
  }
  const T sg = prm[sigma_at], gm = prm[gamma_at];
  for (int pp = 0; pp < P; ++pp) {
    T s = 0;
    for (int qq = 0; qq < P; ++qq) s += prm[C_at + std::size_t(pp * P + qq)] * frac[qq];
    const T l = prm[beta_at + std::size_t(pp)] * s;
    for (int kk = 0; kk < K; ++kk) {
      const T Sv = x[xi(0, pp, kk)], Ev = x[xi(1, pp, kk)], Iv = x[xi(2, pp, kk)];
      T f[4] = {-l * Sv, l * Sv - sg * Ev, sg * Ev - gm * Iv, gm * Iv};
      for (int c = 0; c < 4; ++c) {
        if (kk < K - 1) f[c] -= prm[a_at + std::size_t(kk)] * x[xi(c, pp, kk)];
        if (kk > 0) f[c] += prm[a_at + std::size_t(kk - 1)] * x[xi(c, pp, kk - 1)];
        dx[xi(c, pp, kk)] = f[c];
      }
    }
  }
}

template <class T>
void reference_observe(const T* x, const T* prm, T* y) {
  for (int pp = 0; pp < P; ++pp) {
    T s = 0;
    for (int kk = 0; kk < K; ++kk) s += prm[sigma_at] * x[xi(1, pp, kk)];
    y[pp] = s;
  }
}

template <class T, class Rng>
void random_instance(Rng& rng, T* x, T* prm, bool last_rate_zero = true) {
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (std::size_t i = 0; i < n_states; ++i) x[i] = T(u(rng));
  for (std::size_t j = 0; j < n_params; ++j) prm[j] = T(u(rng) * 0.3);
  if (last_rate_zero) prm[a_at + K - 1] = T(0);
}

}  // namespace model_a
