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
