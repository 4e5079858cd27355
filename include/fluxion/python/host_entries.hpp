#pragma once
// The host entry points of a Python module (python/entries.hpp): every call
// goes to the validated host drivers (fluxion::host::*), which check the
// buffers again and spread the batch over threads. Host translation units
// only (the host compiler's SIMD lanes; see FLUXION_HOST_ABI_BEGIN).
#include <fluxion/fluxion.hpp>
#include <fluxion/python/detail/tables.hpp>
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

template <class Spec, class M>
struct host_solving : by_method<host_solving<Spec, M>, typename M::scalar> {
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
