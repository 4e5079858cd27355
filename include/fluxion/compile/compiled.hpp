#pragma once
// compiled<model, T>: the evaluators of a model for scalar type T, as one
// trivially copyable, empty type whose member functions are pure
// __host__ __device__ code (no allocation, no exceptions, no virtual calls).
//
//   using M = fx::compiled<sir, double>;
//   M{}.rhs(t, x, p, dx);                          // one instance, contiguous
//   M{}.rhs(t, x, xs, p, ps, dx, dxs);             // element strides
//
// These entry points trust their pointers (outputs must not overlap inputs);
// fluxion/exec validates buffers before calling them.
#include <cstddef>
#include <type_traits>

#include <fluxion/compile/detail/bind.hpp>
#include <fluxion/compile/detail/context.hpp>
#include <fluxion/compile/detail/directional.hpp>
#include <fluxion/compile/detail/writers.hpp>
#include <fluxion/compile/jacobian.hpp>
#include <fluxion/compile/plan.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/layout.hpp>
#include <fluxion/model/model.hpp>
#include <fluxion/model/traits.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/lower.hpp>

namespace fluxion {

// Which Jacobian: d rhs / d state (x), d rhs / d parameters (p), and the
// same of the observables (obs_x, obs_p). At namespace scope, not in the
// evaluator: a launcher called as fluxion::cuda::jacobian_values<J>(m, ...)
// then names no model type, which nvcc's generated host code cannot spell
// (it writes a model's names as undeclared temporaries, "'__T8' was not
// declared", wherever a call in a non-template function spells them).
enum class jacobian_kind { x, p, obs_x, obs_p };

template <class T>
struct is_lowered_model : std::false_type {};
template <class... I>
struct is_lowered_model<lowered_model<I...>> : std::true_type {};

// The evaluators of a lowered model. Users name it through compiled<model, T>;
// it is parameterized by the lowered model (types only, numbers in the types)
// rather than by the model value, so that a kernel templated on it is spelled
// and mangled alike by the host and device compilers.
template <class LoweredModel, class T, class Policy = symbol_major>
struct evaluator;

// Something else than a model: the sentence alone, not the errors of an
// evaluator built on it.
template <class NotAModel, class T, class Policy>
  requires(!is_lowered_model<NotAModel>::value)
struct evaluator<NotAModel, T, Policy> {
  static_assert(detail::always_false<NotAModel>,
                "fluxion::compiled: the first argument must be a model made by fluxion::model(...).");
};

template <class LoweredModel, class T, class Policy>
struct evaluator {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || math::is_complex<T>,
                "fluxion::compiled: the scalar type must be float or double (or, on the host, "
                "std::complex<double> for complex-step differentiation).");

  using scalar = T;
  using model_type = LoweredModel;
  using traits = model_traits<model_type>;
  static_assert(traits::valid, "fluxion::compiled: the model is not valid (see the diagnostic above).");
  static_assert(std::is_same_v<Policy, symbol_major> || !std::is_void_v<typename detail::policy_space<Policy>::type>,
                "fluxion::compiled: the layout policy must be fluxion::symbol_major or fluxion::group_major<space>.");
  using layout = fluxion::layout<traits, Policy>;

  static constexpr std::size_t n_states = layout::n_states;
  static constexpr std::size_t n_params = layout::n_params;
  static constexpr std::size_t n_observables = layout::n_observables;

 private:
  using state_eqs = typename traits::state_equations;
  using observable_eqs = typename traits::observables;
  // What a call evaluates, loop invariants hoisted (compile/plan.hpp).
  using rhs_plan = detail::evaluation_plan<typename traits::aliases, state_eqs>;
  using observe_plan = detail::evaluation_plan<typename traits::aliases, observable_eqs>;

