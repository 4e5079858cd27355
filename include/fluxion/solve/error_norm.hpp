#pragma once
// The error norm of the step control (Hairer, Norsett & Wanner, Solving
// ODEs I, II.4): err = sqrt(mean_i (e_i / tol_i)^2) with tol_i = atol_i +
// rtol max(|y_i|, |y_new_i|), written once over the step's value type V (T
// for one trajectory, fluxion::lanes<T, W> for W trajectories at once,
// solve/values.hpp), so that every lane's norm is the one its trajectory
// gets alone, bit for bit.
//
// A system integrated by a group of members together (solve/cooperative.hpp)
// gives each member a share of the state: the driver's arrays are that share,
// M::n_states long, the error norm's mean is over M::norm_states components,
// and every sum of squared errors is summed over the members
// (m.sum_over_members, the same value bit for bit on every member, so that
// all take the same steps). A plain model is one member holding everything.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>
#include <fluxion/solve/options.hpp>
#include <fluxion/solve/values.hpp>

namespace fluxion::detail {

template <class M>
FLUXION_HOST_DEVICE constexpr int norm_count() {
  if constexpr (requires { M::norm_states; }) return int(M::norm_states);
  else return int(M::n_states);
}
template <class M, class T>
FLUXION_HOST_DEVICE T sum_over_members(const M& m, T v) {
  if constexpr (requires { m.sum_over_members(v); }) return m.sum_over_members(v);
  else return v;
}

// The tolerance of component i between values a and b.
template <class V, class T>
FLUXION_HOST_DEVICE V tolerance(const ode_options<T>& o, int i, V a, V b) {
  const V atol = V(o.atol_per_state ? o.atol_per_state[i] : o.atol);
  const V ma = math::abs(a), mb = math::abs(b);
  return atol + V(o.rtol) * choose(ma > mb, ma, mb);
}

// The weighted RMS norm of the error e of a step from y to ynew: the
// squares of N components (a member's share), summed over the members, over
// the Total components of the state (one trajectory: the starting step).
template <class T, int N, int Total = N, class M>
FLUXION_HOST_DEVICE T error_norm(const M& m, const ode_options<T>& o, const T* e, const T* y, const T* ynew) {
  T s = T(-0.0);
  for (int i = 0; i < N; ++i) {
    const T r = e[i] / tolerance(o, i, y[i], ynew[i]);
    s += r * r;
  }
  return math::sqrt(sum_over_members(m, s) / T(Total));
}

// The squared weighted errors of a step's components, summed (add, then
// squares(): N err^2 for the RMS norm err above): NaN when the new state is
// not finite, checked without a branch per component. A NaN component makes
// its tolerance NaN (the max below keeps a NaN second operand) and so the
// sum; an infinite one makes its tolerance +inf, which tol_max keeps and
// 0 * tol_max turns into a NaN sum.
template <class V>
struct step_error {
  V sum = V(-0.0);
  V tol_max = V(0);
  template <class T>
  FLUXION_HOST_DEVICE void add(const ode_options<T>& o, int i, V e, V y, V ynew) {
    const V tol = tolerance(o, i, y, ynew);
    const V r = e / tol;
    sum = sum + r * r;
    tol_max = choose(tol_max > tol, tol_max, tol);
  }
  FLUXION_HOST_DEVICE V squares() const { return sum + V(0) * tol_max; }
};

}  // namespace fluxion::detail
