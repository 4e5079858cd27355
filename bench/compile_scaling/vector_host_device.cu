// Device twin of vector_host_host.cpp for bench/compile_scaling.sh: one
// launch per entry point through fluxion's CUDA launchers (fluxion::cuda::rhs
// and the rest, whose kernels run a grid-stride loop over SoA batches), as a
// user would write it; -DENTRY=name keeps only one of them (default: all).
#include <fluxion/cuda.hpp>

#include "vector_host.hpp"

using bench_vh::M;

using D = std::span<const double>;
using W = std::span<double>;
#if VH_WANT(VH_ENTRY_rhs)
void vector_host_rhs(double t, std::size_t B, D x, D p, W dx) { fluxion::cuda::rhs(M{}, t, B, x, p, dx); }
#endif
#if VH_WANT(VH_ENTRY_observe)
void vector_host_observe(double t, std::size_t B, D x, D p, W y) { fluxion::cuda::observe(M{}, t, B, x, p, y); }
#endif
#if VH_WANT(VH_ENTRY_jac_x_values)
void vector_host_jac_x_values(double t, std::size_t B, D x, D p, W v, std::size_t nnz) {
  fluxion::cuda::jacobian_values<M::jacobian::x>(M{}, t, B, x, p, v, nnz);
}
#endif
#if VH_WANT(VH_ENTRY_jac_p_values)
void vector_host_jac_p_values(double t, std::size_t B, D x, D p, W v, std::size_t nnz) {
  fluxion::cuda::jacobian_values<M::jacobian::p>(M{}, t, B, x, p, v, nnz);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_x_values)
void vector_host_obs_jac_x_values(double t, std::size_t B, D x, D p, W v, std::size_t nnz) {
  fluxion::cuda::jacobian_values<M::jacobian::obs_x>(M{}, t, B, x, p, v, nnz);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_p_values)
void vector_host_obs_jac_p_values(double t, std::size_t B, D x, D p, W v, std::size_t nnz) {
  fluxion::cuda::jacobian_values<M::jacobian::obs_p>(M{}, t, B, x, p, v, nnz);
}
#endif
#if VH_WANT(VH_ENTRY_jvp_x)
void vector_host_jvp_x(double t, std::size_t B, D x, D p, D v, W out) { fluxion::cuda::jvp_x(M{}, t, B, x, p, v, out); }
#endif
#if VH_WANT(VH_ENTRY_jvp_p)
void vector_host_jvp_p(double t, std::size_t B, D x, D p, D v, W out) { fluxion::cuda::jvp_p(M{}, t, B, x, p, v, out); }
#endif
