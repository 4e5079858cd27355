#pragma once
// The hierarchical balance fixture: a stage-structured insect population in
// H = 5 habitats with S = 4 ordered life stages (egg, larva, pupa, adult),
// written twice over shared pieces:
//
//   hier::local     habitats declared fx::independent: every equation of
//                   habitat h reads habitat h only (accepted by the checker).
//   hier::connected the same balance plus migration between habitats through
//                   a matrix D[h][h'] read with a second habitat variable and
//                   a reduction; habitats declared fx::coupled.
//
// States (declaration order): X[habitat][stage] population, F[habitat] food.
// Parameters (declaration order): m[stage] maturation (transport rate, shared,
// shaped), mu[habitat] mortality (local), K[habitat] carrying capacity
// (local), fec[stage] fecundity into each stage (shared, shaped; only the egg
// entry is non-zero in the natural model), c[stage] predation by the previous
// stage (shared, shaped), r food regrowth, g food consumption (scalars),
// and, in `connected` only, D[habitat][habitat] migration.
//
//   total(h) = sum_s X(h, s)                                       (alias, sum)
//   crowd(h) = total(h) / K(h)                                     (alias of alias)
//   vigor(h) = prod_s 1 / (1 + c(s) X(h, s))                       (alias, prod)
//   dX(h,s)  = -mu(h) (1 + crowd(h)) X(h,s)
//              + fec(s) X(h, 3) F(h) / (1 + F(h))                  (fixed index: adults)
//              - c(s) X(h, s-1) X(h, s) / (1 + total(h))           (shift; 0 for s = 0)
//              + transport<stage>(m(s), X)                          (m(s) X(h,s) from s to s+1, none from s = 3)
//   [connected] + sum_h' D(h, h') X(h', s) - X(h, s) sum_h' D(h', h)  (migration, conserving)
//   dF(h)    = r (1 - F(h)) - g F(h) (1 - vigor(h))
//
// Observables (declaration order): adults[h] = X(h, 3), peak[h] = max_s X(h, s),
// grand = sum_h total(h), scarcest = min_h F(h).
//
// `hier::reference<T>` re-writes all of this by hand with loops over plain
// arrays in the canonical flat order (declaration order, row-major, last
// index fastest), without fluxion.
#include <array>
#include <cstddef>
#include <random>

#include <fluxion/fluxion.hpp>

namespace hier {

namespace fx = fluxion;

inline constexpr int H = 5;  // habitats
inline constexpr int S = 4;  // stages

using habitat = fx::index<"habitat", H>;
using stage = fx::index<"stage", S, fx::ordered>;

inline constexpr fx::ivar<habitat, 0, "h"> h;
inline constexpr fx::ivar<habitat, 1, "h2"> h2;
inline constexpr fx::ivar<stage, 0, "s"> s;

inline constexpr fx::state<"X", habitat, stage> X;
inline constexpr fx::state<"F", habitat> F;

inline constexpr fx::param<"m", stage> m;
inline constexpr fx::param<"mu", habitat> mu;
inline constexpr fx::param<"K", habitat> Kc;
inline constexpr fx::param<"fec", stage> fec;
inline constexpr fx::param<"c", stage> c;
inline constexpr fx::param<"r"> r;
inline constexpr fx::param<"g"> g;
inline constexpr fx::param<"D", habitat, habitat> D;

inline constexpr auto total = fx::alias<"total">(fx::sum(s, X(h, s)));
inline constexpr auto crowd = fx::alias<"crowd">(total(h) / Kc(h));
inline constexpr auto vigor = fx::alias<"vigor">(fx::prod(s, 1.0 / (1.0 + c(s) * X(h, s))));

// The within-habitat balance of X, shared by both models.
inline constexpr auto local_X = -mu(h) * (1.0 + crowd(h)) * X(h, s)           //
                                + fec(s) * X(h, 3) * F(h) / (1.0 + F(h))        //
                                - c(s) * X(h, s - 1) * X(h, s) / (1.0 + total(h));
inline constexpr auto migration = fx::sum(h2, D(h, h2) * X(h2, s)) - X(h, s) * fx::sum(h2, D(h2, h));
inline constexpr auto food = r * (1.0 - F(h)) - g * F(h) * (1.0 - vigor(h));

inline constexpr auto local = fx::model(                                  //
    fx::states(X, F), fx::params(m, mu, Kc, fec, c, r, g),               //
    fx::d(X(h, s)) = local_X,                                             //
    fx::d(F(h)) = food,                                                   //
    fx::transport<stage>(m(s), X),                                        //
    fx::group<habitat>(fx::independent),                                  //
    fx::observe<"adults">(h) = X(h, 3),                                   //
    fx::observe<"peak">(h) = fx::max(s, X(h, s)),                         //
    fx::observe<"grand">() = fx::sum(h, total(h)),                        //
    fx::observe<"scarcest">() = fx::min(h, F(h)));

inline constexpr auto connected = fx::model(                              //
    fx::states(X, F), fx::params(m, mu, Kc, fec, c, r, g, D),            //
    fx::d(X(h, s)) = local_X + migration,                                 //
    fx::d(F(h)) = food,                                                   //
    fx::transport<stage>(m(s), X),                                        //
    fx::group<habitat>(fx::coupled),                                      //
    fx::observe<"adults">(h) = X(h, 3),                                   //
    fx::observe<"peak">(h) = fx::max(s, X(h, s)),                         //
    fx::observe<"grand">() = fx::sum(h, total(h)),                        //
    fx::observe<"scarcest">() = fx::min(h, F(h)));

// ---- the hand-written reference ---------------------------------------------------
// Canonical flat offsets, written out by hand.
namespace flat {
inline constexpr std::size_t X = 0;                // X[h][s] at 4 h + s
inline constexpr std::size_t F = H * S;            // F[h] at 20 + h
inline constexpr std::size_t n_states = H * S + H;  // 25
inline constexpr std::size_t m = 0, mu = 4, K = 9, fec = 14, c = 18, r = 22, g = 23, D = 24;
inline constexpr std::size_t n_params_local = 24, n_params_connected = 24 + H * H;  // 49
inline constexpr std::size_t adults = 0, peak = 5, grand = 10, scarcest = 11, n_observables = 12;
}  // namespace flat

template <class T>
struct reference {
  bool with_migration;

