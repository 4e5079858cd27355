#pragma once
// The layout descriptor of a model: the flat ordering of its states,
// parameters and observables, identical on host and device.
//
// Canonical order: within each block, symbols in the order they are declared
// (fx::states(...), fx::params(...), observables in the order of their
// fx::observe statements); each symbol a contiguous row-major block, last
// index fastest.
#include <cstddef>

#include <fluxion/layout/block.hpp>
#include <fluxion/model/analysis.hpp>

namespace fluxion {

template <class Traits>
struct layout {
  using state = block<typename Traits::states>;
  using param = block<typename Traits::params>;
  using observable = block<typename Traits::observables_symbols>;
  // Scratch space for aliases, evaluated once per call (not user-visible data).
  using intermediate = block<typename Traits::aliases>;

  static constexpr std::size_t n_states = state::size;
  static constexpr std::size_t n_params = param::size;
  static constexpr std::size_t n_observables = observable::size;
};

}  // namespace fluxion
