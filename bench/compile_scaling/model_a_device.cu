// Device twin for bench/compile_scaling.sh: one thread an instance, SoA
// strides (element stride B, instance stride 1), P from -DFLUXION_P.
#include "model_a.hpp"

__global__ void model_a_rhs_kernel(double t, const double* x, const double* p, double* dx, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) bench_a::M{}.rhs(t, x + i, B, p + i, B, dx + i, B);
}
__global__ void model_a_observe_kernel(double t, const double* x, const double* p, double* y, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) bench_a::M{}.observe(t, x + i, B, p + i, B, y + i, B);
}
__global__ void model_a_jac_x_values_kernel(double t, const double* x, const double* p, double* v, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) bench_a::M{}.jacobian_values<bench_a::M::jacobian::x>(t, x + i, B, p + i, B, v + i, B);
}
__global__ void model_a_jvp_x_kernel(double t, const double* x, const double* p, const double* v, double* out, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) bench_a::M{}.jvp_x(t, x + i, B, p + i, B, v + i, B, out + i, B);
}
