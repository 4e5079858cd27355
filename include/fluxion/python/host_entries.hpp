#pragma once
// The host entry points of a Python module (python/entries.hpp): every call
// goes to the validated host drivers (fluxion::host::*), which check the
// buffers again and spread the batch over threads. Host translation units
// only (the host compiler's SIMD lanes; see FLUXION_HOST_ABI_BEGIN).
#include <fluxion/fluxion.hpp>
#include <fluxion/python/entries.hpp>
#include <fluxion/python/spec.hpp>

namespace fluxion::python::detail {

inline fluxion::host::threads host_threads(unsigned n) { return fluxion::host::threads(n); }

template <class M>
struct host_evaluation {
  using T = typename M::scalar;
  static void rhs(const eval_call<T>& c) { fluxion::host::rhs(M{}, c.t, c.count, c.x, c.p, c.out, host_threads(c.threads)); }
  static void observe(const eval_call<T>& c) {
    fluxion::host::observe(M{}, c.t, c.count, c.x, c.p, c.out, host_threads(c.threads));
  }
  static void jvp_x(const eval_call<T>& c) {
    fluxion::host::jvp_x(M{}, c.t, c.count, c.x, c.p, c.v, c.out, host_threads(c.threads));
  }
  static void jvp_p(const eval_call<T>& c) {
    fluxion::host::jvp_p(M{}, c.t, c.count, c.x, c.p, c.v, c.out, host_threads(c.threads));
  }
  template <jacobian_kind J>
  static void dense(const eval_call<T>& c) {
    fluxion::host::jacobian_dense<M, J>(M{}, c.t, c.count, c.x, c.p, c.out, host_threads(c.threads));
  }
  template <jacobian_kind J>
  static void values(const eval_call<T>& c) {
    fluxion::host::jacobian_values<M, J>(M{}, c.t, c.count, c.x, c.p, c.out, c.nnz, host_threads(c.threads));
  }
};

template <class M>
evaluator_entries<typename M::scalar> make_host_evaluators() {
  using E = host_evaluation<M>;
  evaluator_entries<typename M::scalar> t;
  t.rhs = &E::rhs;
  t.observe = &E::observe;
  t.jvp_x = &E::jvp_x;
  t.jvp_p = &E::jvp_p;
  return t;
}

template <class M>
evaluator_entries<typename M::scalar> make_host_jacobians() {
  using E = host_evaluation<M>;
  using J = jacobian_kind;
  evaluator_entries<typename M::scalar> t;
  t.jacobian_dense[0] = &E::template dense<J::x>;
  t.jacobian_dense[1] = &E::template dense<J::p>;
  t.jacobian_dense[2] = &E::template dense<J::obs_x>;
  t.jacobian_dense[3] = &E::template dense<J::obs_p>;
  t.jacobian_values[0] = &E::template values<J::x>;
  t.jacobian_values[1] = &E::template values<J::p>;
  t.jacobian_values[2] = &E::template values<J::obs_x>;
  t.jacobian_values[3] = &E::template values<J::obs_p>;
  return t;
}

template <class Spec, class M>
struct host_solving {
  using T = typename M::scalar;
  template <class Method>
  static void integrate(const integrate_call<T>& c) {
    fluxion::host::integrate(M{}, Method{}, c.problem, c.count, c.x0, c.p, c.out, host_threads(c.threads));
  }
  template <class Method>
  static void log_density(const log_density_call<T>& c) {
    static_assert(requires { Spec::template priors<T>(); },
                  "fluxion::python: a module spec with a likelihood also gives its priors, "
                  "template <class T> static auto priors() (return fluxion::priors<>{} for none).");
    fluxion::host::log_density(M{}, Method{}, c.problem, Spec::likelihood, c.data, Spec::template priors<T>(),
                               c.count, c.x0, c.p, c.out, host_threads(c.threads));
  }
  static void integrate_explicit(const integrate_call<T>& c) {
    if (c.how == method::vern7) return integrate<vern7>(c);
    return integrate<tsit5>(c);
  }
  static void integrate_stiff(const integrate_call<T>& c) {
    if (c.how == method::rodas5p) return integrate<rodas5p>(c);
    return integrate<rosenbrock23>(c);
  }
  static void log_density_by_method(const log_density_call<T>& c) {
    switch (c.how) {
      case method::tsit5: return log_density<tsit5>(c);
      case method::vern7: return log_density<vern7>(c);
      default: break;
    }
    throw problem_error(std::string("fluxion: log_density integrates with an explicit method (tsit5, vern7), not ") +
                        method_names[int(c.how)]);
  }
};

template <class Spec, class M>
solver_entries<typename M::scalar> make_host_solvers() {
  solver_entries<typename M::scalar> t;
  t.integrate = &host_solving<Spec, M>::integrate_explicit;
  t.integrate_stiff = &host_solving<Spec, M>::integrate_stiff;
  if constexpr (has_log_density<Spec>) t.log_density = &host_solving<Spec, M>::log_density_by_method;
  return t;
}

}  // namespace fluxion::python::detail
