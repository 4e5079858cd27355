// Device smoke test: Model A's rhs evaluated by a kernel (SoA batch, one
// thread an instance) in float and double equals the host result of the same
// compiled type. Exit 77 (SKIP) with a reason when no CUDA device is usable.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

namespace fx = fluxion;

using patch = fx::index<"patch", 8>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"E", patch, age> E;
constexpr fx::state<"I", patch, age> I;
constexpr fx::state<"R", patch, age> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"a", age> a;
constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k) + E(p, k) + I(p, k) + R(p, k)));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * fx::sum(k, I(q, k)) / N(q)));
constexpr auto model_a = fx::model(fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),
                                   fx::d(S(p, k)) = -lam(p) * S(p, k),
                                   fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),
                                   fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),
                                   fx::d(R(p, k)) = gam * I(p, k), fx::transport<age>(a(k), S, E, I, R),
                                   fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));

// The kernel is templated on the scalar type only: nvcc's host stub cannot
// spell a kernel template argument that carries a class-type template
// argument (the model), so the compiled type is named inside the kernel.
template <class T>
__global__ void rhs_kernel(T t, const T* x, const T* prm, T* dx, int count) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < count) fx::compiled<model_a, T>{}.rhs(t, x + b, count, prm + b, count, dx + b, count);
}

#define CHECK_CUDA(call)                                                                  \
  do {                                                                                    \
    const cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                            \
      std::printf("FAIL: %s: %s\n", #call, cudaGetErrorString(err_));                     \
      return false;                                                                       \
    }                                                                                     \
  } while (0)

template <class T>
bool device_equals_host(int count) {
  using M = fx::compiled<model_a, T>;
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  std::vector<T> x(M::n_states * count), prm(M::n_params * count), dx(M::n_states * count), host(M::n_states * count);
  for (auto& v : x) v = T(u(gen));
  for (auto& v : prm) v = T(u(gen));
  T *dx_dev = nullptr, *x_dev = nullptr, *p_dev = nullptr;
  CHECK_CUDA(cudaMalloc(&x_dev, x.size() * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&p_dev, prm.size() * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dx_dev, dx.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(x_dev, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(p_dev, prm.data(), prm.size() * sizeof(T), cudaMemcpyHostToDevice));
  rhs_kernel<T><<<(count + 127) / 128, 128>>>(T(0.25), x_dev, p_dev, dx_dev, count);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(dx.data(), dx_dev, dx.size() * sizeof(T), cudaMemcpyDeviceToHost));
  cudaFree(x_dev);
  cudaFree(p_dev);
  cudaFree(dx_dev);
  fx::host::rhs(M{}, T(0.25), count, fx::soa(x), fx::soa(prm), fx::soa(host));
  // Same expression, same order of operations: only contraction (FMA) differs.
  const double tol = sizeof(T) == 8 ? 1e-12 : 1e-4;
  double worst = 0;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    const double scale = std::fmax(1.0, std::fabs(double(host[i])));
    worst = std::fmax(worst, std::fabs(double(dx[i]) - double(host[i])) / scale);
  }
  std::printf("%s: %d instances, max relative difference device vs host %.3g (tolerance %.0e)\n",
              sizeof(T) == 8 ? "double" : "float", count, worst, tol);
  return worst <= tol;
}

int main() {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device: cudaGetDeviceCount returned %s, %d device(s)\n",
                err == cudaSuccess ? "cudaSuccess" : cudaGetErrorString(err), devices);
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device 0: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  const bool ok = device_equals_host<double>(4099) && device_equals_host<float>(4099);
  return ok ? 0 : 1;
}
