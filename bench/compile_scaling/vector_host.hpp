// A vector-host model of the class that issue 14 reported as slow to compile
// (many distinct equations rather than large extents): mosquitoes in H
// habitats through eggs, four larval instars, pupae and adults on a
// gonotrophic cycle, with piecewise temperature-driven development, larval
// crowding, dispersal between habitats, and SIRS hosts (humans and
// livestock) infected by and infecting the vectors. 24 state symbols,
// 29 parameters, 15 aliases, 5 observables.
//
// ENTRY (-DENTRY=none (the model only), rhs, observe, jac_x_values, jac_p_values, obs_jac_x_values,
// obs_jac_p_values, jvp_x, jvp_p or all; default all) selects which entry
// points the translation units vector_host_host.cpp and vector_host_device.cu
// instantiate, so bench/compile_scaling.sh can charge compile time to each.
#pragma once
#include <fluxion/core.hpp>  // not the host threads: the device twins run no host batch

#ifndef FLUXION_VH_H
#define FLUXION_VH_H 3
#endif

#define VH_ENTRY_all 100
#define VH_ENTRY_none 99  // the model alone (headers, validation, layout)
#define VH_ENTRY_rhs 1
#define VH_ENTRY_observe 2
#define VH_ENTRY_jac_x_values 3
#define VH_ENTRY_jac_p_values 4
#define VH_ENTRY_obs_jac_x_values 5
#define VH_ENTRY_obs_jac_p_values 6
#define VH_ENTRY_jvp_x 7
#define VH_ENTRY_jvp_p 8
#ifndef ENTRY
#define ENTRY all
#endif
#define VH_ENTRY_ID2(e) VH_ENTRY_##e
#define VH_ENTRY_ID(e) VH_ENTRY_ID2(e)
#if VH_ENTRY_ID(ENTRY) == 0
#error "ENTRY must be one of all, none, rhs, observe, jac_x_values, jac_p_values, obs_jac_x_values, obs_jac_p_values, jvp_x, jvp_p"
#endif
// Whether entry point N is compiled in this translation unit.
#define VH_WANT(N) (VH_ENTRY_ID(ENTRY) == VH_ENTRY_all || VH_ENTRY_ID(ENTRY) == (N))

