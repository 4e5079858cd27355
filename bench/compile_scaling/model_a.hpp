// Model A of BENCHMARKS.md with P = FLUXION_P patches (default 8), K = 4.
#pragma once
#include <fluxion/core.hpp>  // not the host threads: the device twins run no host batch
#ifndef FLUXION_P
#define FLUXION_P 8
#endif
namespace bench_a {
namespace fx = fluxion;
constexpr int P = FLUXION_P, K = 4;
using patch = fx::index<"patch", P>;
using age = fx::index<"age", K, fx::ordered>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"E", patch, age> E;
constexpr fx::state<"I", patch, age> I;
constexpr fx::state<"R", patch, age> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"a", age> a;
constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k) + E(p, k) + I(p, k) + R(p, k)));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * fx::sum(k, I(q, k)) / N(q)));
constexpr auto modelA = fx::model(fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),
                                  fx::d(S(p, k)) = -lam(p) * S(p, k),
                                  fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),
                                  fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),
                                  fx::d(R(p, k)) = gam * I(p, k),
                                  fx::transport<age>(a(k), S, E, I, R),
                                  fx::group<patch>(fx::coupled),
                                  fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));
using M = fx::compiled<modelA, double>;
}  // namespace bench_a
