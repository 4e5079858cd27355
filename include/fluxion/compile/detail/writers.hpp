#pragma once
// The loop writers: bound equations (bind.hpp) written element by element
// into an output buffer, one loop nest per equation or fused per index shape,
// shared among the members of a cooperative group, or with deferred scratch
// steps evaluated inside the outputs' loop. __host__ __device__ code.
#include <cstddef>
#include <type_traits>

#include <fluxion/compile/detail/context.hpp>
#include <fluxion/compile/jacobian.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/index.hpp>

namespace fluxion::detail {

// Writes expression Rhs of element Target into `out` (of element type Out).
template <class Target, class Rhs, class Ctx, class Out, class SO>
struct element_writer {
  using value = typename Ctx::scalar;
  const Ctx& ctx;
  Out* out;
  SO stride;
  template <class Env>
  FLUXION_HOST_DEVICE void operator()(const Env& e) const {
    store_value(out + std::ptrdiff_t(Target::offset(e)) * stride, static_cast<value>(Rhs::eval(ctx, e)));
  }
};

template <class Eq, class Ctx, class Out, class SO>
FLUXION_HOST_DEVICE void write_equation(const Ctx& ctx, Out* out, SO stride) {
  for_each_element<typename Eq::vars>::run(
      env<>{}, element_writer<typename Eq::target, typename Eq::rhs, Ctx, Out, SO>{ctx, out, stride});
}

template <class Ctx, class Out, class SO, class... Eq>
FLUXION_HOST_DEVICE void write_equations(type_list<Eq...>, [[maybe_unused]] const Ctx& ctx,
                                         [[maybe_unused]] Out* out, [[maybe_unused]] SO stride) {
  (write_equation<Eq>(ctx, out, stride), ...);
}

// Writes outputs (equations that do not read each other: right-hand sides,
// observables, their directional derivatives) one element loop per index
// shape: dS[p,k], dE[p,k], dI[p,k], dR[p,k] are written together for each
// (p, k), so that what they share (S[p,k] feeds dS and dE) is read once and
// stays in registers only briefly.
template <class Ctx, class Out, class SO, class Eqs>
struct fused_writer;
template <class Ctx, class Out, class SO, class... Eq>
struct fused_writer<Ctx, Out, SO, type_list<Eq...>> {
  const Ctx& ctx;
  Out* out;
  SO stride;
  template <class Env>
  FLUXION_HOST_DEVICE void operator()(const Env& e) const {
    (element_writer<typename Eq::target, typename Eq::rhs, Ctx, Out, SO>{ctx, out, stride}(e), ...);
  }
};

template <class Vars>
struct has_vars {
  template <class Eq>
  struct test : std::is_same<typename Eq::vars, Vars> {};
};
template <class Eq>
struct vars_of_equation {
  using type = typename Eq::vars;
};

template <class Ctx, class Out, class SO, class Eqs, class... Shapes>
FLUXION_HOST_DEVICE void write_fused(type_list<Shapes...>, [[maybe_unused]] const Ctx& ctx, [[maybe_unused]] Out* out,
                                     [[maybe_unused]] SO stride) {
  (for_each_element<Shapes>::run(
       env<>{}, fused_writer<Ctx, Out, SO, filter_t<has_vars<Shapes>::template test, Eqs>>{ctx, out, stride}),
   ...);
}

template <class Eqs, class Ctx, class Out, class SO>
FLUXION_HOST_DEVICE void write_outputs(const Ctx& ctx, Out* out, SO stride) {
  write_fused<Ctx, Out, SO, Eqs>(unique_t<transform_t<vars_of_equation, Eqs>>{}, ctx, out, stride);
}

// Cooperative evaluation: the members of a group (a warp's lanes on a GPU,
// threads on the host) share one instance's evaluation. A group g gives
// g.rank() and g.size() and g.sync(), a barrier of all its members (with
// the memory they wrote made visible). Member r writes the flat
// (row-major) elements r, r + size, r + 2 size, ... of each equation's index
// shape; every scratch step is followed by a sync, since later steps and
// the outputs read its elements wherever they were written.
template <class Env>
FLUXION_HOST_DEVICE constexpr auto bind_flat(const Env& e, int, type_list<>) {
  return e;
}
template <class Env, class V, class... Vs>
FLUXION_HOST_DEVICE constexpr auto bind_flat(const Env& e, int flat, type_list<V, Vs...>) {
  constexpr int inner = (1 * ... * Vs::space::extent);
  return bind_flat(e.template bind<V>(flat / inner), flat % inner, type_list<Vs...>{});
}
template <class Vars>
struct flat_extent;
template <class... V>
struct flat_extent<type_list<V...>> : std::integral_constant<int, (1 * ... * V::space::extent)> {};

template <class Vars, class Group, class F>
FLUXION_HOST_DEVICE void for_members_elements(const Group& g, const F& f) {
  for (int flat = int(g.rank()); flat < flat_extent<Vars>::value; flat += int(g.size()))
    f(bind_flat(env<>{}, flat, Vars{}));
}

template <class Group, class Ctx, class Out, class... Eq>
FLUXION_HOST_DEVICE void write_steps_cooperative(type_list<Eq...>, const Group& g, [[maybe_unused]] const Ctx& ctx,
                                                 [[maybe_unused]] Out* out) {
  ((for_members_elements<typename Eq::vars>(
        g, element_writer<typename Eq::target, typename Eq::rhs, Ctx, Out, unit_stride>{ctx, out, {}}),
    g.sync()),
   ...);
}

template <class Ctx, class Out, class Eqs, class Group, class... Shapes>
FLUXION_HOST_DEVICE void write_fused_cooperative(type_list<Shapes...>, const Group& g, [[maybe_unused]] const Ctx& ctx,
                                                 [[maybe_unused]] Out* out) {
  (for_members_elements<Shapes>(
       g, fused_writer<Ctx, Out, unit_stride, filter_t<has_vars<Shapes>::template test, Eqs>>{ctx, out, {}}),
   ...);
}

// The outputs' one loop (Shape) with deferred scratch steps evaluated at the
// element of the leading variables they are indexed by, just before the
// outputs there read them (evaluation_plan::deferred_steps).
template <class Done, class Rest>
struct nested_loop;
template <class Done>
struct nested_loop<Done, type_list<>> {
  template <class Env, class Hook, class Leaf>
  FLUXION_HOST_DEVICE static void run(const Env& e, const Hook& hook, const Leaf& leaf) {
    hook.template at<Done>(e);
    leaf(e);
  }
};
template <class... D, class R, class... Rs>
struct nested_loop<type_list<D...>, type_list<R, Rs...>> {
  template <class Env, class Hook, class Leaf>
  FLUXION_HOST_DEVICE static void run(const Env& e, const Hook& hook, const Leaf& leaf) {
    hook.template at<type_list<D...>>(e);
    for (int i = 0; i < R::space::extent; ++i)
      nested_loop<type_list<D..., R>, type_list<Rs...>>::run(e.template bind<R>(i), hook, leaf);
  }
};

template <class Steps, class Ctx>
struct deferred_hook;
template <class... S, class Ctx>
struct deferred_hook<type_list<S...>, Ctx> {
  using value = typename Ctx::scalar;
  const Ctx& ctx;
  value* scratch;
  template <class Prefix, class Step, class Env>
  FLUXION_HOST_DEVICE void one(const Env& e) const {
    if constexpr (std::is_same_v<typename Step::vars, Prefix>)
      element_writer<typename Step::target, typename Step::rhs, Ctx, value, unit_stride>{ctx, scratch, {}}(e);
  }
  template <class Prefix, class Env>
  FLUXION_HOST_DEVICE void at(const Env& e) const {
    (one<Prefix, S>(e), ...);
  }
};

template <class Eqs, class Shape, class Deferred, class Ctx, class Out, class SO>
FLUXION_HOST_DEVICE void write_outputs_deferred(const Ctx& ctx, typename Ctx::scalar* scratch, Out* out, SO stride) {
  nested_loop<type_list<>, Shape>::run(env<>{}, deferred_hook<Deferred, Ctx>{ctx, scratch},
                                       fused_writer<Ctx, Out, SO, Eqs>{ctx, out, stride});
}

}  // namespace fluxion::detail