namespace bench_vh {
namespace fx = fluxion;
constexpr int H = FLUXION_VH_H;
using habitat = fx::index<"habitat", H>;
using instar = fx::index<"instar", 4, fx::ordered>;  // larval instars L1..L4
using gono = fx::index<"gono", 3, fx::ordered>;      // host seeking, resting, ovipositing
using eip = fx::index<"eip", 3, fx::ordered>;        // extrinsic incubation stages
constexpr fx::ivar<habitat, 0, "h"> h;
constexpr fx::ivar<habitat, 1, "h2"> h2;
constexpr fx::ivar<instar, 0, "k"> k;
constexpr fx::ivar<gono, 0, "g"> g;
constexpr fx::ivar<eip, 0, "e"> e;

// --- states (24) ---------------------------------------------------------------
constexpr fx::state<"Eg", habitat> Eg;           // eggs
constexpr fx::state<"Eq", habitat> Eq;           // quiescent (drought-resistant) eggs
constexpr fx::state<"L", habitat, instar> L;     // larvae
constexpr fx::state<"Pu", habitat> Pu;           // pupae
constexpr fx::state<"Mt", habitat> Mt;           // teneral (newly emerged) females
constexpr fx::state<"Mm", habitat> Mm;           // males
constexpr fx::state<"Ms", habitat, gono> Ms;     // susceptible females, by cycle stage
constexpr fx::state<"Me", habitat, eip> Me;      // exposed females, by incubation stage
constexpr fx::state<"Mi", habitat, gono> Mi;     // infectious females, by cycle stage
constexpr fx::state<"Md", habitat> Md;           // diapausing females
constexpr fx::state<"Sh", habitat> Sh;           // humans: S E I R, vaccinated, cumulative cases
constexpr fx::state<"Eh", habitat> Eh;
constexpr fx::state<"Ih", habitat> Ih;
constexpr fx::state<"Rh", habitat> Rh;
constexpr fx::state<"Vh", habitat> Vh;
constexpr fx::state<"Ch", habitat> Ch;
constexpr fx::state<"Sl", habitat> Sl;           // livestock: S I R
constexpr fx::state<"Il", habitat> Il;
constexpr fx::state<"Rl", habitat> Rl;
constexpr fx::state<"Wt", habitat> Wt;           // water in breeding sites
constexpr fx::state<"Fd", habitat> Fd;           // larval food
constexpr fx::state<"Dd", habitat> Dd;           // accumulated degree days
constexpr fx::state<"Ins"> Ins;                  // residual insecticide (region-wide)
constexpr fx::state<"Trap", habitat> Trap;       // cumulative trap catch

// --- parameters (29) -----------------------------------------------------------
constexpr fx::param<"T0"> T0;                    // mean temperature
constexpr fx::param<"Tamp"> Tamp;                // seasonal amplitude
constexpr fx::param<"Tmin"> Tmin;                // development threshold
constexpr fx::param<"Tmax"> Tmax;                // development plateau
constexpr fx::param<"r_e"> r_e;                  // development per degree: eggs, larvae, pupae, parasite
constexpr fx::param<"r_l"> r_l;
constexpr fx::param<"r_p"> r_p;
constexpr fx::param<"r_eip"> r_eip;
constexpr fx::param<"mu_e"> mu_e;                // mortalities
constexpr fx::param<"mu_l", instar> mu_l;
constexpr fx::param<"mu_p"> mu_p;
constexpr fx::param<"mu_a", habitat> mu_a;
constexpr fx::param<"Kl", habitat> Kl;           // larval carrying capacity per unit of water
constexpr fx::param<"fec"> fec;                  // eggs per oviposition
constexpr fx::param<"q_hatch"> q_hatch;          // hatching of quiescent eggs
constexpr fx::param<"gon", gono> gon;            // gonotrophic stage rates
constexpr fx::param<"bite"> bite;
constexpr fx::param<"b_hv"> b_hv;                // host -> vector transmission
constexpr fx::param<"b_vh"> b_vh;                // vector -> host transmission
constexpr fx::param<"phi"> phi;                  // relative attractiveness of livestock
constexpr fx::param<"sig_h"> sig_h;
constexpr fx::param<"gam_h"> gam_h;
constexpr fx::param<"omega"> omega;              // waning immunity (SIRS)
constexpr fx::param<"nu", habitat> nu;           // vaccination
constexpr fx::param<"gam_l"> gam_l;
constexpr fx::param<"omega_l"> omega_l;
constexpr fx::param<"D", habitat, habitat> D;    // adult dispersal h2 -> h
constexpr fx::param<"rain", habitat> rain;
constexpr fx::param<"evap"> evap;

constexpr fx::constant<"two_pi", 6.283185307179586> two_pi;

// --- aliases -------------------------------------------------------------------
constexpr auto Temp = fx::alias<"Temp">(T0 + Tamp * fx::sin(two_pi * fx::t / 365));
// Development rate: zero below Tmin, linear in degrees above it, flat above Tmax.
constexpr auto ramp = [](auto r) {
  return fx::where(Temp < Tmin, 0, fx::where(Temp > Tmax, r * (Tmax - Tmin), r * (Temp - Tmin)));
};
constexpr auto dev_e = fx::alias<"dev_e">(ramp(r_e));
constexpr auto dev_l = fx::alias<"dev_l">(ramp(r_l));
constexpr auto dev_p = fx::alias<"dev_p">(ramp(r_p));
constexpr auto dev_v = fx::alias<"dev_v">(ramp(r_eip));
constexpr auto mort = fx::alias<"mort">(1 + 0.002 * fx::pow(Temp - 25, 2));  // mortality multiplier
constexpr auto Ltot = fx::alias<"Ltot">(fx::sum(k, L(h, k)));
constexpr auto crowd = fx::alias<"crowd">(Ltot(h) * (1 + Wt(h)) / (Kl(h) * Wt(h) + 1e-3));
constexpr auto wet = fx::alias<"wet">(Wt(h) / (1 + Wt(h)));
constexpr auto Nh = fx::alias<"Nh">(Sh(h) + Eh(h) + Ih(h) + Rh(h) + Vh(h));
constexpr auto hosts = fx::alias<"hosts">(Nh(h) + phi * (Sl(h) + Il(h) + Rl(h)));
constexpr auto lam_h = fx::alias<"lam_h">(bite * b_vh * Mi(h, 0) / hosts(h));
constexpr auto lam_v = fx::alias<"lam_v">(bite * b_hv * (Ih(h) + phi * Il(h)) / hosts(h));
constexpr auto oviposit = fx::alias<"oviposit">(gon(2) * (Ms(h, 2) + Mi(h, 2)));
constexpr auto emerge = fx::alias<"emerge">(0.5 * dev_p * Pu(h) * fx::exp(-0.1 * crowd(h)));
constexpr auto adults = fx::alias<"n_adults">(fx::sum(g, Ms(h, g) + Mi(h, g)) + fx::sum(e, Me(h, e)) + Md(h));

// Adult dispersal: in from every other habitat, out to all of them.
constexpr auto disperse = [](auto X) {
  return fx::sum(h2, D(h, h2) * X(h2)) - X(h) * fx::sum(h2, D(h2, h));
};
constexpr auto disperse_g = [](auto X) {
  return fx::sum(h2, D(h, h2) * X(h2, g)) - X(h, g) * fx::sum(h2, D(h2, h));
};
constexpr auto adult_loss = [](auto x) { return (mu_a(h) * mort + 0.3 * Ins) * x; };
constexpr auto cold = Temp < Tmin + 3;
constexpr auto warm = Temp > Tmin + 5;

constexpr auto vector_host = fx::model(
    fx::states(Eg, Eq, L, Pu, Mt, Mm, Ms, Me, Mi, Md, Sh, Eh, Ih, Rh, Vh, Ch, Sl, Il, Rl, Wt, Fd, Dd, Ins, Trap),
    fx::params(T0, Tamp, Tmin, Tmax, r_e, r_l, r_p, r_eip, mu_e, mu_l, mu_p, mu_a, Kl, fec, q_hatch, gon, bite,
               b_hv, b_vh, phi, sig_h, gam_h, omega, nu, gam_l, omega_l, D, rain, evap),
    // aquatic stages
    fx::d(Eg(h)) = fec * oviposit(h) * wet(h) - dev_e * Eg(h) - mu_e * mort * Eg(h) -
                   fx::where(Wt(h) < 0.1, 0.5 * Eg(h), 0),
    fx::d(Eq(h)) = fx::where(Wt(h) < 0.1, 0.5 * Eg(h), 0) - fx::where(Wt(h) > 0.5, q_hatch * Eq(h), 0) -
                   0.01 * Eq(h),
    fx::d(L(h, k)) = fx::where(k == 0, dev_e * Eg(h) + fx::where(Wt(h) > 0.5, q_hatch * Eq(h), 0), 0) -
                     mu_l(k) * mort * (1 + crowd(h)) * L(h, k) / (0.5 + Fd(h)) -
                     fx::where(k == 3, dev_l * L(h, k), 0) - 0.2 * Ins * L(h, k),
    fx::d(Pu(h)) = dev_l * L(h, 3) - dev_p * Pu(h) - mu_p * mort * Pu(h),
    // adults
    fx::d(Mt(h)) = emerge(h) - 0.8 * Mt(h) - adult_loss(Mt(h)),
    fx::d(Mm(h)) = emerge(h) - adult_loss(Mm(h)) + disperse(Mm),
    fx::d(Ms(h, g)) = fx::where(g == 0,
                                0.8 * Mt(h) * Mm(h) / (Mm(h) + 1) + gon(2) * Ms(h, 2) - lam_v(h) * Ms(h, g) -
                                    fx::where(cold, 0.05 * Ms(h, g), 0) + fx::where(warm, 0.05 * Md(h), 0),
                                0) -
                      fx::where(g == 2, gon(g) * Ms(h, g), 0) - adult_loss(Ms(h, g)) + disperse_g(Ms),
    fx::d(Me(h, e)) = fx::where(e == 0, lam_v(h) * Ms(h, 0), 0) - fx::where(e == 2, 3 * dev_v * Me(h, e), 0) -
                      adult_loss(Me(h, e)) + fx::sum(h2, D(h, h2) * Me(h2, e)) - Me(h, e) * fx::sum(h2, D(h2, h)),
    fx::d(Mi(h, g)) = fx::where(g == 0, 3 * dev_v * Me(h, 2) + gon(2) * Mi(h, 2), 0) -
                      fx::where(g == 2, gon(g) * Mi(h, g), 0) - adult_loss(Mi(h, g)) + disperse_g(Mi),
    fx::d(Md(h)) = fx::where(cold, 0.05 * Ms(h, 0), 0) - fx::where(warm, 0.05 * Md(h), 0) - 0.005 * Md(h),
    fx::transport<instar>(dev_l, L),
    fx::transport<gono>(gon(g), Ms, Mi),
    fx::transport<eip>(3 * dev_v, Me),
    // humans (SIRS with vaccination) and livestock (SIRS)
    fx::d(Sh(h)) = -lam_h(h) * Sh(h) + omega * (Rh(h) + Vh(h)) - nu(h) * Sh(h),
    fx::d(Eh(h)) = lam_h(h) * Sh(h) - sig_h * Eh(h),
    fx::d(Ih(h)) = sig_h * Eh(h) - gam_h * Ih(h),
    fx::d(Rh(h)) = gam_h * Ih(h) - omega * Rh(h),
    fx::d(Vh(h)) = nu(h) * Sh(h) - omega * Vh(h),
    fx::d(Ch(h)) = sig_h * Eh(h),
    fx::d(Sl(h)) = -phi * lam_h(h) * Sl(h) + omega_l * Rl(h),
    fx::d(Il(h)) = phi * lam_h(h) * Sl(h) - gam_l * Il(h),
    fx::d(Rl(h)) = gam_l * Il(h) - omega_l * Rl(h),
    // environment
    fx::d(Wt(h)) = rain(h) * (1 + 0.5 * fx::cos(two_pi * fx::t / 365)) - evap * fx::max(Temp, 0) * Wt(h) / 25,
    fx::d(Fd(h)) = 0.2 * Wt(h) - 0.1 * Fd(h) - 0.05 * Ltot(h) * Fd(h) / (1 + Fd(h)),
    fx::d(Dd(h)) = fx::where(Temp > Tmin, Temp - Tmin, 0),
    fx::d(Ins) = fx::where(fx::sin(two_pi * fx::t / 30) > 0.95, 1.0, 0) - 0.05 * Ins,
    fx::d(Trap(h)) = 0.01 * (Ms(h, 0) + Mi(h, 0)),
    fx::group<habitat>(fx::coupled),
    fx::observe<"incidence">(h) = sig_h * Eh(h),
    fx::observe<"adults">(h) = adults(h),
    fx::observe<"vector_prevalence">() = fx::sum(h, fx::sum(g, Mi(h, g))) / fx::sum(h, adults(h)),
    fx::observe<"larvae">() = fx::sum(h, Ltot(h)),
    fx::observe<"temperature">() = Temp);
using M = fx::compiled<vector_host, double>;
}  // namespace bench_vh
