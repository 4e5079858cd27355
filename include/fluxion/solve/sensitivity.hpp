#pragma once
// Forward sensitivities: the derivatives of a trajectory with respect to the
// parameters and the initial state, integrated with it.
//
// For y' = f(t, y, p), y(t0) = x0, the sensitivity matrix S = dy/d(p, x0)
// (n states x m = n_params + n_states columns, the parameters first) obeys
//
//   S' = J_x S + [J_p | 0],   S(t0) = [0 | I]
//
// (Hairer, Norsett & Wanner, Solving ODEs I, I.14, "variational equation";
// CVODES' "simultaneous corrector" system). sensitivity_system<M> is that
// augmented system as a model the ensemble drivers integrate like any other:
// its state is y followed by the columns of S, column j at n + j n, so every
// explicit method integrates y and S with the same steps and the same error
// control (the sensitivities take part in the error test, as CVODES'
// errconS = true; their tolerances are the states' tolerances, row by row).
//
// J_x S and J_p are formed from the model's exact sparse Jacobians: the
// structural non-zeros of both are compile-time constants
// (static_jacobian_pattern), and the product visits only them, so its cost
// is nnz(J_x) m + nnz(J_p) multiply-adds on top of one evaluation of each
// Jacobian's values.
//
//   using S = fx::sensitivity_system<M>;
//   auto r = fx::host::integrate_sensitivities(M{}, fx::tsit5{}, pr, B, fx::soa(x0), fx::soa(p));
//   r.sensitivity(s, i, j, b)   // d y_i / d theta_j at save time s, trajectory b
//                               // (theta = parameters, then initial states)
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <fluxion/compile/accumulated.hpp>
#include <fluxion/compile/sparsity.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/solve/host.hpp>

namespace fluxion {

namespace detail {

// The structural non-zeros of Jacobian J of M as index sequences (rows and
// columns in CSR order): template arguments, so that device code loops over
// constants and never reads a host array.
template <class M, typename M::jacobian J>
struct jacobian_entries {
  static constexpr auto pattern = static_jacobian_pattern<M, J>();
  static constexpr std::size_t nnz = decltype(pattern)::nnz;
  static constexpr int row_of(std::size_t e) {
    int r = 0;
    while (pattern.row_ptr[std::size_t(r) + 1] <= int(e)) ++r;
    return r;
  }
  template <class Seq>
  struct lists;
  template <std::size_t... E>
  struct lists<std::index_sequence<E...>> {
    using rows = std::integer_sequence<int, row_of(E)...>;
    using columns = std::integer_sequence<int, pattern.col_idx[E]...>;
  };
  using rows = typename lists<std::make_index_sequence<nnz>>::rows;
  using columns = typename lists<std::make_index_sequence<nnz>>::columns;
};

// out[r os] += v[e] x[c xs] over the entries e (rows R, columns C of a
// jacobian_entries): a sparse matrix, its values v, times the vector x.
template <class T, int... R, int... C>
FLUXION_HOST_DEVICE void add_sparse_product(const T* v, const T* x, std::ptrdiff_t xs, T* out, std::ptrdiff_t os,
                                            std::integer_sequence<int, R...>, std::integer_sequence<int, C...>) {
  std::size_t e = 0;
  ((out[R * os] += v[e] * x[C * xs], ++e), ...);
}
// out[r] += column c of the same sparse matrix (c a run-time column; 0 added
// for the other entries, no branch).
template <class T, int... R, int... C>
FLUXION_HOST_DEVICE void add_sparse_column(const T* v, int c, T* out, std::integer_sequence<int, R...>,
                                           std::integer_sequence<int, C...>) {
  std::size_t e = 0;
  ((out[R] += C == c ? v[e] : T(0), ++e), ...);
}

}  // namespace detail

template <class M>
struct sensitivity_system {
  static_assert(std::is_same_v<typename M::layout::policy, symbol_major>,
                "fluxion::sensitivity_system: the model's Jacobians are laid out over the symbol-major layout; "
                "compile the model with fluxion::symbol_major.");
  using model_type = M;
  using scalar = typename M::scalar;
  using T = scalar;
  static constexpr std::size_t model_states = M::n_states;
  static constexpr std::size_t n_params = M::n_params;
  // Columns of S: the parameters, then the initial states.
  static constexpr std::size_t columns = M::n_params + M::n_states;
  static constexpr std::size_t n_states = model_states * (1 + columns);

  M model{};

