// Model A of BENCHMARKS.md: the staged, coupled metapopulation SEIR
// (P = 8 patches, K = 4 age stages, S E I R; 128 states, 78 parameters).
// Written once with fluxion, evaluated for a batch of instances in both layout
// policies and both batch orders, and checked against a hand-written loop
// version of the same equations. Prints the layout table and the largest
// relative error; exits 1 on a mismatch.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

constexpr int P = 8, K = 4;
using patch = fx::index<"patch", P>;
using age = fx::index<"age", K, fx::ordered>;  // ordered: stages with transport
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
constexpr auto modelA = fx::model(                            //
    fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),  //
    fx::d(S(p, k)) = -lam(p) * S(p, k),                        //
    fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),        //
    fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),           //
    fx::d(R(p, k)) = gam * I(p, k),                             //
    fx::transport<age>(a(k), S, E, I, R),                       //
    fx::group<patch>(fx::coupled),                              //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));

// The same equations by hand, canonical order: x[((c * P + p) * K + k)],
// parameters beta[P], C[P][P], sigma, gamma, a[K].
constexpr int NS = 4 * P * K, NP = P + P * P + 2 + K;
void hand_rhs(const double* x, const double* prm, double* dx, double* y) {
  auto X = [&](int c, int pp, int kk) { return x[(c * P + pp) * K + kk]; };
  double frac[P];
  for (int pp = 0; pp < P; ++pp) {
    double n = 0, it = 0;
    for (int c = 0; c < 4; ++c)
      for (int kk = 0; kk < K; ++kk) n += X(c, pp, kk);
    for (int kk = 0; kk < K; ++kk) it += X(2, pp, kk);
    frac[pp] = it / n;
  }
  const double sg = prm[P + P * P], gm = prm[P + P * P + 1];
  const double* ak = prm + P + P * P + 2;
  for (int pp = 0; pp < P; ++pp) {
    double s = 0;
    for (int qq = 0; qq < P; ++qq) s += prm[P + pp * P + qq] * frac[qq];
    const double l = prm[pp] * s;
    y[pp] = 0;
    for (int kk = 0; kk < K; ++kk) {
      double f[4] = {-l * X(0, pp, kk), l * X(0, pp, kk) - sg * X(1, pp, kk), sg * X(1, pp, kk) - gm * X(2, pp, kk),
                     gm * X(2, pp, kk)};
      for (int c = 0; c < 4; ++c) {
        if (kk < K - 1) f[c] -= ak[kk] * X(c, pp, kk);
        if (kk > 0) f[c] += ak[kk - 1] * X(c, pp, kk - 1);
        dx[(c * P + pp) * K + kk] = f[c];
      }
      y[pp] += sg * X(1, pp, kk);
    }
  }
}

// Runs a batch of B instances through layout policy Policy; returns the max
// relative error against hand_rhs.
template <class Policy>
double run(const std::vector<double>& xc, const std::vector<double>& pc, std::size_t B, bool soa) {
  using M = fx::compiled<modelA, double, Policy>;
  using L = typename M::layout::state;
  static_assert(M::n_states == NS && M::n_params == NP && M::n_observables == P);
  std::vector<std::size_t> map(NS);  // canonical index -> layout offset
  for (int pp = 0; pp < P; ++pp)
    for (int kk = 0; kk < K; ++kk) {
      map[std::size_t((0 * P + pp) * K + kk)] = L::offset(S, pp, kk);
      map[std::size_t((1 * P + pp) * K + kk)] = L::offset(E, pp, kk);
      map[std::size_t((2 * P + pp) * K + kk)] = L::offset(I, pp, kk);
      map[std::size_t((3 * P + pp) * K + kk)] = L::offset(R, pp, kk);
    }
  auto at = [&](std::size_t b, std::size_t j, std::size_t n) { return soa ? j * B + b : b * n + j; };
  std::vector<double> x(NS * B), prm(NP * B), dx(NS * B), y(P * B);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t i = 0; i < NS; ++i) x[at(b, map[i], NS)] = xc[b * NS + i];
    for (std::size_t j = 0; j < NP; ++j) prm[at(b, j, NP)] = pc[b * NP + j];
  }
  const std::vector<double>& cx = x;
  const std::vector<double>& cp = prm;
  if (soa) {
    fx::host::rhs(M{}, 0.0, B, fx::soa(cx), fx::soa(cp), fx::soa(dx));
    fx::host::observe(M{}, 0.0, B, fx::soa(cx), fx::soa(cp), fx::soa(y));
  } else {
    fx::host::rhs(M{}, 0.0, B, fx::aos(cx), fx::aos(cp), fx::aos(dx));
    fx::host::observe(M{}, 0.0, B, fx::aos(cx), fx::aos(cp), fx::aos(y));
  }
  double err = 0;
  double want[NS], yw[P];
  for (std::size_t b = 0; b < B; ++b) {
    hand_rhs(&xc[b * NS], &pc[b * NP], want, yw);
    for (std::size_t i = 0; i < NS; ++i)
      err = std::max(err, std::abs(dx[at(b, map[i], NS)] - want[i]) / (std::abs(want[i]) + 1e-300));
    for (std::size_t i = 0; i < P; ++i) err = std::max(err, std::abs(y[at(b, i, P)] - yw[i]) / (std::abs(yw[i]) + 1e-300));
  }
  return err;
}

int main() {
  using M = fx::compiled<modelA, double>;
  std::printf("Model A: %zu states, %zu parameters, %zu observables an instance\n\n", M::n_states, M::n_params,
              M::n_observables);
  std::printf("symbol-major layout:\n%s\n", fx::layout_table<M::layout>().c_str());
  std::printf("group-major<patch> state layout:\n%s\n",
              fx::layout_table<fx::compiled<modelA, double, fx::group_major<patch>>::layout>().c_str());

  constexpr std::size_t B = 64;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  std::vector<double> xc(NS * B), pc(NP * B);
  for (auto& v : xc) v = u(rng);
  for (auto& v : pc) v = 0.3 * u(rng);
  for (std::size_t b = 0; b < B; ++b) pc[b * NP + NP - 1] = 0.0;  // a[K-1] = 0, as in BENCHMARKS.md

  double worst = 0;
  const struct {
    const char* name;
    double err;
  } rows[] = {{"symbol-major, AoS", run<fx::symbol_major>(xc, pc, B, false)},
              {"symbol-major, SoA", run<fx::symbol_major>(xc, pc, B, true)},
              {"group-major<patch>, AoS", run<fx::group_major<patch>>(xc, pc, B, false)},
              {"group-major<patch>, SoA", run<fx::group_major<patch>>(xc, pc, B, true)}};
  for (const auto& r : rows) {
    std::printf("%-26s max relative error vs hand-written: %.3e\n", r.name, r.err);
    worst = std::max(worst, r.err);
  }
  const bool ok = worst <= 1e-12;
  std::printf("max error %.3e: %s\n", worst, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