  // Contexts are spelled detail::eval_context<...>, never through a member
  // alias of the evaluator: cicc spells each use of a member alias by the
  // evaluator's whole mangled name (11 KB for the vector-host model, used
  // in 791 places of its device translation).
  template <class Plan>
  using scratch_block = block<typename Plan::scratch_symbols>;
  template <class Plan>
  static constexpr std::size_t scratch_size = scratch_block<Plan>::size;
  // References of Plan's expressions resolved against the layout and its scratch.
  template <class Plan>
  using resolver = detail::resolver<typename layout::state, typename layout::param, scratch_block<Plan>>;
  // Equations or steps of Plan, bound, writing into block Block.
  template <class Plan, class Eqs, class Block>
  using bound = typename detail::bind_equations<Eqs, Block, resolver<Plan>>::type;

  template <class Plan, class Ctx>
  FLUXION_HOST_DEVICE static void evaluate_scratch(const Ctx& ctx, typename Ctx::scalar* scratch) {
    detail::write_equations(bound<Plan, typename Plan::scratch_steps, scratch_block<Plan>>{}, ctx, scratch,
                            detail::unit_stride{});
  }
  template <class Plan, class Direction, class Ctx>
  FLUXION_HOST_DEVICE static void evaluate_scratch_tangents(const Ctx& ctx, typename Ctx::scalar* tangents) {
    using steps = typename detail::directional_equations<typename Plan::scratch_steps, Direction>::type;
    detail::write_equations(bound<Plan, steps, scratch_block<Plan>>{}, ctx, tangents, detail::unit_stride{});
  }

  // Evaluates the plan's scratch (and, along a direction, its tangents), then
  // writes each equation of Eqs (the plan's, or their directional
  // derivatives) into out. V is the type computed in: T, or lanes of T for
  // consecutive instances (evaluate_lanes).
  // Time is T, or V when every lane has its own time (ensembles in lanes).
  template <class Block, class Plan, class Eqs, class SX, class SP, class SO, class Direction = void, class V = T,
            class Time = T>
  // Outputs never overlap inputs (the batch drivers check it), hence restrict.
  FLUXION_HOST_DEVICE static void evaluate(Time t, const T* FLUXION_RESTRICT x, SX xs, const T* FLUXION_RESTRICT p, SP ps,
                                           const T* FLUXION_RESTRICT v, std::ptrdiff_t vs, T* FLUXION_RESTRICT out,
                                           SO os) {
    V scratch[scratch_size<Plan> > 0 ? scratch_size<Plan> : 1];
    using outputs = bound<Plan, Eqs, Block>;
    if constexpr (std::is_void_v<Direction>) {
      const detail::eval_context<T, SX, SP, V> ctx{V(t), x, xs, p, ps, scratch, v, vs};
      detail::write_equations(bound<Plan, typename Plan::early_steps, scratch_block<Plan>>{}, ctx, scratch,
                              detail::unit_stride{});
      if constexpr (Plan::deferred_steps::size == 0)
        detail::write_outputs<outputs>(ctx, out, os);
      else
        detail::write_outputs_deferred<outputs, typename Plan::output_shape,
                                       bound<Plan, typename Plan::deferred_steps, scratch_block<Plan>>>(ctx, scratch,
                                                                                                      out, os);
    } else {
      V tangents[scratch_size<Plan> > 0 ? scratch_size<Plan> : 1];
      const detail::eval_context<T, SX, SP, V> ctx{V(t), x, xs, p, ps, scratch, v, vs, tangents};
      evaluate_scratch<Plan>(ctx, scratch);
      evaluate_scratch_tangents<Plan, Direction>(ctx, tangents);
      detail::write_outputs<outputs>(ctx, out, os);
    }
  }

  template <class Eqs, template <class> class Selects>
  using along_eqs = typename detail::directional_equations<Eqs, along<Selects>>::type;