  // Where state i and d y_i / d theta_j live in the augmented state.
  FLUXION_HOST_DEVICE static constexpr std::size_t state_index(std::size_t i) { return i; }
  FLUXION_HOST_DEVICE static constexpr std::size_t sensitivity_index(std::size_t i, std::size_t j) {
    return model_states + j * model_states + i;
  }

  // The augmented initial state of x0: y = x0, S = [0 | I]. x0 holds the
  // given model's states (compile/accumulated.hpp): an accumulated state starts at 0.
  FLUXION_HOST_DEVICE static void initial_state(const T* x0, std::ptrdiff_t xs, T* z) {
    for (std::size_t i = 0; i < detail::given_states_of<M>; ++i) z[i] = x0[std::ptrdiff_t(i) * xs];
    for (std::size_t k = detail::given_states_of<M>; k < n_states; ++k) z[k] = T(0);
    for (std::size_t i = 0; i < model_states; ++i) z[sensitivity_index(i, n_params + i)] = T(1);
  }

 private:
  using jx = detail::jacobian_entries<M, M::jacobian::x>;
  using jp = detail::jacobian_entries<M, M::jacobian::p>;
  static constexpr std::size_t n = model_states;

  // out_c += J_p[:, c] for the parameter columns c (columns n elements apart).
  template <int... R, int... C>
  FLUXION_HOST_DEVICE static void add_jp(const T* vp, T* out, std::ptrdiff_t os, std::integer_sequence<int, R...>,
                                         std::integer_sequence<int, C...>) {
    std::size_t e = 0;
    ((out[(std::ptrdiff_t(C) * std::ptrdiff_t(n) + R) * os] += vp[e], ++e), ...);
  }

 public:
  FLUXION_HOST_DEVICE_CALL void rhs(T t, const T* z, std::ptrdiff_t zs, const T* p, std::ptrdiff_t ps, T* dz,
                                    std::ptrdiff_t dzs) const {
    // S and S' pass through local arrays: accumulating S' in dz itself
    // (which may alias z, as far as the compiler knows) reloads and stores
    // every entry at every product term; on the H200 the SEIR gradient ran
    // 35% slower that way.
    T y[n], s[n * columns], ds[n * columns];
    for (std::size_t i = 0; i < n; ++i) y[i] = z[std::ptrdiff_t(i) * zs];
    for (std::size_t k = 0; k < n * columns; ++k) s[k] = z[std::ptrdiff_t(n + k) * zs], ds[k] = T(0);
    model.rhs(t, y, 1, p, ps, dz, dzs);
    if constexpr (jx::nnz > 0) {
      T vx[jx::nnz];
      model.template jacobian_values<M::jacobian::x>(t, y, 1, p, ps, vx, 1);
      for (std::size_t j = 0; j < columns; ++j)
        detail::add_sparse_product(vx, s + j * n, 1, ds + j * n, 1, typename jx::rows{}, typename jx::columns{});
    }
    if constexpr (jp::nnz > 0) {
      T vp[jp::nnz];
      model.template jacobian_values<M::jacobian::p>(t, y, 1, p, ps, vp, 1);
      add_jp(vp, ds, 1, typename jp::rows{}, typename jp::columns{});
    }
    for (std::size_t k = 0; k < n * columns; ++k) dz[std::ptrdiff_t(n + k) * dzs] = ds[k];
  }
  FLUXION_HOST_DEVICE void rhs(T t, const T* z, const T* p, T* dz) const { rhs(t, z, 1, p, 1, dz, 1); }

