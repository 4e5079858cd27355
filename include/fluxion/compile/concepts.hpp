#pragma once
// What a compiled model provides, as a concept: the evaluator that
// fx::compiled<model, T> makes (compile/compiled.hpp). The batch drivers
// (fx::host::rhs, observe, jvp_x, jvp_p) are constrained by it, and passing
// them anything else (the model made by fx::model(...) itself, say) stops
// in one sentence that names the concept (detail::require_compiled_model).
//
//   fx::compiled_model<M>   M::scalar, M::model_type, M::layout, M::jacobian,
//                           M::n_states, M::n_params, M::n_observables, and
//                           m.rhs, m.observe, m.jvp_x, m.jac_x on contiguous buffers
#include <concepts>
#include <cstddef>

namespace fluxion {

template <class M>
concept compiled_model =
    requires {
      typename M::scalar;
      typename M::model_type;
      typename M::layout;
      typename M::jacobian;
      { M::n_states } -> std::convertible_to<std::size_t>;
      { M::n_params } -> std::convertible_to<std::size_t>;
      { M::n_observables } -> std::convertible_to<std::size_t>;
    } && requires(const M& m, typename M::scalar t, const typename M::scalar* x, typename M::scalar* out) {
      m.rhs(t, x, x, out);
      m.observe(t, x, x, out);
      m.jvp_x(t, x, x, x, out);
      m.jac_x(t, x, x, out);
    };

namespace detail {

// The one sentence for a batch evaluation given something else than a
// compiled model. (Its return type is deduced, so that a caller's fallback
// overload instantiates it, and the sentence comes first.)
template <class M>
constexpr auto require_compiled_model() {
  static_assert(compiled_model<M>,
                "fluxion: a batch evaluation takes a model that satisfies fluxion::compiled_model: pass "
                "fluxion::compiled<model, T>{} (T float or double), not the model made by fluxion::model(...).");
}

}  // namespace detail

}  // namespace fluxion
