// Model A of BENCHMARKS.md (tests/support/model_a.hpp) against its
// hand-written reference: float and double, symbol-major and
// group-major<patch> layouts, AoS and SoA batches through fx::host, a non-zero
// last aging rate ignored (no outflow from the last stage), layout offsets and
// the group block of a patch computed by hand.
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/model_a.hpp"

namespace fx = fluxion;
using model_a::K;
using model_a::P;

namespace {

template <class M>
std::array<std::size_t, model_a::n_states> state_map() {
  using L = typename M::layout::state;
  std::array<std::size_t, model_a::n_states> o{};
  for (int pp = 0; pp < P; ++pp)
    for (int kk = 0; kk < K; ++kk) {
      o[model_a::xi(0, pp, kk)] = L::offset(model_a::S, pp, kk);
      o[model_a::xi(1, pp, kk)] = L::offset(model_a::E, pp, kk);
      o[model_a::xi(2, pp, kk)] = L::offset(model_a::I, pp, kk);
      o[model_a::xi(3, pp, kk)] = L::offset(model_a::R, pp, kk);
    }
  return o;
}

template <class T>
bool close(T got, T want) {
  const double tol = sizeof(T) == 8 ? 1e-13 : 1e-5;
  return std::abs(double(got) - double(want)) <= tol * (std::abs(double(want)) + 1.0);
}

template <class Policy, class T>
void check(bool last_rate_zero) {
  using M = fx::compiled<model_a::model, T, Policy>;
  constexpr std::size_t ns = model_a::n_states, np = model_a::n_params, no = model_a::n_observables;
  STATIC_REQUIRE(M::n_states == ns);
  STATIC_REQUIRE(M::n_params == np);
  STATIC_REQUIRE(M::n_observables == no);
  const auto map = state_map<M>();
  constexpr std::size_t B = 11;
  std::mt19937_64 rng(last_rate_zero ? 3 : 4);
  std::vector<std::array<T, ns>> xc(B), dxw(B);
  std::vector<std::array<T, np>> pc(B);
  std::vector<std::array<T, no>> yw(B);
  for (std::size_t b = 0; b < B; ++b) {
    model_a::random_instance(rng, xc[b].data(), pc[b].data(), last_rate_zero);
    model_a::reference_rhs(xc[b].data(), pc[b].data(), dxw[b].data());
    model_a::reference_observe(xc[b].data(), pc[b].data(), yw[b].data());
  }
  for (bool soa : {false, true}) {
    INFO((soa ? "SoA" : "AoS") << " batch");
    auto at = [&](std::size_t b, std::size_t j, std::size_t n) { return soa ? j * B + b : b * n + j; };
    std::vector<T> x(ns * B), p(np * B), dx(ns * B, T(-999)), y(no * B, T(-999));
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t i = 0; i < ns; ++i) x[at(b, map[i], ns)] = xc[b][i];
      for (std::size_t j = 0; j < np; ++j) p[at(b, j, np)] = pc[b][j];
    }
    const auto& cx = std::as_const(x);
    const auto& cp = std::as_const(p);
    if (soa) {
      fx::host::rhs(M{}, T(0), B, fx::soa(cx), fx::soa(cp), fx::soa(dx));
      fx::host::observe(M{}, T(0), B, fx::soa(cx), fx::soa(cp), fx::soa(y));
    } else {
      fx::host::rhs(M{}, T(0), B, fx::aos(cx), fx::aos(cp), fx::aos(dx));
      fx::host::observe(M{}, T(0), B, fx::aos(cx), fx::aos(cp), fx::aos(y));
    }
    int bad = 0;
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t i = 0; i < ns; ++i)
        if (!close(dx[at(b, map[i], ns)], dxw[b][i])) {
          if (++bad < 5) FAIL_CHECK("instance " << b << " state " << i << ": " << dx[at(b, map[i], ns)] << " vs " << dxw[b][i]);
        }
      for (std::size_t i = 0; i < no; ++i)
        if (!close(y[at(b, i, no)], yw[b][i])) {
          if (++bad < 5) FAIL_CHECK("instance " << b << " observable " << i << ": " << y[at(b, i, no)] << " vs " << yw[b][i]);
        }
    }
    CHECK(bad == 0);
  }
  // One instance through the raw entry point.
  std::array<T, ns> x{}, dx{};
  for (std::size_t i = 0; i < ns; ++i) x[map[i]] = xc[0][i];
  M{}.rhs(T(0), x.data(), pc[0].data(), dx.data());
  for (std::size_t i = 0; i < ns; ++i) CHECK(close(dx[map[i]], dxw[0][i]));
}

}  // namespace

