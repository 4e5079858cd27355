// The group-major state layout and group blocks, against offsets computed by
// hand: under fx::group_major<patch> every patch's states form one contiguous
// run (states in declaration order inside, each row-major over its other
// spaces), states not shaped over patch follow all runs; both policies give
// the same values up to that permutation.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace fx = fluxion;

namespace {

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"Sx", patch, age> Sx;
constexpr fx::state<"W", age> W;  // not shaped over patch, declared between two that are
constexpr fx::state<"Ix", patch, age> Ix;
constexpr fx::state<"Rx", patch> Rx;
constexpr fx::param<"b", patch> b;
constexpr fx::param<"g"> g;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(                                       //
    fx::states(Sx, W, Ix, Rx), fx::params(b, g),                     //
    fx::d(Sx(p, k)) = -b(p) * Sx(p, k) * W(k),                       //
    fx::d(W(k)) = -g * W(k),                                         //
    fx::d(Ix(p, k)) = b(p) * Sx(p, k) * W(k) - g * Ix(p, k),         //
    fx::d(Rx(p)) = g * fx::sum(k, Ix(p, k)));
using SM = fx::compiled<m, double>;
using GM = fx::compiled<m, double, fx::group_major<patch>>;

}  // namespace

TEST_CASE("symbol-major offsets of the four states", "[layout][group]") {
  using L = SM::layout::state;
  // Sx 12 at 0, W 4 at 12, Ix 12 at 16, Rx 3 at 28.
  STATIC_REQUIRE(L::size == 31);
  STATIC_REQUIRE(L::offset(Sx, 2, 1) == 9);
  STATIC_REQUIRE(L::offset(W, 3) == 15);
  STATIC_REQUIRE(L::offset(Ix, 0, 0) == 16);
  STATIC_REQUIRE(L::offset(Ix, 1, 3) == 23);
  STATIC_REQUIRE(L::offset(Rx, 2) == 30);
  STATIC_REQUIRE(L::per_element == 0);
}

TEST_CASE("group-major offsets, bases and strides", "[layout][group]") {
  using L = GM::layout::state;
  STATIC_REQUIRE(std::is_same_v<GM::layout::policy, fx::group_major<patch>>);
  STATIC_REQUIRE(L::size == 31);
  // Per patch: Sx (4) + Ix (4) + Rx (1) = 9; runs [0, 9), [9, 18), [18, 27); W at 27.
  STATIC_REQUIRE(L::per_element == 9);
  STATIC_REQUIRE(L::base<decltype(Sx)>() == 0);
  STATIC_REQUIRE(L::base<decltype(Ix)>() == 4);
  STATIC_REQUIRE(L::base<decltype(Rx)>() == 8);
  STATIC_REQUIRE(L::base<decltype(W)>() == 27);
  STATIC_REQUIRE(L::stride<decltype(Sx)>(0) == 9);
  STATIC_REQUIRE(L::stride<decltype(Sx)>(1) == 1);
  STATIC_REQUIRE(L::stride<decltype(Rx)>(0) == 9);
  STATIC_REQUIRE(L::stride<decltype(W)>(0) == 1);
  STATIC_REQUIRE(L::offset(Sx, 0, 0) == 0);
  STATIC_REQUIRE(L::offset(Sx, 1, 2) == 11);
  STATIC_REQUIRE(L::offset(Ix, 1, 2) == 15);
  STATIC_REQUIRE(L::offset(Rx, 1) == 17);
  STATIC_REQUIRE(L::offset(Ix, 2, 3) == 25);
  STATIC_REQUIRE(L::offset(Rx, 2) == 26);
  STATIC_REQUIRE(L::offset(W, 0) == 27);
  STATIC_REQUIRE(L::offset(W, 3) == 30);
  for (int e = 0; e < 3; ++e) {
    for (int j = 0; j < 4; ++j) {
      CHECK(L::offset(Sx, e, j) == std::size_t(9 * e + j));
      CHECK(L::offset(Ix, e, j) == std::size_t(9 * e + 4 + j));
    }
    CHECK(L::offset(Rx, e) == std::size_t(9 * e + 8));
  }
  // Entries carry the strides.
  constexpr auto en = L::entries();
  CHECK(en[0].offset == 0);
  CHECK(en[0].strides[0] == 9);
  CHECK(en[0].strides[1] == 1);
  CHECK(en[1].name == "W");
  CHECK(en[1].offset == 27);
  CHECK(en[1].strides[0] == 1);
  CHECK(en[2].offset == 4);
  CHECK(en[3].offset == 8);
  CHECK(en[3].strides[0] == 9);
  // Parameters stay symbol-major.
  STATIC_REQUIRE(GM::layout::param::offset(b, 2) == 2);
  STATIC_REQUIRE(GM::layout::param::offset(g) == 3);
}