  // An event at a given time (solve/events.hpp): its map on y, its
  // derivative on every column of S; an input's event sets its parameter.
  FLUXION_HOST_DEVICE void apply_event(const timed_event<T>& e, T* z, const T* p, std::ptrdiff_t ps) const {
    constexpr int nm = int(n), np = int(n_params);
    if (e.sets_param >= 0) return detail::set_driven_param<np>(e, p, ps);
    detail::apply_event_to_state<nm, np>(e, z, p, ps);
    FLUXION_UNROLL
    for (std::size_t j = 0; j < columns; ++j) detail::apply_event_to_column<nm>(e, z + n + j * n, int(j));
  }
};

// A host ensemble integrated with its sensitivities: the saved augmented
// states (result.saved_states holds [save][augmented state][trajectory]).
template <class M>
struct sensitivity_result : ensemble_result<typename M::scalar> {
  using system = sensitivity_system<M>;
  using T = typename M::scalar;
  T state(std::size_t s, std::size_t i, std::size_t b) const { return this->saved(s, system::state_index(i), b); }
  // d y_i / d theta_j at save time s (theta: the parameters, then the initial states).
  T sensitivity(std::size_t s, std::size_t i, std::size_t j, std::size_t b) const {
    return this->saved(s, system::sensitivity_index(i, j), b);
  }
};

namespace detail {

// The problem of the augmented system: per-state tolerances repeated for
// every sensitivity column (storage in `atol`, which must outlive the run).
template <class M, class T>
ode_problem<T> sensitivity_problem(const ode_problem<T>& pr, std::vector<T>& atol) {
  using S = sensitivity_system<M>;
  ode_problem<T> out = pr;
  refuse_crossings(pr, "an integration with sensitivities");
  check_problem(pr, M::n_states, M::n_params);
  if (!pr.atol_per_state.empty()) {
    atol.assign(S::n_states, T(0));
    for (std::size_t k = 0; k < S::n_states; ++k) atol[k] = pr.atol_per_state[k % M::n_states];
    out.atol_per_state = atol;
  }
  return out;
}

}  // namespace detail

namespace host {
FLUXION_HOST_ABI_BEGIN

// Integrates every trajectory with its sensitivities (explicit methods;
// one trajectory at a time per thread). Inputs and the result's sizes are
// checked as by integrate, before anything is allocated.
template <class M, class Method>
  requires ode_system<M> && explicit_tableau<Method>
sensitivity_result<M> integrate_sensitivities(const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                                              std::size_t count, batch<const typename M::scalar> x0,
                                              batch<const typename M::scalar> p, threads exec = threads{}) {
  using T = typename M::scalar;
  using S = sensitivity_system<M>;
  std::vector<T> atol;
  const ode_problem<T> aug = fluxion::detail::sensitivity_problem<M>(pr, atol);
  const auto cx = check_buffer("initial state", x0, M::n_states, count, false);
  check_buffer("parameter", p, M::n_params, count, false);
  // The result's sizes before anything is allocated; the augmented initial
  // states below are as many values as its final states.
  const std::size_t z0_values =
      fluxion::detail::checked_ensemble_result_sizes<T>(S::n_states, pr.save_times.size(), count).final_state;
  std::vector<T> z0(z0_values);
  T z[S::n_states];
  for (std::size_t b = 0; b < count; ++b) {
    S::initial_state(cx.data + std::ptrdiff_t(b) * cx.instance_stride, cx.element_stride, z);
    for (std::size_t k = 0; k < S::n_states; ++k) z0[k * count + b] = z[k];
  }
  exec.simd_lanes = false;  // the augmented system has no SIMD-lane evaluator
  sensitivity_result<M> r;
  static_cast<ensemble_result<T>&>(r) =
      integrate(S{m}, method, aug, count, soa(std::span<const T>(z0)), p, exec);
  // The columns of parameters an input drives are 0: the trajectory's own
  // values of them are never read (the integration's columns for them are
  // not derivatives of anything, and no other column reads them).
  const std::vector<bool> driven = driven_parameters(pr.events, M::n_params);
  for (std::size_t k = 0; k < M::n_params; ++k) {
    if (!driven[k]) continue;
    for (std::size_t i = 0; i < M::n_states; ++i) {
      const std::size_t row = S::sensitivity_index(i, k);
      for (std::size_t b = 0; b < count; ++b) {
        for (std::size_t s = 0; s < r.save_count; ++s) {
          T& v = r.saved_states[(s * r.states + row) * count + b];
          if (v == v) v = T(0);  // (a save a failed trajectory did not reach stays NaN)
        }
        r.final_state[row * count + b] = T(0);
      }
    }
  }
  return r;
}

// A model or method that is not one, or a stiff method: one sentence.
template <class M, class Method, class... Rest>
  requires(!ode_system<M> || !explicit_tableau<Method>)
void integrate_sensitivities(const M&, Method, Rest&&...) {
  fluxion::detail::require_integration<M, Method>();
  static_assert(!ode_method<Method> || explicit_tableau<Method>,
                "fluxion::host::integrate_sensitivities: the method must satisfy fluxion::explicit_tableau "
                "(fluxion::tsit5, fluxion::vern7): forward sensitivities are integrated by explicit methods only.");
}

FLUXION_HOST_ABI_END
}  // namespace host

}  // namespace fluxion