TEMPLATE_TEST_CASE("Model A agrees with its hand-written reference", "[hierarchy][model_a]", float, double) {
  SECTION("symbol-major, a[K-1] = 0") { check<fx::symbol_major, TestType>(true); }
  SECTION("group-major over patch, a[K-1] = 0") { check<fx::group_major<model_a::patch>, TestType>(true); }
  SECTION("symbol-major, a[K-1] != 0 is ignored") { check<fx::symbol_major, TestType>(false); }
  SECTION("group-major over patch, a[K-1] != 0 is ignored") {
    check<fx::group_major<model_a::patch>, TestType>(false);
  }
}

TEST_CASE("Model A layout offsets and group blocks", "[hierarchy][model_a][layout]") {
  using SM = fx::compiled<model_a::model, double>;
  using GM = fx::compiled<model_a::model, double, fx::group_major<model_a::patch>>;
  // Symbol-major: S, E, I, R blocks of 32, each [patch][age].
  STATIC_REQUIRE(SM::layout::state::offset(model_a::S, 0, 0) == 0);
  STATIC_REQUIRE(SM::layout::state::offset(model_a::E, 0, 0) == 32);
  STATIC_REQUIRE(SM::layout::state::offset(model_a::I, 3, 2) == 64 + 14);
  STATIC_REQUIRE(SM::layout::state::offset(model_a::R, 7, 3) == 127);
  // Parameters: beta[8] at 0, C[8][8] at 8, sigma 72, gamma 73, a[4] at 74.
  STATIC_REQUIRE(SM::layout::param::offset(model_a::beta, 5) == 5);
  STATIC_REQUIRE(SM::layout::param::offset(model_a::C, 2, 7) == 8 + 23);
  STATIC_REQUIRE(SM::layout::param::offset(model_a::sigma) == 72);
  STATIC_REQUIRE(SM::layout::param::offset(model_a::gam) == 73);
  STATIC_REQUIRE(SM::layout::param::offset(model_a::a, 3) == 77);
  // Aliases N[8] and lambda[8]: one scratch slot per element.
  STATIC_REQUIRE(SM::layout::intermediate::size == 16);
  // Group-major: patch p holds S(p, 0..3), E, I, R at 16 p ...
  STATIC_REQUIRE(GM::layout::state::per_element == 16);
  for (int pp = 0; pp < P; ++pp)
    for (int kk = 0; kk < K; ++kk) {
      CHECK(GM::layout::state::offset(model_a::S, pp, kk) == std::size_t(16 * pp + kk));
      CHECK(GM::layout::state::offset(model_a::E, pp, kk) == std::size_t(16 * pp + 4 + kk));
      CHECK(GM::layout::state::offset(model_a::I, pp, kk) == std::size_t(16 * pp + 8 + kk));
      CHECK(GM::layout::state::offset(model_a::R, pp, kk) == std::size_t(16 * pp + 12 + kk));
    }
  using SB = SM::layout::group_block<model_a::patch>;
  using GB = GM::layout::group_block<model_a::patch>;
  STATIC_REQUIRE(SB::size == 16);
  STATIC_REQUIRE(GB::contiguous);
  STATIC_REQUIRE(!SB::contiguous);
  for (int e = 0; e < P; ++e) {
    std::array<std::size_t, 16> s{}, g{};
    for (int c = 0; c < 4; ++c)
      for (int kk = 0; kk < K; ++kk) {
        s[std::size_t(c * K + kk)] = std::size_t(32 * c + 4 * e + kk);
        g[std::size_t(c * K + kk)] = std::size_t(16 * e + 4 * c + kk);
      }
    CHECK(SB::offsets(e) == s);
    CHECK(GB::offsets(e) == g);
  }
}
