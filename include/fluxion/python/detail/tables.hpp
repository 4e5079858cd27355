#pragma once
// What the host and device entry points share (python/host_entries.hpp,
// python/cuda_entries.hpp): the tables of an evaluation E (its static rhs,
// observe, jvp_x, jvp_p, dense<J>, values<J>), and the choice of a method by
// name for a solving S (its static integrate<Method> and log_density<Method>).
#include <string>

#include <fluxion/python/entries.hpp>

namespace fluxion::python::detail {

template <class E>
evaluator_entries<typename E::T> evaluator_table() {
  evaluator_entries<typename E::T> t;
  t.rhs = &E::rhs;
  t.observe = &E::observe;
  t.jvp_x = &E::jvp_x;
  t.jvp_p = &E::jvp_p;
  return t;
}

template <class E>
evaluator_entries<typename E::T> jacobian_table() {
  using J = jacobian_kind;
  evaluator_entries<typename E::T> t;
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

// The entry points of solving S by method name: explicit and Rosenbrock
// integrations apart (two device units), log-densities with explicit methods.
template <class S, class T>
struct by_method {
  static void integrate_explicit(const integrate_call<T>& c) {
    if (c.how == method::vern7) return S::template integrate<vern7>(c);
    return S::template integrate<tsit5>(c);
  }
  static void integrate_stiff(const integrate_call<T>& c) {
    if (c.how == method::rodas5p) return S::template integrate<rodas5p>(c);
    return S::template integrate<rosenbrock23>(c);
  }
  static void log_density_by_method(const log_density_call<T>& c) {
    if (c.how == method::tsit5) return S::template log_density<tsit5>(c);
    if (c.how == method::vern7) return S::template log_density<vern7>(c);
    throw problem_error(std::string("fluxion: log_density integrates with an explicit method (tsit5, vern7), not ") +
                        method_names[int(c.how)]);
  }
};

}  // namespace fluxion::python::detail
