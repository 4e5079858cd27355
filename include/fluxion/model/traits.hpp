#pragma once
// What a lowered model means: its symbols in canonical order, one equation
// per state (with stage transport folded in), its aliases in dependency
// order, its observables and groups, and whether it is valid (else
// compilation stops at the first diagnostic).
//
// The analysis lives in namespace-scope templates (model/detail/) rather
// than in members of model_traits: cudafe++ (nvcc 13.0) spends time
// exponential in expression depth on templates nested in a class
// instantiated over a whole model (bench/compile_scaling/edg_chain.cu):
// hoisting them took its back end from 16 s to 0.3 s on an 18-node chain.
#include <fluxion/detail/mp.hpp>
#include <fluxion/model/detail/aliases.hpp>
#include <fluxion/model/detail/statements.hpp>
#include <fluxion/model/detail/transport.hpp>
#include <fluxion/model/detail/validation.hpp>
#include <fluxion/model/model.hpp>

namespace fluxion {

template <class LoweredModel>
struct model_traits;

template <class... Items>
struct model_traits<lowered_model<Items...>> {
  using states = detail::concat_t<typename detail::states_of<Items>::type...>;
  using params = detail::concat_t<typename detail::params_of<Items>::type...>;
  using equations = detail::concat_t<typename detail::equations_of<Items>::type...>;
  using observables = detail::concat_t<typename detail::observables_of<Items>::type...>;
  using transports = detail::concat_t<typename detail::transports_of<Items>::type...>;
  using groups = detail::concat_t<typename detail::groups_of<Items>::type...>;

 private:
  // Every expression the model evaluates directly (alias bodies come with the aliases).
  using roots = detail::concat_t<detail::transform_t<detail::rhs_of, equations>,
                                 detail::transform_t<detail::rhs_of, observables>,
                                 detail::transform_t<detail::rate_of, transports>>;

 public:
  using observables_symbols = detail::transform_t<detail::symbol_of_observable, observables>;
  // Aliases in dependency order: each after every alias its body reads.
  using aliases = typename detail::visit_aliases<detail::type_list<>, detail::type_list<>,
                                                  typename detail::roots_aliases<roots>::type>::type;

 private:
  using all_expressions = detail::concat_t<roots, detail::transform_t<detail::body_of, aliases>>;
  using refs = typename detail::all_refs<all_expressions>::type;
  using read_symbols = detail::unique_t<detail::transform_t<detail::ref_symbol, refs>>;

 public:
  // True for a valid model; for an invalid one, compilation stops with the
  // first diagnostic.
  static constexpr bool valid =
      detail::check_names<detail::concat_t<states, params, observables_symbols, aliases>>() &&
      detail::check_declared<read_symbols, detail::concat_t<states, params>>() &&
      detail::check_equations<states, equations>(equations{}) && detail::check_states<equations>(states{}) &&
      detail::check_observables(observables{}) && detail::all_fixed_in_range<refs>::value &&
      detail::check_transports(transports{}) && detail::check_groups<states, equations, transports>(groups{});

  // One equation per state, in the order the states are declared.
  using state_equations =
      detail::transform_t<detail::state_equation_in<equations, transports>::template fn, states>;
};

}  // namespace fluxion
