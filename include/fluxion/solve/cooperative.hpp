#pragma once
// One trajectory integrated by the G members of a group together (a GPU
// warp's lanes; host threads in the tests): for models whose state is too
// large for one thread's registers, where a thread per trajectory keeps its
// state and stages in slow thread-local memory.
//
// Member r holds the state components r, r + G, r + 2G, ... (its share,
// ceil(n / G) values, the last ones padding where G does not divide n) and
// the same share of every stage, so the method's arithmetic is spread over
// the members with nothing exchanged. Each right-hand side is computed
// together: the members write their shares of the stage's state into memory
// they all read (shared memory on a GPU), compute the model's
// rhs_cooperative (each member its share of the aliases and outputs), and
// read back their shares of the derivative. The step control sums the
// members' squared errors (Group::sum, the same value bit for bit on every
// member), so every member takes the same steps. The driver is the one of a
// thread per trajectory (solve/driver.hpp), over this system.
//
// A Group has rank(), size() (= G), sync() (every member reaches it, and
// the memory they wrote is visible after it) and sum(v) (v summed over the
// members, identical on all). The shared memory of one trajectory is
// shared_values<M>() values: the state, its derivative, the aliases'
// scratch and the parameters.
#include <cstddef>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/events.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class M, int G, class Group>
struct shared_state_system {
  static_assert(G >= 1, "fluxion::shared_state_system: a group has at least one member.");
  using model_type = M;
  using scalar = typename M::scalar;
  using T = scalar;
  static constexpr int members = G;
  static constexpr int model_states = int(M::n_states);
  static constexpr std::size_t n_states = (M::n_states + G - 1) / G;  // a member's share (the driver's arrays)
  static constexpr std::size_t norm_states = M::n_states;             // the error norm's mean is over all
  static constexpr std::size_t n_params = 0;  // the model's parameters are read from `p` below

  // Values of shared memory one trajectory needs.
  static constexpr std::size_t shared_values = 2 * M::n_states + M::rhs_scratch_size + M::n_params;

  M model;
  Group group;
  T* x;        // the whole state of the stage (n_states of the model)
  T* dx;       // its derivative
  T* scratch;  // the model's rhs_scratch_size values
  const T* p;  // the parameters, contiguous

  // The model's state component of element j of this member's share (at or
  // beyond model_states: padding).
  FLUXION_HOST_DEVICE int component(int j) const { return int(group.rank()) + j * G; }

  FLUXION_HOST_DEVICE void rhs(T t, const T* xl, std::ptrdiff_t xs, const T*, std::ptrdiff_t, T* dxl,
                               std::ptrdiff_t dxs) const {
    for (int j = 0; j < int(n_states); ++j)
      if (component(j) < model_states) x[component(j)] = xl[std::ptrdiff_t(j) * xs];
    group.sync();
    model.rhs_cooperative(group, t, x, p, scratch, dx);
    // Every member has read x and written its share of dx: the next call may
    // write x; dx is not written again before the next call's first sync.
    group.sync();
    for (int j = 0; j < int(n_states); ++j)
      dxl[std::ptrdiff_t(j) * dxs] = component(j) < model_states ? dx[component(j)] : T(0);
  }

  FLUXION_HOST_DEVICE T sum_over_members(T v) const { return group.sum(v); }

  // An event at a given time (solve/events.hpp) on the shares: every member
  // writes its share to x, all compute the changed component's new value
  // from x and the parameters, and its owner keeps it.
  FLUXION_HOST_DEVICE void apply_event(const timed_event<T>& e, T* xl, const T*, std::ptrdiff_t) const {
    if (e.sets_param >= 0) {  // member 0 sets the shared copy; all read it after the sync
      if (group.rank() == 0) detail::set_driven_param(e, p, 1);
      group.sync();
      return;
    }
    for (int j = 0; j < int(n_states); ++j)
      if (component(j) < model_states) x[component(j)] = xl[j];
    group.sync();
    T v = e.scale * x[e.state] + e.shift;
    if (e.param >= 0) v += e.param_weight * p[e.param];
    if (e.source >= 0) v += e.source_weight * x[e.source];
    group.sync();  // every member has read x
    for (int j = 0; j < int(n_states); ++j)
      if (component(j) == e.state) xl[j] = v;
  }
};