 public:
  // d(state)/dt for one instance; element strides xs, ps, dxs.
  FLUXION_HOST_DEVICE void rhs(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* dx,
                               std::ptrdiff_t dxs) const {
    evaluate<typename layout::state, rhs_plan, typename rhs_plan::equations>(t, x, xs, p, ps, nullptr, 1, dx, dxs);
  }
  FLUXION_HOST_DEVICE void rhs(T t, const T* x, const T* p, T* dx) const {
    constexpr detail::unit_stride one{};
    evaluate<typename layout::state, rhs_plan, typename rhs_plan::equations>(t, x, one, p, one, nullptr, 1, dx, one);
  }

  // d(state)/dt of one instance computed by the members of a group together
  // (see detail::write_steps_cooperative: g.rank(), g.size(), g.sync()):
  // every member calls it with the same arguments; x, p, dx and scratch
  // (rhs_scratch_size values) are memory that every member reads and
  // writes, contiguous (shared memory for a warp). Aliases and hoisted
  // subexpressions are computed into scratch first, one step after another;
  // then each member writes its share of dx, so sync before reading dx.
  // Each element is the same expression as in rhs (on the host the same
  // values bit for bit: tests/generated, shared among host threads).
  static constexpr std::size_t rhs_scratch_size = scratch_size<rhs_plan>;
  template <class Group>
  FLUXION_HOST_DEVICE void rhs_cooperative(const Group& g, T t, const T* x, const T* p, T* scratch, T* dx) const {
    using context = detail::eval_context<T, detail::unit_stride, detail::unit_stride>;
    constexpr detail::unit_stride one{};
    const context ctx{t, x, one, p, one, scratch};
    detail::write_steps_cooperative(bound<rhs_plan, typename rhs_plan::scratch_steps, scratch_block<rhs_plan>>{}, g,
                                    ctx, scratch);
    using outputs = bound<rhs_plan, typename rhs_plan::equations, typename layout::state>;
    detail::write_fused_cooperative<context, T, outputs>(
        detail::unique_t<detail::transform_t<detail::vars_of_equation, outputs>>{}, g, ctx, dx);
  }

  // Observables for one instance; element strides xs, ps, ys.
  FLUXION_HOST_DEVICE void observe(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* y,
                                   std::ptrdiff_t ys) const {
    evaluate<typename layout::observable, observe_plan, typename observe_plan::equations>(t, x, xs, p, ps, nullptr, 1, y, ys);
  }
  FLUXION_HOST_DEVICE void observe(T t, const T* x, const T* p, T* y) const {
    constexpr detail::unit_stride one{};
    evaluate<typename layout::observable, observe_plan, typename observe_plan::equations>(t, x, one, p, one, nullptr, 1, y, one);
  }

  // Lanes::width instances at once, with the host's SIMD units: Lanes is
  // fluxion::lanes<T, W> (exec/lanes.hpp), and the instances are consecutive
  // in every buffer (instance stride 1, as in a structure-of-arrays batch);
  // xs, ps, os are element strides. The host batch drivers use these for
  // structure-of-arrays batches, and for array-of-structures right-hand
  // sides transposed into small buffers of lanes. Host only.
  // The strides may also be compile-time constants (detail::fixed_stride).
  template <class Lanes, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t, class SO = std::ptrdiff_t>
  void rhs_lanes(T t, const T* x, SX xs, const T* p, SP ps, T* dx, SO os) const {
    static_assert(std::is_same_v<typename Lanes::value_type, T>,
                  "fluxion::compiled::rhs_lanes: the lanes must hold the model's scalar type.");
    evaluate<typename layout::state, rhs_plan, typename rhs_plan::equations, SX, SP, SO, void, Lanes>(
        t, x, xs, p, ps, nullptr, 1, dx, os);
  }
  // The same with a time per lane (the trajectories of an ensemble
  // integrated in lanes, each at its own time).
  template <class Lanes, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t, class SO = std::ptrdiff_t>
    requires std::is_same_v<typename Lanes::value_type, T>
  void rhs_lanes(Lanes t, const T* x, SX xs, const T* p, SP ps, T* dx, SO os) const {
    evaluate<typename layout::state, rhs_plan, typename rhs_plan::equations, SX, SP, SO, void, Lanes, Lanes>(
        t, x, xs, p, ps, nullptr, 1, dx, os);
  }
  template <class Lanes, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t, class SO = std::ptrdiff_t>
  void observe_lanes(T t, const T* x, SX xs, const T* p, SP ps, T* y, SO os) const {
    static_assert(std::is_same_v<typename Lanes::value_type, T>,
                  "fluxion::compiled::observe_lanes: the lanes must hold the model's scalar type.");
    evaluate<typename layout::observable, observe_plan, typename observe_plan::equations, SX, SP, SO, void, Lanes>(
        t, x, xs, p, ps, nullptr, 1, y, os);
  }