TEST_CASE("group blocks list each element's state offsets", "[layout][group]") {
  using SB = SM::layout::group_block<patch>;
  using GB = GM::layout::group_block<patch>;
  STATIC_REQUIRE(SB::size == 9);
  STATIC_REQUIRE(GB::size == 9);
  STATIC_REQUIRE(!SB::contiguous);
  STATIC_REQUIRE(GB::contiguous);
  for (int e = 0; e < 3; ++e) {
    INFO("element " << e);
    // Symbol-major: Sx(e, 0..3), Ix(e, 0..3), Rx(e).
    const std::array<std::size_t, 9> s = {std::size_t(4 * e),      std::size_t(4 * e + 1),  std::size_t(4 * e + 2),
                                          std::size_t(4 * e + 3),  std::size_t(16 + 4 * e), std::size_t(17 + 4 * e),
                                          std::size_t(18 + 4 * e), std::size_t(19 + 4 * e), std::size_t(28 + e)};
    CHECK(SB::offsets(e) == s);
    std::array<std::size_t, 9> gm{};
    for (std::size_t n = 0; n < 9; ++n) gm[n] = std::size_t(9 * e) + n;
    CHECK(GB::offsets(e) == gm);
  }
}

TEST_CASE("both policies give the same values up to the permutation", "[layout][group]") {
  double xs[31], xg[31], ps[4] = {0.5, 0.25, 0.125, 0.1};
  // Fill both buffers with the same logical state, each at its own offsets.
  auto put = [&](std::size_t os, std::size_t og, double v) {
    xs[os] = v;
    xg[og] = v;
  };
  for (int e = 0; e < 3; ++e) {
    for (int j = 0; j < 4; ++j) {
      put(SM::layout::state::offset(Sx, e, j), GM::layout::state::offset(Sx, e, j), 10.0 + e + 0.5 * j);
      put(SM::layout::state::offset(Ix, e, j), GM::layout::state::offset(Ix, e, j), 1.0 + 0.1 * e * j);
    }
    put(SM::layout::state::offset(Rx, e), GM::layout::state::offset(Rx, e), 0.5 * e);
  }
  for (int j = 0; j < 4; ++j) put(SM::layout::state::offset(W, j), GM::layout::state::offset(W, j), 2.0 - 0.25 * j);
  double ds[31], dg[31];
  SM{}.rhs(0.0, xs, ps, ds);
  GM{}.rhs(0.0, xg, ps, dg);
  for (int e = 0; e < 3; ++e) {
    for (int j = 0; j < 4; ++j) {
      const double sx = 10.0 + e + 0.5 * j, ix = 1.0 + 0.1 * e * j, w = 2.0 - 0.25 * j;
      CHECK(ds[SM::layout::state::offset(Sx, e, j)] == -ps[e] * sx * w);
      CHECK(dg[GM::layout::state::offset(Sx, e, j)] == -ps[e] * sx * w);
      CHECK(ds[SM::layout::state::offset(Ix, e, j)] == ps[e] * sx * w - ps[3] * ix);
      CHECK(dg[GM::layout::state::offset(Ix, e, j)] == ps[e] * sx * w - ps[3] * ix);
    }
    CHECK(dg[GM::layout::state::offset(Rx, e)] == ds[SM::layout::state::offset(Rx, e)]);
  }
  for (int j = 0; j < 4; ++j) {
    CHECK(ds[SM::layout::state::offset(W, j)] == -0.1 * (2.0 - 0.25 * j));
    CHECK(dg[GM::layout::state::offset(W, j)] == -0.1 * (2.0 - 0.25 * j));
  }
}