namespace detail {

// The saved states of a member's share, written where the whole state's go
// (trajectory_io's buffer).
template <class T, int G>
struct member_state_writer {
  static constexpr bool saves = true;
  const trajectory_io<T>& io;
  int rank;
  int model_states;
  template <class Values>
  FLUXION_HOST_DEVICE void save(std::size_t s, T, int n, const Values& values) const {
    T* out = io.saved + std::ptrdiff_t(s) * io.saved_time_stride;
    for (int j = 0; j < n; ++j) {
      const int i = rank + j * G;
      if (i < model_states) out[std::ptrdiff_t(i) * io.saved_state_stride] = values(j);
    }
  }
};

}  // namespace detail

// Integrates one trajectory by the members of group g (all of them call it
// with the same arguments, but shared): io is the whole trajectory's, as for
// a thread per trajectory; shared holds System::shared_values values that
// all members read and write. Saves: whether the problem has save times
// (detail::no_saved_states otherwise). Every member's statistics are the
// trajectory's. Explicit methods (a Rosenbrock method's matrix is not shared).
template <class Method, int G, bool Saves, class M, class Group>
FLUXION_HOST_DEVICE solve_status integrate_shared(const M& m, const Group& g, const ode_options<typename M::scalar>& o,
                                                  const trajectory_io<typename M::scalar>& io,
                                                  typename M::scalar* shared, solve_statistics& st) {
  using T = typename M::scalar;
  using system = shared_state_system<M, G, Group>;
  using stepper = typename stepper_of<Method, system>::type;
  static_assert(!keeps_dense_matrix<Method>,
                "fluxion::integrate_shared: a group of members integrates one trajectory with an explicit method "
                "(fluxion::tsit5, fluxion::vern7); a Rosenbrock method's matrix is not shared among members.");
  constexpr int n = int(M::n_states), share = int(system::n_states);
  const int r = int(g.rank());
  T* x = shared;
  T* dx = x + n;
  T* scratch = dx + n;
  T* p = scratch + M::rhs_scratch_size;
  for (int j = r; j < int(M::n_params); j += G) p[j] = io.p[std::ptrdiff_t(j) * io.p_stride];
  // This member's share of the initial state and of per-state tolerances.
  T x0[share], last[share], atol[share];
  for (int j = 0; j < share; ++j) {
    const int i = r + j * G;
    x0[j] = i < n ? io.x0[std::ptrdiff_t(i) * io.x0_stride] : T(0);
    // Padding's error is 0 under any positive tolerance; o.atol is not
    // checked (it may be 0) when the tolerances are per state.
    atol[j] = i < n ? (o.atol_per_state ? o.atol_per_state[i] : o.atol) : T(1);
  }
  ode_options<T> mine = o;
  if (o.atol_per_state) mine.atol_per_state = atol;
  g.sync();  // the parameters are in place
  const system sys{m, g, x, dx, scratch, p};
  const trajectory_io<T> io_share{x0, 1, nullptr, 0, nullptr, 0, 0, last, 1};
  solve_status status;
  if constexpr (Saves) {
    detail::member_state_writer<T, G> sink{io, r, n};
    status = stepper::run(sys, mine, io_share, st, sink);
  } else {
    detail::no_saved_states none;
    status = stepper::run(sys, mine, io_share, st, none);
  }
  for (int j = 0; j < share; ++j) {
    const int i = r + j * G;
    if (i < n) io.final_state[std::ptrdiff_t(i) * io.final_stride] = last[j];
  }
  g.sync();  // every member is done with the shared memory
  return status;
}

}  // namespace fluxion