  std::size_t n_params() const { return with_migration ? flat::n_params_connected : flat::n_params_local; }

  void rhs(T /*t*/, const T* x, const T* p, T* dx) const {
    const T* Xv = x + flat::X;
    const T* Fv = x + flat::F;
    const T* m = p + flat::m;
    const T* mu = p + flat::mu;
    const T* K = p + flat::K;
    const T* fec = p + flat::fec;
    const T* c = p + flat::c;
    const T r = p[flat::r], g = p[flat::g];
    const T* D = p + flat::D;
    for (int hh = 0; hh < H; ++hh) {
      T tot = 0;
      for (int ss = 0; ss < S; ++ss) tot += Xv[hh * S + ss];
      const T crowd = tot / K[hh];
      T vigor = 1;
      for (int ss = 0; ss < S; ++ss) vigor *= T(1) / (T(1) + c[ss] * Xv[hh * S + ss]);
      const T adults = Xv[hh * S + 3];
      for (int ss = 0; ss < S; ++ss) {
        const T xv = Xv[hh * S + ss];
        const T prev = ss > 0 ? Xv[hh * S + ss - 1] : T(0);
        T v = -mu[hh] * (T(1) + crowd) * xv + fec[ss] * adults * Fv[hh] / (T(1) + Fv[hh]) -
              c[ss] * prev * xv / (T(1) + tot);
        if (ss < S - 1) v -= m[ss] * xv;           // outflow to the next stage
        if (ss > 0) v += m[ss - 1] * prev;         // inflow from the previous stage
        if (with_migration) {
          T in = 0, out = 0;
          for (int o = 0; o < H; ++o) {
            in += D[hh * H + o] * Xv[o * S + ss];
            out += D[o * H + hh];
          }
          v += in - xv * out;
        }
        dx[flat::X + std::size_t(hh * S + ss)] = v;
      }
      dx[flat::F + std::size_t(hh)] = r * (T(1) - Fv[hh]) - g * Fv[hh] * (T(1) - vigor);
    }
  }

  void observe(T /*t*/, const T* x, const T* /*p*/, T* y) const {
    T grand = 0, scarcest = x[flat::F];
    for (int hh = 0; hh < H; ++hh) {
      T peak = x[flat::X + std::size_t(hh * S)];
      for (int ss = 0; ss < S; ++ss) {
        const T v = x[flat::X + std::size_t(hh * S + ss)];
        grand += v;
        if (v > peak) peak = v;
      }
      y[flat::adults + std::size_t(hh)] = x[flat::X + std::size_t(hh * S + 3)];
      y[flat::peak + std::size_t(hh)] = peak;
      if (x[flat::F + std::size_t(hh)] < scarcest) scarcest = x[flat::F + std::size_t(hh)];
    }
    y[flat::grand] = grand;
    y[flat::scarcest] = scarcest;
  }
};

// A random, biologically plausible point in canonical order.
template <class T>
struct point {
  std::array<T, flat::n_states> x{};
  std::array<T, flat::n_params_connected> p{};  // the first n_params() entries are used
};

template <class T, class Rng>
point<T> random_point(Rng& rng, bool with_migration) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto in = [&](double lo, double hi) { return T(lo + (hi - lo) * u(rng)); };
  point<T> pt;
  for (std::size_t i = 0; i < std::size_t(H * S); ++i) pt.x[flat::X + i] = in(0.1, 3.0);
  for (std::size_t i = 0; i < std::size_t(H); ++i) pt.x[flat::F + i] = in(0.05, 1.0);
  for (int i = 0; i < S; ++i) pt.p[flat::m + std::size_t(i)] = in(0.05, 0.8);  // m[3] non-zero: must be ignored
  for (int i = 0; i < H; ++i) pt.p[flat::mu + std::size_t(i)] = in(0.01, 0.3);
  for (int i = 0; i < H; ++i) pt.p[flat::K + std::size_t(i)] = in(5.0, 20.0);
  for (int i = 0; i < S; ++i) pt.p[flat::fec + std::size_t(i)] = i == 0 ? in(1.0, 4.0) : in(0.0, 0.2);
  for (int i = 0; i < S; ++i) pt.p[flat::c + std::size_t(i)] = in(0.0, 0.5);
  pt.p[flat::r] = in(0.1, 1.0);
  pt.p[flat::g] = in(0.1, 1.0);
  if (with_migration)
    for (int i = 0; i < H * H; ++i) pt.p[flat::D + std::size_t(i)] = in(0.0, 0.2);
  return pt;
}

}  // namespace hier
