// Model A of BENCHMARKS.md (staged, coupled metapopulation SEIR: P = 8
// patches, K = 4 age stages, 128 states, 78 parameters) over a parameter
// grid: transmission scale x infectious period, one trajectory per grid
// point, an epidemic seeded in patch 0 spreading through the contact matrix.
// Shared by examples/model_a_grid.cu and bench/model_a_grid.cu; the peer
// (bench/peers/model_a_grid_diffrax.py) builds the same grid from the same
// formulas.
#pragma once
#include <cstddef>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace model_a_grid {

namespace fx = fluxion;

constexpr int P = 8, K = 4;
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
constexpr auto model = fx::model(                               //
    fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),  //
    fx::d(S(p, k)) = -lam(p) * S(p, k),                          //
    fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),         //
    fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),            //
    fx::d(R(p, k)) = gam * I(p, k),                              //
    fx::transport<age>(a(k), S, E, I, R),                        //
    fx::group<patch>(fx::coupled),                               //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));

// The grid: G x G points; point g = i G + j has transmission scale
// 0.2 + 0.6 i / (G - 1) (beta_p = scale (1 + 0.1 p)) and infectious period
// 3 + 7 j / (G - 1) days (gamma = 1 / period). Shared: sigma = 1 / 5.2,
// C = 0.8 on the diagonal and 0.2 / (P - 1) elsewhere, aging rates
// (1/20, 1/40, 1/60, 0) per day. Initial state: S = 1000 (1 + 0.1 k) in every
// patch and stage, one infectious person in each stage of patch 0.
constexpr double t_end = 200.0;
constexpr int n_save = 10;  // t = 20, 40, ..., 200

inline std::vector<double> save_times() {
  std::vector<double> ts(n_save);
  for (int s = 0; s < n_save; ++s) ts[std::size_t(s)] = t_end * (s + 1) / n_save;
  return ts;
}

// Parameters and initial states of the grid's G x G trajectories, as SoA
// batches in the model's layout (value j of trajectory b at j B + b).
template <class T>
void grid_inputs(std::size_t G, std::vector<T>& x0, std::vector<T>& prm) {
  using M = fx::compiled<model, T>;
  using LS = typename M::layout::state;
  using LP = typename M::layout::param;
  const std::size_t B = G * G;
  x0.assign(M::n_states * B, T(0));
  prm.assign(M::n_params * B, T(0));
  const double aging[K] = {1.0 / 20, 1.0 / 40, 1.0 / 60, 0.0};
  for (std::size_t b = 0; b < B; ++b) {
    const double i = double(b / G), j = double(b % G), last = double(G > 1 ? G - 1 : 1);
    const double scale = 0.2 + 0.6 * i / last, period = 3.0 + 7.0 * j / last;
    auto set = [&](std::size_t offset, double v) { prm[offset * B + b] = T(v); };
    for (int pp = 0; pp < P; ++pp) {
      set(LP::offset(beta, pp), scale * (1 + 0.1 * pp));
      for (int qq = 0; qq < P; ++qq) set(LP::offset(C, pp, qq), pp == qq ? 0.8 : 0.2 / (P - 1));
    }
    set(LP::offset(sigma), 1 / 5.2);
    set(LP::offset(gam), 1 / period);
    for (int kk = 0; kk < K; ++kk) set(LP::offset(a, kk), aging[kk]);
    for (int pp = 0; pp < P; ++pp)
      for (int kk = 0; kk < K; ++kk) {
        x0[LS::offset(S, pp, kk) * B + b] = T(1000 * (1 + 0.1 * kk));
        x0[LS::offset(I, pp, kk) * B + b] = T(pp == 0 ? 1 : 0);
      }
  }
}

}  // namespace model_a_grid
