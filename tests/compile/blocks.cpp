// The compile-time block structure of Model A's Jacobians (which input block
// each output block depends on, and through which index map), against what
// the equations say by hand.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <string>
#include <string_view>

#include "support/model_a.hpp"

namespace fx = fluxion;
using M = fx::compiled<model_a::model, double>;

namespace {
template <std::size_t N>
const fx::block_dependence* find(const std::array<fx::block_dependence, N>& t, std::string_view out, std::string_view in) {
  for (const auto& d : t)
    if (d.output == out && d.input == in) return &d;
  return nullptr;
}
}  // namespace

TEST_CASE("Model A: state Jacobian blocks and their index maps", "[derivatives][blocks]") {
  constexpr auto t = fx::jacobian_blocks<M, M::jacobian::x>();
  // dS, dE read every state through N and lambda (4 + 4 blocks); dI reads E
  // and I, dR reads I and R: 12 blocks, not 16.
  STATIC_REQUIRE(t.size() == 12);
  CHECK(find(t, "I", "S") == nullptr);
  CHECK(find(t, "R", "E") == nullptr);
  // dI[p,k]/dE[j,m] = sigma delta(p,j) delta(k,m): the same element.
  const auto* ie = find(t, "I", "E");
  REQUIRE(ie != nullptr);
  CHECK(ie->maps[0] == fx::map_same_element);
  CHECK(ie->maps[1] == fx::map_same_element);
  // dR/dR: only transport, along age: the same stage and the previous one.
  const auto* rr = find(t, "R", "R");
  REQUIRE(rr != nullptr);
  CHECK(rr->maps[0] == fx::map_same_element);
  CHECK(rr->maps[1] == (fx::map_same_element | fx::map_previous_stage));
  // dS/dI: through lambda = beta sum_q C sum_k I / N: every patch, every stage.
  const auto* si = find(t, "S", "I");
  REQUIRE(si != nullptr);
  CHECK(si->maps[0] == fx::map_every_element);
  CHECK(si->maps[1] == fx::map_every_element);
  CHECK(fx::index_map_text(rr->maps[1]) == "same element + previous stage");
}

TEST_CASE("Model A: parameter Jacobian blocks", "[derivatives][blocks]") {
  constexpr auto t = fx::jacobian_blocks<M, M::jacobian::p>();
  // dS/dC[j, m]: the own patch p = j, every q = m of the sum.
  const auto* sc = find(t, "S", "C");
  REQUIRE(sc != nullptr);
  CHECK(sc->maps[0] == fx::map_same_element);
  CHECK(sc->maps[1] == fx::map_every_element);
  // sigma is a scalar: a dependence with no index map.
  const auto* es = find(t, "E", "sigma");
  REQUIRE(es != nullptr);
  CHECK(es->input_rank == 0);
  CHECK(find(t, "S", "sigma") == nullptr);
  CHECK(find(t, "R", "beta") == nullptr);
}
