#pragma once
// What the solve layer's protocols require, as concepts: a system it can
// integrate, the two kinds of method tableau, a method, and the step that
// the adaptive driver (solve/driver.hpp) advances. The entry points
// (fx::host::integrate, fx::cuda::integrate, integrate_sensitivities,
// log_density) are constrained by them, and a misuse stops in one sentence
// that names the concept (detail::require_integration below).
//
//   fx::ode_system<M>          M::scalar, M::n_states, M::n_params, m.rhs(t, x, xs, p, ps, dx, dxs)
//                              (fx::compiled<model, T>, fx::sensitivity_system<M>)
//   fx::explicit_tableau<R>    an embedded explicit Runge-Kutta pair with a continuous
//                              extension (fx::tsit5, fx::vern7; solve/explicit_rk.hpp)
//   fx::rosenbrock_tableau<R>  a Rosenbrock tableau in Rodas form (fx::rodas5p;
//                              solve/rosenbrock.hpp)
//   fx::stiff_method<R>        a Rosenbrock tableau, or fx::rosenbrock23 (written out by hand)
//   fx::ode_method<R>          an explicit tableau or a stiff method
//   fx::adaptive_step<S, M>    what adaptive_driver<S, M> calls on a step
#include <concepts>
#include <cstddef>

#include <fluxion/solve/rosenbrock_tableaus.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion {

template <class M>
concept ode_system = requires {
  typename M::scalar;
  { M::n_states } -> std::convertible_to<std::size_t>;
  { M::n_params } -> std::convertible_to<std::size_t>;
} && requires(const M& m, typename M::scalar t, const typename M::scalar* x, std::ptrdiff_t s, typename M::scalar* dx) {
  m.rhs(t, x, s, x, s, dx, s);
};

template <class R>
concept explicit_tableau = requires(double theta, double* w) {
  { R::stages } -> std::convertible_to<int>;
  { R::order } -> std::convertible_to<int>;
  { R::error_order } -> std::convertible_to<int>;
  { R::first_same_as_last } -> std::convertible_to<bool>;
  { R::c[0] } -> std::convertible_to<double>;
  { R::a[0][0] } -> std::convertible_to<double>;
  { R::b[0] } -> std::convertible_to<double>;
  { R::e[0] } -> std::convertible_to<double>;
  R::dense_weights(theta, w);
};

template <class R>
concept rosenbrock_tableau = requires {
  { R::stages } -> std::convertible_to<int>;
  { R::order } -> std::convertible_to<int>;
  { R::error_order } -> std::convertible_to<int>;
  { R::max_growth } -> std::convertible_to<double>;
  { R::gamma } -> std::convertible_to<double>;
  { R::a[0][0] } -> std::convertible_to<double>;
  { R::C[0][0] } -> std::convertible_to<double>;
  { R::c[0] } -> std::convertible_to<double>;
  { R::d[0] } -> std::convertible_to<double>;
  { R::H[0][0] } -> std::convertible_to<double>;
};

template <class R>
concept stiff_method = rosenbrock_tableau<R> || std::same_as<R, rosenbrock23>;

template <class R>
concept ode_method = explicit_tableau<R> || stiff_method<R>;

template <class T>
struct ode_options;  // solve/options.hpp; solve/driver.hpp constrains its steps by adaptive_step

// A step's protocol, as adaptive_driver<Step, M> (solve/driver.hpp) uses it:
// begin at (t, y), give f(t, y) and a scratch vector for the first step's
// estimate, attempt a step of size h into ynew (returning the members' sum
// of squared scaled errors), accept it, and interpolate inside it. The
// library's steps (explicit_rk_step, rosenbrock23_step, rodas_step) are
// written over a value type V (solve/values.hpp) and satisfy it for V =
// M::scalar; over SIMD lanes the same bodies serve the host lanes'
// ensemble instead (solve/lane_steps.hpp).
template <class Step, class M>
concept adaptive_step =
    ode_system<M> &&
    requires(Step& s, const Step& cs, const M& m, const ode_options<typename M::scalar>& o, typename M::scalar v,
             typename M::scalar* y, const typename M::scalar* p, std::ptrdiff_t ps, solve_statistics& st) {
      { Step::order } -> std::convertible_to<int>;
      { Step::error_order } -> std::convertible_to<int>;
      { Step::max_growth } -> std::convertible_to<double>;
      s.begin(m, v, y, p, ps, st);
      s.f_at_start();
      s.scratch();
      s.attempt(m, o, v, v, y, y, p, ps, st);
      s.accept(m, v, y, p, ps, st);
      { cs.dense(v, v, y, y, 0) } -> std::convertible_to<typename M::scalar>;
    };

namespace detail {

// The one sentence for an integration whose model or method is not one: the
// entry points' fallback overloads call it instead of reaching their bodies.
template <class M, class Method>
constexpr auto require_integration() {
  static_assert(ode_system<M>,
                "fluxion: the model of an integration must satisfy fluxion::ode_system (a fluxion::compiled<model, T>, "
                "or a system with M::scalar, M::n_states, M::n_params and m.rhs(t, x, xs, p, ps, dx, dxs)).");
  static_assert(ode_method<Method>,
                "fluxion: the method of an integration must satisfy fluxion::ode_method: an explicit tableau "
                "(fluxion::explicit_tableau: fluxion::tsit5, fluxion::vern7) or a stiff method "
                "(fluxion::stiff_method: fluxion::rosenbrock23, fluxion::rodas5p).");
}

}  // namespace detail

}  // namespace fluxion
