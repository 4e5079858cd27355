#pragma once
// The sensitivity system of solve/sensitivity.hpp with its columns shared
// among the members of a group: member 0 holds the state y, member c + 1
// the column c of S = dy/d(p, x0) (the parameters, then the initial states),
// so a trajectory's 1 + n_params + n_states members each integrate n_states
// values (a GPU's lanes, where one thread holding y and all of S keeps them
// in slow thread-local memory).
//
// Every right-hand side takes the stage's y from member 0
// (Group::broadcast), and every member evaluates f(t, y) and the Jacobians'
// values there; member 0 keeps f, member c + 1 forms J_x S_c + J_p[:, c]
// over the compile-time non-zeros, in the order sensitivity_system does, so
// each column's derivative is that system's, bit for bit. The step control
// sums the members' squared errors (Group::sum, the same value on every
// member), over the augmented system's n (1 + columns) components, so every
// member takes the steps of the whole system (CVODES' errconS = true) up to
// the rounding of that sum.
//
// A Group has rank(), size(), sync(), sum(v) and broadcast(v, from) (member
// from's v, on every member).
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/compile/accumulated.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/solve/sensitivity.hpp>

namespace fluxion {

template <class M, class Group>
struct sensitivity_columns_system {
  static_assert(std::is_same_v<typename M::layout::policy, symbol_major>,
                "fluxion::sensitivity_columns_system: the model's Jacobians are laid out over the symbol-major "
                "layout; compile the model with fluxion::symbol_major.");
  using model_type = M;
  using scalar = typename M::scalar;
  using T = scalar;
  static constexpr std::size_t model_states = M::n_states;
  static constexpr std::size_t columns = M::n_params + M::n_states;
  static constexpr int members = int(1 + columns);
  static constexpr std::size_t n_states = model_states;                    // each member's share
  static constexpr std::size_t norm_states = model_states * (1 + columns);  // the whole system's
  static constexpr std::size_t n_params = M::n_params;

  M model;
  Group group;

  // The column of S this member holds; -1 for member 0, which holds y.
  FLUXION_HOST_DEVICE int column() const { return int(group.rank()) - 1; }

  // This member's share of the augmented initial state: y = x0, S = [0 | I].
  FLUXION_HOST_DEVICE void initial_share(const T* x0, std::ptrdiff_t xs, T* z) const {
    const int c = column();
    // x0 holds the given model's states: an accumulated state starts at 0 (compile/accumulated.hpp).
    for (std::size_t i = 0; i < model_states; ++i)
      z[i] = c < 0 ? (i < detail::given_states_of<M> ? x0[std::ptrdiff_t(i) * xs] : T(0))
                   : (c == int(M::n_params + i) ? T(1) : T(0));
  }

 private:
  using jx = detail::jacobian_entries<M, M::jacobian::x>;
  using jp = detail::jacobian_entries<M, M::jacobian::p>;
  static constexpr std::size_t n = model_states;

 public:
  // Inlined (unlike sensitivity_system's): a member's share is small enough
  // for the stages to stay in registers, which a call would not allow.
  FLUXION_HOST_DEVICE void rhs(T t, const T* z, std::ptrdiff_t zs, const T* p, std::ptrdiff_t ps, T* dz,
                               std::ptrdiff_t dzs) const {
    T y[n], f[n], ds[n];
    for (std::size_t i = 0; i < n; ++i) y[i] = group.broadcast(z[std::ptrdiff_t(i) * zs], 0);
    // Every member evaluates everything (no divergence among a warp's lanes)
    // and keeps its part.
    model.rhs(t, y, 1, p, ps, f, 1);
    for (std::size_t i = 0; i < n; ++i) ds[i] = T(0);
    if constexpr (jx::nnz > 0) {
      T vx[jx::nnz];
      model.template jacobian_values<M::jacobian::x>(t, y, 1, p, ps, vx, 1);
      detail::add_sparse_product(vx, z, zs, ds, 1, typename jx::rows{}, typename jx::columns{});
    }
    if constexpr (jp::nnz > 0) {
      T vp[jp::nnz];
      model.template jacobian_values<M::jacobian::p>(t, y, 1, p, ps, vp, 1);
      detail::add_sparse_column(vp, column(), ds, typename jp::rows{}, typename jp::columns{});
    }
    const bool state = column() < 0;
    for (std::size_t i = 0; i < n; ++i) dz[std::ptrdiff_t(i) * dzs] = state ? f[i] : ds[i];
  }

  FLUXION_HOST_DEVICE T sum_over_members(T v) const { return group.sum(v); }

  // An event at a given time (solve/events.hpp) on this member's share: the
  // map on y (member 0), its derivative on column c (member c + 1).
  FLUXION_HOST_DEVICE void apply_event(const timed_event<T>& e, T* z, const T* p, std::ptrdiff_t ps) const {
    constexpr int nm = int(n), np = int(n_params);
    if (e.sets_param >= 0) detail::set_driven_param<np>(e, p, ps);  // every member's own copy
    else if (column() < 0) detail::apply_event_to_state<nm, np>(e, z, p, ps);
    else detail::apply_event_to_column<nm>(e, z, column());
  }
};

}  // namespace fluxion
