#pragma once
// Which factorization a Rosenbrock step's iteration matrix W = diag - J
// gets: detail::sparse_lu (solve/sparse_lu.hpp, no pivoting, the work the
// state Jacobian's compile-time pattern and its fill-in need) for models of
// more than register_resident_order and at most FLUXION_SPARSE_LU_MAX_ORDER
// states (config/tuning.hpp) whose filled-in pattern holds at most half of
// the N x N entries; detail::dense_lu (partial pivoting) for every other.
// A stage or compartment model of 15 states factors its W in 21 updates
// where the dense form takes about a thousand, and a GPU keeps the sparse
// factors in registers.
#include <cstddef>

#include <fluxion/compile/sparsity.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/solve/dense_lu.hpp>
#include <fluxion/solve/sparse_lu.hpp>

namespace fluxion::detail {

template <class M>
inline constexpr auto state_jacobian_pattern = static_jacobian_pattern<M, M::jacobian::x>();

// Checked in this order: the pattern is computed only for models in range.
template <class M>
constexpr bool sparse_iteration_matrix() {
  constexpr std::size_t n = M::n_states;
  if constexpr (n <= std::size_t(register_resident_order) || n > std::size_t(FLUXION_SPARSE_LU_MAX_ORDER)) {
    return false;
  } else {
    return 2 * sparse_lu<double, state_jacobian_pattern<M>>::nnz_filled <= n * n;
  }
}

template <class M, class V, bool Sparse = sparse_iteration_matrix<M>()>
struct iteration_lu_of {
  using type = dense_lu<V, int(M::n_states)>;
};
template <class M, class V>
struct iteration_lu_of<M, V, true> {
  using type = sparse_lu<V, state_jacobian_pattern<M>>;
};
template <class M, class V>
using iteration_lu = typename iteration_lu_of<M, V>::type;

template <class LU>
inline constexpr bool is_sparse_lu = false;
template <class V, auto Pattern>
inline constexpr bool is_sparse_lu<sparse_lu<V, Pattern>> = true;

}  // namespace fluxion::detail