  // Jacobian-vector products without forming J: out = (d rhs / d state) v,
  // out = (d rhs / d parameters) v, and the same for the observables. Aliases
  // and their tangents are evaluated once per call, so each costs a small
  // multiple of one right-hand side (about 2x for Model A on the host).
  FLUXION_HOST_DEVICE void jvp_x(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, const T* v,
                                 std::ptrdiff_t vs, T* out, std::ptrdiff_t os) const {
    evaluate<typename layout::state, rhs_plan, along_eqs<typename rhs_plan::equations, detail::is_state_symbol>, std::ptrdiff_t, std::ptrdiff_t,
             std::ptrdiff_t, along<detail::is_state_symbol>>(t, x, xs, p, ps, v, vs, out, os);
  }
  FLUXION_HOST_DEVICE void jvp_x(T t, const T* x, const T* p, const T* v, T* out) const { jvp_x(t, x, 1, p, 1, v, 1, out, 1); }
  FLUXION_HOST_DEVICE void jvp_p(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, const T* v,
                                 std::ptrdiff_t vs, T* out, std::ptrdiff_t os) const {
    evaluate<typename layout::state, rhs_plan, along_eqs<typename rhs_plan::equations, detail::is_parameter_symbol>, std::ptrdiff_t, std::ptrdiff_t,
             std::ptrdiff_t, along<detail::is_parameter_symbol>>(t, x, xs, p, ps, v, vs, out, os);
  }
  FLUXION_HOST_DEVICE void jvp_p(T t, const T* x, const T* p, const T* v, T* out) const { jvp_p(t, x, 1, p, 1, v, 1, out, 1); }
  FLUXION_HOST_DEVICE void obs_jvp_x(T t, const T* x, const T* p, const T* v, T* out) const {
    evaluate<typename layout::observable, observe_plan, along_eqs<typename observe_plan::equations, detail::is_state_symbol>, std::ptrdiff_t,
             std::ptrdiff_t, std::ptrdiff_t, along<detail::is_state_symbol>>(t, x, 1, p, 1, v, 1, out, 1);
  }
  // The partial derivative of the right-hand side in time, d rhs / dt at
  // fixed state and parameters (Rosenbrock methods on non-autonomous models).
  // `autonomous` says whether it is zero everywhere, known at compile time.
  static constexpr bool autonomous = detail::all_zero_along_time<typename rhs_plan::equations>::value;
  FLUXION_HOST_DEVICE void rhs_dt(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* out,
                                  std::ptrdiff_t os) const {
    using eqs = typename detail::directional_equations<typename rhs_plan::equations, time_direction>::type;
    evaluate<typename layout::state, rhs_plan, eqs, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, time_direction>(
        t, x, xs, p, ps, nullptr, 1, out, os);
  }
  FLUXION_HOST_DEVICE void rhs_dt(T t, const T* x, const T* p, T* out) const { rhs_dt(t, x, 1, p, 1, out, 1); }
  // rhs_dt for Lanes::width consecutive instances, each at its own time (as
  // rhs_lanes). Host only.
  template <class Lanes, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t, class SO = std::ptrdiff_t>
    requires std::is_same_v<typename Lanes::value_type, T>
  void rhs_dt_lanes(Lanes t, const T* x, SX xs, const T* p, SP ps, T* out, SO os) const {
    using eqs = typename detail::directional_equations<typename rhs_plan::equations, time_direction>::type;
    evaluate<typename layout::state, rhs_plan, eqs, SX, SP, SO, time_direction, Lanes, Lanes>(t, x, xs, p, ps, nullptr,
                                                                                              1, out, os);
  }

