#pragma once
// The layout descriptor of a model: the flat ordering of its states,
// parameters and observables, identical on host and device.
//
// Canonical order: within each block, symbols in the order they are declared
// (fx::states(...), fx::params(...), observables in the order of their
// fx::observe statements); by default each symbol a contiguous row-major
// block, last index fastest. block.hpp documents the group-major policy.
#include <array>
#include <cstddef>
#include <type_traits>

#include <fluxion/layout/block.hpp>
#include <fluxion/model/traits.hpp>

namespace fluxion {

// Policy (symbol_major or group_major<G>) orders the state block; parameters,
// observables and intermediates are always symbol-major.
template <class Traits, class Policy = symbol_major>
struct layout {
  using policy = Policy;
  using state = block<typename Traits::states, Policy>;
  using param = block<typename Traits::params>;
  using observable = block<typename Traits::observables_symbols>;
  // Scratch space for aliases, evaluated once per call (not user-visible data).
  using intermediate = block<typename Traits::aliases>;

  // The states of one element of a group over space G (e.g. an independent
  // group, for block-by-block evaluation or solves): their flat offsets in
  // declaration order of the states, then row-major over the other spaces.
  // Under group_major<G> the offsets of element e are the contiguous run
  // [e * size, (e + 1) * size).
  template <index_space G>
  struct group_block {
    static constexpr std::size_t size = [] {
      std::size_t n = 0;
      for (const auto& e : state::entries())
        for (std::size_t r = 0; r < e.rank; ++r)
          if (e.spaces[r] == fluxion::text<G::name> && e.extents[r] == std::size_t(G::extent)) n += e.size / std::size_t(G::extent);
      return n;
    }();
    static constexpr bool contiguous = std::is_same_v<Policy, group_major<G>>;

    static constexpr std::array<std::size_t, size> offsets(int element) {
      std::array<std::size_t, size> out{};
      std::size_t n = 0;
      for (const auto& e : state::entries()) {
        std::size_t g = e.rank;
        for (std::size_t r = 0; r < e.rank; ++r)
          if (e.spaces[r] == fluxion::text<G::name> && e.extents[r] == std::size_t(G::extent)) g = r;
        if (g == e.rank) continue;
        for (std::size_t m = 0; m < e.size / std::size_t(G::extent); ++m) {
          // Decompose m row-major over the spaces other than G.
          std::ptrdiff_t off = std::ptrdiff_t(e.offset) + element * e.strides[g];
          std::size_t rest = m;
          for (std::size_t r = e.rank; r-- > 0;) {
            if (r == g) continue;
            off += std::ptrdiff_t(rest % e.extents[r]) * e.strides[r];
            rest /= e.extents[r];
          }
          out[n++] = std::size_t(off);
        }
      }
      return out;
    }
  };

  static constexpr std::size_t n_states = state::size;
  static constexpr std::size_t n_params = param::size;
  static constexpr std::size_t n_observables = observable::size;
};

}  // namespace fluxion
