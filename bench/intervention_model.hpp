// The intervention model of bench/intervention_device.cu and its inputs
// (bench/intervention_diffrax.py reads the same inputs from the file the
// benchmark writes).
//
//   S' = -b S I, E' = b S I - sigma E, I' = sigma E - gamma I, R' = gamma I,
//   L' = 0, with b = beta (1 - effect L); L = 1 from day 30 (the lockdown);
//   at day 60 a fifth of S moved to R (the vaccination pulse).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace intervention {

namespace fx = fluxion;

constexpr fx::state<"S"> S;
constexpr fx::state<"E"> E;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::state<"L"> L;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"effect"> effect;
constexpr auto infection = fx::alias<"infection">(beta * (1 - effect * L) * S * I);
constexpr auto seirl = fx::model(fx::states(S, E, I, R, L), fx::params(beta, sigma, gam, effect),
                                 fx::d(S) = -infection, fx::d(E) = infection - sigma * E,
                                 fx::d(I) = sigma * E - gam * I, fx::d(R) = gam * I, fx::d(L) = 0.0 * L);

template <class T>
fx::timed_events<T> events() {
  fx::timed_events<T> ev;
  ev.set(T(30), 4, T(1)).move(T(60), 0, 3, T(0.2));
  return ev;
}

// SoA: x0 (5 rows of N) and p (4 rows of N): i0 in [1e-4, 1e-3], beta in
// [0.3, 0.6], sigma in [0.15, 0.3], gamma in [0.1, 0.2], effect in [0.3, 0.7].
template <class T>
void inputs(std::size_t N, std::uint64_t seed, std::vector<T>& x0, std::vector<T>& p) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> i0(1e-4, 1e-3), b(0.3, 0.6), s(0.15, 0.3), g(0.1, 0.2), e(0.3, 0.7);
  x0.assign(5 * N, T(0));
  p.resize(4 * N);
  for (std::size_t i = 0; i < N; ++i) {
    const double v = i0(rng);
    x0[i] = T(1 - v), x0[2 * N + i] = T(v);
    p[i] = T(b(rng)), p[N + i] = T(s(rng)), p[2 * N + i] = T(g(rng)), p[3 * N + i] = T(e(rng));
  }
}

}  // namespace intervention
