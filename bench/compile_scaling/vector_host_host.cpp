// Host translation unit for bench/compile_scaling.sh: each entry point of the
// vector-host model (vector_host.hpp) in a non-inlined function; -DENTRY=name
// keeps only one of them (default: all).
#include <cstddef>

#include <fluxion/fluxion.hpp>  // as a host user includes it

#include "vector_host.hpp"

using bench_vh::M;

std::size_t vector_host_sizes() { return M::n_states + M::n_params + M::n_observables; }

#if VH_WANT(VH_ENTRY_rhs)
__attribute__((noinline)) void vector_host_rhs(double t, const double* x, const double* p, double* dx) {
  M{}.rhs(t, x, p, dx);
}
#endif
#if VH_WANT(VH_ENTRY_observe)
__attribute__((noinline)) void vector_host_observe(double t, const double* x, const double* p, double* y) {
  M{}.observe(t, x, p, y);
}
#endif
#if VH_WANT(VH_ENTRY_jac_x_values)
__attribute__((noinline)) void vector_host_jac_x_values(double t, const double* x, const double* p, double* v) {
  M{}.jac_x_values(t, x, p, v);
}
#endif
#if VH_WANT(VH_ENTRY_jac_p_values)
__attribute__((noinline)) void vector_host_jac_p_values(double t, const double* x, const double* p, double* v) {
  M{}.jac_p_values(t, x, p, v);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_x_values)
__attribute__((noinline)) void vector_host_obs_jac_x_values(double t, const double* x, const double* p, double* v) {
  M{}.obs_jac_x_values(t, x, p, v);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_p_values)
__attribute__((noinline)) void vector_host_obs_jac_p_values(double t, const double* x, const double* p, double* v) {
  M{}.obs_jac_p_values(t, x, p, v);
}
#endif
#if VH_WANT(VH_ENTRY_jvp_x)
__attribute__((noinline)) void vector_host_jvp_x(double t, const double* x, const double* p, const double* v,
                                                 double* out) {
  M{}.jvp_x(t, x, p, v, out);
}
#endif
#if VH_WANT(VH_ENTRY_jvp_p)
__attribute__((noinline)) void vector_host_jvp_p(double t, const double* x, const double* p, const double* v,
                                                 double* out) {
  M{}.jvp_p(t, x, p, v, out);
}
#endif
