// The stiff stage model (tests/support/stage_model.hpp: 3 compartments x 5
// stages, transport, index conditions) on the GPU, written with index
// spaces, written out state by state, and by hand: what the hierarchical
// form costs against the flat one (issue 41, item 1), double, one thread an
// instance, structure-of-arrays batches:
//   jac_x_dense        the dense 15 x 15 state Jacobian of N instances
//                      (hierarchical, flat, hand), ms, median of 30 CUDA-event
//                      timings after warm-up;
//   rodas5p, rosenbrock23   fx::cuda::integrate of N trajectories over t in
//                      [0, 10] (rtol 1e-6, atol 1e-8), hierarchical and flat,
//                      ms (median of 5), with the steps taken.
// One JSON object per line:
//   {"bench": "jac_x_dense", "form": "hierarchical", "dtype": "f64", "N": 1048576, "ms": ...}
// Usage: fluxion-bench-stage-device [N]     (default 1048576)
#include <fluxion/cuda.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <vector>

#include "device_timing.hpp"
#include "support/stage_model.hpp"

namespace fx = fluxion;
namespace sm = stage_model;

namespace {

using bench::device_vec;
using bench::median_ms;

constexpr int n = sm::n_states, np = sm::n_params;

// The dense state Jacobian of one instance of a structure-of-arrays batch
// (element stride N), by fluxion (Form::model) or by hand.
template <class M>
struct fluxion_form {
  __device__ static void jac(const double* x, const double* p, double* J, std::ptrdiff_t N) {
    M{}.template jacobian_dense<M::jacobian::x>(0.0, x, N, p, N, J, N);
  }
};
struct hand_form {
  __device__ static void jac(const double* x, const double* p, double* J, std::ptrdiff_t N) {
    sm::hand::jac_x(x, N, p, N, J, N);
  }
};

template <class Form>
__global__ void jac_kernel(const double* x, const double* p, double* J, std::size_t N) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) Form::jac(x + i, p + i, J + i, std::ptrdiff_t(N));
}

template <class Form>
void jacobian(const char* form, const device_vec<double>& x, const device_vec<double>& p, device_vec<double>& J,
              std::size_t N) {
  const unsigned threads = 128, blocks = unsigned((N + threads - 1) / threads);
  const double ms = median_ms([&] { jac_kernel<Form><<<blocks, threads>>>(x.ptr, p.ptr, J.ptr, N); });
  fx::detail::check_cuda(cudaGetLastError(), "jac_kernel");
  std::printf("{\"bench\": \"jac_x_dense\", \"form\": \"%s\", \"dtype\": \"f64\", \"N\": %zu, \"ms\": %.4f}\n", form,
              N, ms);
}

template <class M, class Method>
void ensemble(const char* bench, const char* form, Method method, const std::vector<double>& hx,
              const std::vector<double>& hp, std::size_t N) {
  // The first N instances of the batch (element stride hx.size() / n), compacted.
  const std::size_t all = hx.size() / n;
  std::vector<double> cx(n * N), cp(np * N);
  for (std::size_t b = 0; b < N; ++b) {
    for (int i = 0; i < n; ++i) cx[i * N + b] = hx[i * all + b];
    for (int j = 0; j < np; ++j) cp[j * N + b] = hp[j * all + b];
  }
  device_vec<double> x0(n * N), p(np * N), final_states(n * N);
  fx::detail::check_cuda(cudaMemcpy(x0.ptr, cx.data(), cx.size() * sizeof(double), cudaMemcpyHostToDevice), "copy");
  fx::detail::check_cuda(cudaMemcpy(p.ptr, cp.data(), cp.size() * sizeof(double), cudaMemcpyHostToDevice), "copy");
  device_vec<fx::solve_status> status(N);
  device_vec<fx::solve_statistics> stats(N);
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .rtol = 1e-6, .atol = 1e-8};
  const fx::ensemble_buffers<double> out{{}, {final_states.ptr, n * N}, {status.ptr, N}, {stats.ptr, N}};
  const double ms = median_ms(
      [&] {
        fx::cuda::integrate(M{}, method, pr, N, fx::soa(std::span<const double>(x0.ptr, n * N)),
                            fx::soa(std::span<const double>(p.ptr, np * N)), out);
      },
      5);
  std::vector<fx::solve_statistics> h(N);
  std::vector<fx::solve_status> s(N);
  fx::detail::check_cuda(cudaMemcpy(h.data(), stats.ptr, N * sizeof(h[0]), cudaMemcpyDeviceToHost), "copy");
  fx::detail::check_cuda(cudaMemcpy(s.data(), status.ptr, N * sizeof(s[0]), cudaMemcpyDeviceToHost), "copy");
  long long steps = 0;
  std::size_t ok = 0;
  for (std::size_t i = 0; i < N; ++i) {
    steps += h[i].accepted + h[i].rejected;
    ok += s[i] == fx::solve_status::success;
  }
  std::printf(
      "{\"bench\": \"%s\", \"form\": \"%s\", \"dtype\": \"f64\", \"N\": %zu, \"ms\": %.4f, \"steps\": %lld, "
      "\"succeeded\": %zu}\n",
      bench, form, N, ms, steps, ok);
}

// The models as values: a non-template function that spelled their types
// would not compile through nvcc's host stubs (compile/compiled.hpp).
template <auto Hierarchical, auto Flat>
void run(const std::vector<double>& hx, const std::vector<double>& hp, std::size_t N) {
  device_vec<double> x(n * N), p(np * N), J(std::size_t(n) * n * N);
  fx::detail::check_cuda(cudaMemcpy(x.ptr, hx.data(), hx.size() * sizeof(double), cudaMemcpyHostToDevice), "copy");
  fx::detail::check_cuda(cudaMemcpy(p.ptr, hp.data(), hp.size() * sizeof(double), cudaMemcpyHostToDevice), "copy");
  using H = fx::compiled<Hierarchical, double>;
  using F = fx::compiled<Flat, double>;
  for (int round = 0; round < 2; ++round) {  // alternating, twice
    jacobian<fluxion_form<H>>("hierarchical", x, p, J, N);
    jacobian<fluxion_form<F>>("flat", x, p, J, N);
    jacobian<hand_form>("hand", x, p, J, N);
  }
  const std::size_t Ne = std::min<std::size_t>(N, 100000);
  ensemble<H>("rodas5p", "hierarchical", fx::rodas5p{}, hx, hp, Ne);
  ensemble<F>("rodas5p", "flat", fx::rodas5p{}, hx, hp, Ne);
  ensemble<H>("rosenbrock23", "hierarchical", fx::rosenbrock23{}, hx, hp, Ne);
  ensemble<F>("rosenbrock23", "flat", fx::rosenbrock23{}, hx, hp, Ne);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t N = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t(1) << 20;
  if (N == 0) {
    std::fprintf(stderr, "usage: fluxion-bench-stage-device [N > 0]\n");
    return 2;
  }
  std::vector<double> hx(n * N), hp(np * N), xi(n), pi(np);
  std::mt19937_64 rng(41);
  for (std::size_t b = 0; b < N; ++b) {
    sm::draw_stiff(rng, xi.data(), pi.data());
    for (int i = 0; i < n; ++i) hx[i * N + b] = xi[i];
    for (int j = 0; j < np; ++j) hp[j * N + b] = pi[j];
  }
  run<sm::hierarchical, sm::flat>(hx, hp, N);
  return 0;
}
