// Device twin of vector_host_host.cpp for bench/compile_scaling.sh: one
// kernel per entry point, one thread an instance, SoA strides (element stride
// B, instance stride 1); -DENTRY=name keeps only one of them (default: all).
#include "vector_host.hpp"

using bench_vh::M;

#define VH_INDEX const long i = long(blockIdx.x) * blockDim.x + threadIdx.x
#if VH_WANT(VH_ENTRY_rhs)
__global__ void vector_host_rhs_kernel(double t, const double* x, const double* p, double* dx, long B) {
  VH_INDEX;
  if (i < B) M{}.rhs(t, x + i, B, p + i, B, dx + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_observe)
__global__ void vector_host_observe_kernel(double t, const double* x, const double* p, double* y, long B) {
  VH_INDEX;
  if (i < B) M{}.observe(t, x + i, B, p + i, B, y + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_jac_x_values)
__global__ void vector_host_jac_x_values_kernel(double t, const double* x, const double* p, double* v, long B) {
  VH_INDEX;
  if (i < B) M{}.jacobian_values<M::jacobian::x>(t, x + i, B, p + i, B, v + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_jac_p_values)
__global__ void vector_host_jac_p_values_kernel(double t, const double* x, const double* p, double* v, long B) {
  VH_INDEX;
  if (i < B) M{}.jacobian_values<M::jacobian::p>(t, x + i, B, p + i, B, v + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_x_values)
__global__ void vector_host_obs_jac_x_values_kernel(double t, const double* x, const double* p, double* v, long B) {
  VH_INDEX;
  if (i < B) M{}.jacobian_values<M::jacobian::obs_x>(t, x + i, B, p + i, B, v + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_obs_jac_p_values)
__global__ void vector_host_obs_jac_p_values_kernel(double t, const double* x, const double* p, double* v, long B) {
  VH_INDEX;
  if (i < B) M{}.jacobian_values<M::jacobian::obs_p>(t, x + i, B, p + i, B, v + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_jvp_x)
__global__ void vector_host_jvp_x_kernel(double t, const double* x, const double* p, const double* v, double* out,
                                         long B) {
  VH_INDEX;
  if (i < B) M{}.jvp_x(t, x + i, B, p + i, B, v + i, B, out + i, B);
}
#endif
#if VH_WANT(VH_ENTRY_jvp_p)
__global__ void vector_host_jvp_p_kernel(double t, const double* x, const double* p, const double* v, double* out,
                                         long B) {
  VH_INDEX;
  if (i < B) M{}.jvp_p(t, x + i, B, p + i, B, v + i, B, out + i, B);
}
#endif
