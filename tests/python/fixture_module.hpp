// The Python suite's hierarchical fixture, as a module (fixture_py): a
// stage-structured population of L = 2 lineages (an independent group: no
// equation reads another lineage) in H = 2 habitats (coupled by migration
// D[h][h2]) with S = 3 ordered life stages (transport at maturation rates
// m[s]), and food F per lineage and habitat: 16 states, 21 parameters, small
// enough for the GPU's per-thread Rosenbrock methods. It has shaped shared
// parameters (m, fec, c, D), local ones (mu[lineage][habitat], K[habitat]),
// scalars (r, g), aliases (total, crowd, vigor), every reduction (sum,
// prod, max, min), a fixed index, a shifted index, a named constant, literal
// numbers and time:
//
//   total(l,h) = sum_s X(l,h,s)      crowd(l,h) = total(l,h) / K(h)
//   vigor(l,h) = prod_s 1 / (1 + c(s) X(l,h,s))
//   dX(l,h,s)  = -mu(l,h) (1 + crowd(l,h)) X(l,h,s) + fec(s) X(l,h,2) F(l,h) / (1 + F(l,h))
//                - c(s) X(l,h,s-1) X(l,h,s) / (1 + total(l,h))
//                + sum_h2 D(h,h2) X(l,h2,s) - X(l,h,s) sum_h2 D(h2,h) + transport<stage>(m(s), X)
//   dF(l,h)    = r (1 + 0.25 sin(two_pi t / 365)) (1 - F(l,h)) - g F(l,h) (1 - vigor(l,h))
//   observables: adults[l][h] = X(l,h,2), peak[l][h] = max_s X(l,h,s),
//                grand = sum_l sum_h total(l,h), scarcest = min_l min_h F(l,h)
//
// tests/python/oracle.py writes the same equations by hand in NumPy. (The
// python suite's log-densities are the SEIR example's, examples/python.)
#pragma once
#include <fluxion/python.hpp>

namespace fixture {

namespace fx = fluxion;

inline constexpr int L = 2, H = 2, S = 3;
using lineage = fx::index<"lineage", L>;
using habitat = fx::index<"habitat", H>;
using stage = fx::index<"stage", S, fx::ordered>;

inline constexpr fx::ivar<lineage, 0, "l"> l;
inline constexpr fx::ivar<habitat, 0, "h"> h;
inline constexpr fx::ivar<habitat, 1, "h2"> h2;
inline constexpr fx::ivar<stage, 0, "s"> s;

inline constexpr fx::state<"X", lineage, habitat, stage> X;
inline constexpr fx::state<"F", lineage, habitat> F;

inline constexpr fx::param<"m", stage> m;
inline constexpr fx::param<"mu", lineage, habitat> mu;
inline constexpr fx::param<"K", habitat> Kc;
inline constexpr fx::param<"fec", stage> fec;
inline constexpr fx::param<"c", stage> c;
inline constexpr fx::param<"r"> r;
inline constexpr fx::param<"g"> g;
inline constexpr fx::param<"D", habitat, habitat> D;
inline constexpr fx::constant<"two_pi", 6.283185307179586> two_pi;

inline constexpr auto total = fx::alias<"total">(fx::sum(s, X(l, h, s)));
inline constexpr auto crowd = fx::alias<"crowd">(total(l, h) / Kc(h));
inline constexpr auto vigor = fx::alias<"vigor">(fx::prod(s, 1.0 / (1.0 + c(s) * X(l, h, s))));

inline constexpr auto model = fx::model(                                                          //
    fx::states(X, F), fx::params(m, mu, Kc, fec, c, r, g, D),                                     //
    fx::d(X(l, h, s)) = -mu(l, h) * (1.0 + crowd(l, h)) * X(l, h, s)                              //
                        + fec(s) * X(l, h, 2) * F(l, h) / (1.0 + F(l, h))                         //
                        - c(s) * X(l, h, s - 1) * X(l, h, s) / (1.0 + total(l, h))                //
                        + fx::sum(h2, D(h, h2) * X(l, h2, s)) - X(l, h, s) * fx::sum(h2, D(h2, h)),  //
    fx::d(F(l, h)) = r * (1.0 + 0.25 * fx::sin(two_pi * fx::t / 365.0)) * (1.0 - F(l, h))          //
                     - g * F(l, h) * (1.0 - vigor(l, h)),                                         //
    fx::transport<stage>(m(s), X),                                                                //
    fx::group<lineage>(fx::independent),                                                          //
    fx::group<habitat>(fx::coupled),                                                              //
    fx::observe<"adults">(l, h) = X(l, h, 2),                                                     //
    fx::observe<"peak">(l, h) = fx::max(s, X(l, h, s)),                                           //
    fx::observe<"grand">() = fx::sum(l, fx::sum(h, total(l, h))),                                 //
    fx::observe<"scarcest">() = fx::min(l, fx::min(h, F(l, h))));

}  // namespace fixture

FLUXION_PYTHON_MODULE(fixture_py, fluxion::python::module_spec<fixture::model>);
