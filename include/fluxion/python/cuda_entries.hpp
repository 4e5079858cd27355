#pragma once
// The device entry points of a Python module (python/entries.hpp): every
// call goes to the CUDA launchers (fluxion::cuda::*), which check the
// buffers (and that they are device memory) before launching on the call's
// stream. CUDA translation units only.
#include <fluxion/cuda.hpp>
#include <fluxion/python/detail/tables.hpp>
#include <fluxion/python/entries.hpp>
#include <fluxion/python/spec.hpp>

namespace fluxion::python::detail {

inline cudaStream_t stream_of(void* s) { return static_cast<cudaStream_t>(s); }

template <class M>
struct cuda_evaluation {
  using T = typename M::scalar;
  static void rhs(const eval_call<T>& c) { fluxion::cuda::rhs(M{}, c.t, c.count, c.x, c.p, c.out, stream_of(c.stream)); }
  static void observe(const eval_call<T>& c) {
    fluxion::cuda::observe(M{}, c.t, c.count, c.x, c.p, c.out, stream_of(c.stream));
  }
  static void jvp_x(const eval_call<T>& c) {
    fluxion::cuda::jvp_x(M{}, c.t, c.count, c.x, c.p, c.v, c.out, stream_of(c.stream));
  }
  static void jvp_p(const eval_call<T>& c) {
    fluxion::cuda::jvp_p(M{}, c.t, c.count, c.x, c.p, c.v, c.out, stream_of(c.stream));
  }
  template <jacobian_kind J>
  static void dense(const eval_call<T>& c) {
    fluxion::cuda::jacobian_dense<M, J>(M{}, c.t, c.count, c.x, c.p, c.out, stream_of(c.stream));
  }
  template <jacobian_kind J>
  static void values(const eval_call<T>& c) {
    fluxion::cuda::jacobian_values<M, J>(M{}, c.t, c.count, c.x, c.p, c.out, c.nnz, stream_of(c.stream));
  }
};

template <class Spec, class M>
struct cuda_solving : by_method<cuda_solving<Spec, M>, typename M::scalar> {
  using T = typename M::scalar;
  template <class Method>
  static void integrate(const integrate_call<T>& c) {
    if constexpr (keeps_dense_matrix<Method>) {
      if constexpr (M::n_states > fluxion::cuda::max_states_dense_per_thread) {
        throw problem_error("fluxion: a Rosenbrock method on the GPU holds each trajectory's iteration matrix in one "
                            "thread, for models of up to 32 states; this model has " +
                            std::to_string(M::n_states) + " (integrate it from NumPy arrays, or with tsit5 or vern7)");
      } else {
        if (c.policy == gpu_policy::warp)
          throw problem_error("fluxion: policy='warp' integrates with explicit methods (tsit5, vern7) only");
        fluxion::cuda::integrate(M{}, Method{}, c.problem, c.count, c.x0, c.p, c.out, stream_of(c.stream));
      }
    } else if (c.policy == gpu_policy::warp) {
      fluxion::cuda::integrate(M{}, Method{}, c.problem, c.count, c.x0, c.p, c.out,
                               fluxion::cuda::warp_per_trajectory{}, stream_of(c.stream));
    } else {
      fluxion::cuda::integrate(M{}, Method{}, c.problem, c.count, c.x0, c.p, c.out, stream_of(c.stream));
    }
  }
  template <class Method>
  static void log_density(const log_density_call<T>& c) {
    const auto lik = Spec::likelihood;
    const auto pri = Spec::template priors<T>();
    const cudaStream_t s = stream_of(c.stream);
    switch (c.policy) {
      case gpu_policy::lanes:
        return fluxion::cuda::log_density(M{}, Method{}, c.problem, lik, c.data, pri, c.count, c.x0, c.p, c.out,
                                          fluxion::cuda::lane_per_column{}, s);
      case gpu_policy::adjoint:
        return fluxion::cuda::log_density(M{}, Method{}, c.problem, lik, c.data, pri, c.count, c.x0, c.p, c.out,
                                          fluxion::discrete_adjoint{}, s);
      default:
        return fluxion::cuda::log_density(M{}, Method{}, c.problem, lik, c.data, pri, c.count, c.x0, c.p, c.out, s);
    }
  }
};

}  // namespace fluxion::python::detail
