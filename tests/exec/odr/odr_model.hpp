// The model both units of the ODR pair instantiate fluxion::host::rhs and
// fluxion::host::integrate for, and those units' shared body: a unit defines
// ODR_PAIR_UNIT (nvcc or native) and includes this header once. The types
// (the model, the probe) are the same in both units; the functions that use
// them live in each unit's own namespace.
#pragma once
#include <fluxion/fluxion.hpp>

#include <cstddef>
#include <span>

#include "odr_pair.hpp"

#ifndef ODR_PAIR_UNIT
#  error "define ODR_PAIR_UNIT (nvcc or native) before including odr_model.hpp"
#endif

namespace odr_pair {

namespace fx = fluxion;

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::param<"a"> a;
constexpr fx::param<"b"> b;
constexpr auto model = fx::model(fx::states(x, y), fx::params(a, b),  //
                                 fx::d(x) = -a * x,                   //
                                 fx::d(y) = a * x - b * y);
using M = fx::compiled<model, double>;
static_assert(M::n_states == n_states && M::n_params == n_params);

// The model, counting the groups of SIMD lanes the host batch driver hands
// it (fluxion::host::rhs calls rhs_lanes only on its SIMD path).
struct probe : M {
  std::size_t* lane_groups = nullptr;
  template <class Lanes, class SX, class SP, class SO>
  void rhs_lanes(double t, const double* xs, SX sx, const double* ps, SP sp, double* dx, SO so) const {
    ++*lane_groups;
    // Through a reference to the model: nvcc's front end re-spells a
    // qualifier naming the model type (whose template arguments are
    // class-type values) wrongly.
    const M& model = *this;
    model.template rhs_lanes<Lanes>(t, xs, sx, ps, sp, dx, so);
  }
};

namespace ODR_PAIR_UNIT {

using rhs_form = void (*)(const probe&, double, std::size_t, fx::batch<const double>, fx::batch<const double>,
                          fx::batch<double>, fx::host::threads);
using integrate_form = fx::ensemble_result<double> (*)(const M&, fx::tsit5, const fx::ode_problem<double>&,
                                                       std::size_t, fx::batch<const double>,
                                                       fx::batch<const double>, fx::host::threads);

unit_report report() {
  const rhs_form r = &fx::host::rhs;
  const integrate_form i = &fx::host::integrate;
  return {reinterpret_cast<const void*>(r), reinterpret_cast<const void*>(i), fx::host::simd_bytes_used};
}

std::size_t rhs(double t, std::size_t count, const double* xs, const double* ps, double* dx) {
  std::size_t groups = 0;
  probe m;
  m.lane_groups = &groups;
  // Called through the address the program links (volatile: not inlined
  // from this unit's own copy), the one report() gives.
  const rhs_form volatile call = &fx::host::rhs;
  call(m, t, count, fx::soa(std::span<const double>(xs, n_states * count)),
       fx::soa(std::span<const double>(ps, n_params * count)), fx::soa(std::span<double>(dx, n_states * count)),
       fx::host::threads{});
  return groups;
}

bool integrate(double t1, std::size_t count, const double* x0, const double* ps, double* final_state) {
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = t1, .rtol = 1e-10, .atol = 1e-12};
  const integrate_form volatile call = &fx::host::integrate;
  const auto r = call(M{}, fx::tsit5{}, pr, count, fx::soa(std::span<const double>(x0, n_states * count)),
                      fx::soa(std::span<const double>(ps, n_params * count)), fx::host::threads{});
  for (std::size_t k = 0; k < n_states * count; ++k) final_state[k] = r.final_state[k];
  return r.all_succeeded();
}

}  // namespace ODR_PAIR_UNIT

}  // namespace odr_pair