  FLUXION_HOST_DEVICE void obs_jvp_p(T t, const T* x, const T* p, const T* v, T* out) const {
    evaluate<typename layout::observable, observe_plan, along_eqs<typename observe_plan::equations, detail::is_parameter_symbol>, std::ptrdiff_t,
             std::ptrdiff_t, std::ptrdiff_t, along<detail::is_parameter_symbol>>(t, x, 1, p, 1, v, 1, out, 1);
  }

  // --- Jacobians ------------------------------------------------------------------
  // Four Jacobians, each d(outputs)/d(inputs) with rows in the flat order of
  // the outputs and columns in the flat order of the inputs:
  //   jac_x: d rhs / d state      jac_p: d rhs / d parameters
  //   obs_jac_x: d observables / d state      obs_jac_p: d observables / d parameters
  // Dense form: row-major, rows x columns. Sparse form: the values of the
  // structurally non-zero entries in CSR order (rows ascending, columns
  // ascending within a row); the pattern is jacobian_pattern<...> (sparsity.hpp).
  using jacobian = jacobian_kind;  // M::jacobian::x is fluxion::jacobian_kind::x

  template <jacobian J>
  struct jacobian_shape {
    static constexpr bool observables = J == jacobian::obs_x || J == jacobian::obs_p;
    static constexpr bool states = J == jacobian::x || J == jacobian::obs_x;
    using row_block = detail::if_t<observables, typename layout::observable, typename layout::state>;
    using col_block = detail::if_t<states, typename layout::state, typename layout::param>;
    using equations = detail::if_t<observables, observable_eqs, state_eqs>;
    using inputs = detail::if_t<states, typename traits::states, typename traits::params>;
    // The pattern walk (structure only) and the evaluation plan of the values.
    using walk = detail::jacobian_walk<row_block, col_block, equations, inputs>;
    using plan = detail::jacobian_plan<detail::if_t<observables, observe_plan, rhs_plan>, equations, inputs>;
    // The values walk evaluates the plan's hoisted derivatives, bound.
    struct bound_values {
      template <class Eq, class Y>
      using value = detail::bind_t<typename plan::template value<Eq, Y>, resolver<plan>>;
    };
    using value_walk = detail::jacobian_walk<row_block, col_block, equations, inputs, bound_values>;
    static constexpr std::size_t rows = row_block::size;
    static constexpr std::size_t columns = col_block::size;
  };

  // Dense Jacobian J (rows x columns, row-major, element stride js).
  template <jacobian J>
  FLUXION_HOST_DEVICE void jacobian_dense(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* out,
                                          std::ptrdiff_t js) const {
    static_assert(std::is_same_v<Policy, symbol_major>,
                  "fluxion::compiled: Jacobians are laid out over the symbol-major layout; compile the model "
                  "with fluxion::symbol_major to evaluate them.");
    using shape = jacobian_shape<J>;
    for (std::size_t k = 0; k < shape::rows * shape::columns; ++k) out[std::ptrdiff_t(k) * js] = T(0);
    using plan = typename shape::plan;
    T scratch[scratch_size<plan> > 0 ? scratch_size<plan> : 1];
    const detail::eval_context<T> ctx{t, x, xs, p, ps, scratch};
    evaluate_scratch<plan>(ctx, scratch);
    detail::dense_sink<detail::eval_context<T>> sink{&ctx, out, shape::columns, js};
    shape::value_walk::run(sink);
  }

