#pragma once
// compiled<model, T>: the evaluators of a model for scalar type T, as one
// trivially copyable, empty type whose member functions are pure
// __host__ __device__ code (no allocation, no exceptions, no virtual calls).
//
//   using M = fx::compiled<sir, double>;
//   M{}.rhs(t, x, p, dx);                          // one instance, contiguous
//   M{}.rhs(t, x, xs, p, ps, dx, dxs);             // element strides
//
// These entry points trust their pointers; fluxion/exec validates buffers
// before calling them.
#include <cstddef>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/layout/layout.hpp>
#include <fluxion/model/analysis.hpp>
#include <fluxion/model/model.hpp>
#include <fluxion/symbolic/lower.hpp>

namespace fluxion {

namespace detail {

// What expressions read during one evaluation.
template <class T, class Layout>
struct eval_context {
  using scalar = T;
  T t;
  const T* x;
  std::ptrdiff_t xs;
  const T* p;
  std::ptrdiff_t ps;
  const T* intermediates;

  FLUXION_HOST_DEVICE constexpr T time() const { return t; }

  template <class Sym, class... I>
  FLUXION_HOST_DEVICE constexpr T read(I... i) const {
    if constexpr (is_state<Sym>) {
      return x[std::ptrdiff_t(Layout::state::template offset<Sym>(i...)) * xs];
    } else if constexpr (is_parameter<Sym>) {
      return p[std::ptrdiff_t(Layout::param::template offset<Sym>(i...)) * ps];
    } else {
      return intermediates[Layout::intermediate::template offset<Sym>(i...)];
    }
  }
};

// Calls f(env) for every element of the spaces of Vars, last variable fastest.
template <class Vars>
struct for_each_element;
template <>
struct for_each_element<type_list<>> {
  template <class Env, class F>
  FLUXION_HOST_DEVICE static void run(const Env& e, const F& f) {
    f(e);
  }
};
template <class V, class... Vs>
struct for_each_element<type_list<V, Vs...>> {
  template <class Env, class F>
  FLUXION_HOST_DEVICE static void run(const Env& e, const F& f) {
    for (int i = 0; i < V::space::extent; ++i) for_each_element<type_list<Vs...>>::run(e.template bind<V>(i), f);
  }
};

// Writes expression Rhs of Sym[Vars...] into `out` at the block's offsets.
template <class Block, class Sym, class Vars, class Rhs, class Ctx>
struct element_writer;
template <class Block, class Sym, class... V, class Rhs, class Ctx>
struct element_writer<Block, Sym, type_list<V...>, Rhs, Ctx> {
  using T = typename Ctx::scalar;
  const Ctx& ctx;
  T* out;
  std::ptrdiff_t stride;
  template <class Env>
  FLUXION_HOST_DEVICE void operator()(const Env& e) const {
    out[std::ptrdiff_t(Block::template offset<Sym>(V::value(e)...)) * stride] = static_cast<T>(Rhs::eval(ctx, e));
  }
};

template <class Block, class Eq, class Ctx>
FLUXION_HOST_DEVICE void write_equation(const Ctx& ctx, typename Ctx::scalar* out, std::ptrdiff_t stride) {
  using writer = element_writer<Block, typename Eq::symbol, typename Eq::vars, typename Eq::rhs, Ctx>;
  for_each_element<typename Eq::vars>::run(env<>{}, writer{ctx, out, stride});
}

template <class Block, class Ctx, class... Eq>
FLUXION_HOST_DEVICE void write_equations(type_list<Eq...>, const Ctx& ctx, typename Ctx::scalar* out,
                                         std::ptrdiff_t stride) {
  (write_equation<Block, Eq>(ctx, out, stride), ...);
}

template <class A>
struct alias_equation {
  using symbol = A;
  using vars = typename A::vars;
  using rhs = typename symbol_expansion<A>::body;
};

}  // namespace detail

template <auto Model, class T, class Policy = symbol_major>
struct compiled {
  static_assert(is_model_def<std::remove_cvref_t<decltype(Model)>>::value,
                "fluxion::compiled: the first argument must be a model made by fluxion::model(...).");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "fluxion::compiled: the scalar type must be float or double.");

  using scalar = T;
  using model_type = lowered<Model>;
  using traits = model_traits<model_type>;
  static_assert(traits::valid, "fluxion::compiled: the model is not valid (see the diagnostic above).");
  static_assert(std::is_same_v<Policy, symbol_major> || !std::is_void_v<typename detail::policy_space<Policy>::type>,
                "fluxion::compiled: the layout policy must be fluxion::symbol_major or fluxion::group_major<space>.");
  using layout = fluxion::layout<traits, Policy>;

  static constexpr std::size_t n_states = layout::n_states;
  static constexpr std::size_t n_params = layout::n_params;
  static constexpr std::size_t n_observables = layout::n_observables;

 private:
  using context = detail::eval_context<T, layout>;
  static constexpr std::size_t n_intermediates = layout::intermediate::size;

  template <class... A>
  FLUXION_HOST_DEVICE static void evaluate_aliases(detail::type_list<A...>, const context& ctx,
                                                   [[maybe_unused]] T* scratch) {
    (detail::write_equation<typename layout::intermediate, detail::alias_equation<A>>(ctx, scratch, 1), ...);
  }

 public:
  // d(state)/dt for one instance; element strides xs, ps, dxs.
  FLUXION_HOST_DEVICE void rhs(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* dx,
                               std::ptrdiff_t dxs) const {
    T scratch[n_intermediates > 0 ? n_intermediates : 1];
    const context ctx{t, x, xs, p, ps, scratch};
    evaluate_aliases(typename traits::aliases{}, ctx, scratch);
    detail::write_equations<typename layout::state>(typename traits::state_equations{}, ctx, dx, dxs);
  }
  FLUXION_HOST_DEVICE void rhs(T t, const T* x, const T* p, T* dx) const { rhs(t, x, 1, p, 1, dx, 1); }

  // Observables for one instance; element strides xs, ps, ys.
  FLUXION_HOST_DEVICE void observe(T t, const T* x, std::ptrdiff_t xs, const T* p, std::ptrdiff_t ps, T* y,
                                   std::ptrdiff_t ys) const {
    T scratch[n_intermediates > 0 ? n_intermediates : 1];
    const context ctx{t, x, xs, p, ps, scratch};
    evaluate_aliases(typename traits::aliases{}, ctx, scratch);
    detail::write_equations<typename layout::observable>(typename traits::observables{}, ctx, y, ys);
  }
  FLUXION_HOST_DEVICE void observe(T t, const T* x, const T* p, T* y) const { observe(t, x, 1, p, 1, y, 1); }
};

}  // namespace fluxion