  // Values of the structurally non-zero entries of J in CSR order (stride vs).
  template <jacobian J>
  FLUXION_HOST_DEVICE void jacobian_values(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* out,
                                           std::ptrdiff_t vs) const {
    static_assert(std::is_same_v<Policy, symbol_major>,
                  "fluxion::compiled: Jacobians are laid out over the symbol-major layout; compile the model "
                  "with fluxion::symbol_major to evaluate them.");
    using shape = jacobian_shape<J>;
    using plan = typename shape::plan;
    T scratch[scratch_size<plan> > 0 ? scratch_size<plan> : 1];
    const detail::eval_context<T> ctx{t, x, xs, p, ps, scratch};
    evaluate_scratch<plan>(ctx, scratch);
    detail::values_sink<detail::eval_context<T>> sink{&ctx, out, vs};
    shape::value_walk::run(sink);
  }

  // Dense Jacobian J of Lanes::width consecutive instances at once (host
  // SIMD), each at its own time: entry (r, c) of instance w at
  // out[(r * columns + c) * width + w]; xs, ps are element strides (the
  // instances consecutive, as for rhs_lanes). The values are those of
  // jacobian_dense, bit for bit. Host only.
  template <jacobian J, class Lanes, class SX = std::ptrdiff_t, class SP = std::ptrdiff_t>
    requires std::is_same_v<typename Lanes::value_type, T>
  void jacobian_dense_lanes(Lanes t, const T* x, SX xs, const T* p, SP ps, T* out) const {
    static_assert(std::is_same_v<Policy, symbol_major>,
                  "fluxion::compiled: Jacobians are laid out over the symbol-major layout; compile the model "
                  "with fluxion::symbol_major to evaluate them.");
    using shape = jacobian_shape<J>;
    for (std::size_t k = 0; k < shape::rows * shape::columns * Lanes::width; ++k) out[k] = T(0);
    using plan = typename shape::plan;
    Lanes scratch[scratch_size<plan> > 0 ? scratch_size<plan> : 1];
    using context = detail::eval_context<T, SX, SP, Lanes>;
    const context ctx{t, x, xs, p, ps, scratch};
    evaluate_scratch<plan>(ctx, scratch);
    detail::dense_lanes_sink<context> sink{&ctx, out, shape::columns};
    shape::value_walk::run(sink);
  }

  FLUXION_HOST_DEVICE void jac_x(T t, const T* x, const T* p, T* J) const { jacobian_dense<jacobian::x>(t, x, 1, p, 1, J, 1); }
  FLUXION_HOST_DEVICE void jac_p(T t, const T* x, const T* p, T* J) const { jacobian_dense<jacobian::p>(t, x, 1, p, 1, J, 1); }
  FLUXION_HOST_DEVICE void obs_jac_x(T t, const T* x, const T* p, T* J) const {
    jacobian_dense<jacobian::obs_x>(t, x, 1, p, 1, J, 1);
  }
  FLUXION_HOST_DEVICE void obs_jac_p(T t, const T* x, const T* p, T* J) const {
    jacobian_dense<jacobian::obs_p>(t, x, 1, p, 1, J, 1);
  }
  FLUXION_HOST_DEVICE void jac_x_values(T t, const T* x, const T* p, T* v) const {
    jacobian_values<jacobian::x>(t, x, 1, p, 1, v, 1);
  }
  FLUXION_HOST_DEVICE void jac_p_values(T t, const T* x, const T* p, T* v) const {
    jacobian_values<jacobian::p>(t, x, 1, p, 1, v, 1);
  }
  FLUXION_HOST_DEVICE void obs_jac_x_values(T t, const T* x, const T* p, T* v) const {
    jacobian_values<jacobian::obs_x>(t, x, 1, p, 1, v, 1);
  }
  FLUXION_HOST_DEVICE void obs_jac_p_values(T t, const T* x, const T* p, T* v) const {
    jacobian_values<jacobian::obs_p>(t, x, 1, p, 1, v, 1);
  }
};

// compiled<model, T>: the evaluators of `model` (a constexpr fluxion::model)
// for scalar type T and layout policy Policy.
template <auto Model, class T, class Policy = symbol_major>
using compiled = evaluator<lowered<Model>, T, Policy>;

}  // namespace fluxion
