// Layout blocks: sizes, bases, element offsets and entries of a flat and of
// an indexed model, against numbers computed by hand from the canonical order
// (symbols in declaration order, each a contiguous row-major block, last
// index fastest).
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace fx = fluxion;

namespace {

// --- flat ------------------------------------------------------------------------------
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gamma_;
constexpr auto flat = fx::model(fx::states(S, I, R), fx::params(beta, gamma_),  //
                                fx::d(S) = -beta * S * I,                       //
                                fx::d(I) = beta * S * I - gamma_ * I,           //
                                fx::d(R) = gamma_ * I,                          //
                                fx::observe<"total">() = S + I + R,             //
                                fx::observe<"incidence">() = beta * S * I);
using Flat = fx::compiled<flat, double>;

// --- indexed ---------------------------------------------------------------------------
using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"Sx", patch, age> Sx;
constexpr fx::state<"Ix", patch, age> Ix;
constexpr fx::state<"Rx", patch> Rx;
constexpr fx::param<"b", patch> b;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"a", age> a;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto indexed = fx::model(                                               //
    fx::states(Sx, Ix, Rx), fx::params(b, C, sigma, a),                           //
    fx::d(Sx(p, k)) = -b(p) * Sx(p, k) * fx::sum(q, C(p, q) * Ix(q, k)),          //
    fx::d(Ix(p, k)) = b(p) * Sx(p, k) * fx::sum(q, C(p, q) * Ix(q, k)) - sigma * Ix(p, k),
    fx::d(Rx(p)) = sigma * fx::sum(k, a(k) * Ix(p, k)),                           //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * Ix(p, k)),                    //
    fx::observe<"total">() = fx::sum(p, Rx(p)),                                   //
    fx::observe<"by_age">(p, k) = Sx(p, k) + Ix(p, k));
using Indexed = fx::compiled<indexed, double>;

using incidence_t = fx::symbol<fx::kind::observable, "incidence", patch>;
using total_t = fx::symbol<fx::kind::observable, "total">;
using by_age_t = fx::symbol<fx::kind::observable, "by_age", patch, age>;

template <std::size_t N>
void check_entry(const fx::layout_entry& e, std::string_view name, std::string_view kind, std::size_t offset,
                 std::size_t size, std::array<std::size_t, N> extents, std::array<std::ptrdiff_t, N> strides,
                 std::array<std::string_view, N> spaces) {
  INFO("entry " << name);
  CHECK(e.name == name);
  CHECK(e.kind == kind);
  CHECK(e.offset == offset);
  CHECK(e.size == size);
  CHECK(e.rank == N);
  for (std::size_t r = 0; r < N; ++r) {
    CHECK(e.extents[r] == extents[r]);
    CHECK(e.strides[r] == strides[r]);
    CHECK(e.spaces[r] == spaces[r]);
  }
}

}  // namespace

TEST_CASE("flat model: sizes and offsets", "[layout]") {
  using L = Flat::layout;
  STATIC_REQUIRE(L::state::size == 3);
  STATIC_REQUIRE(L::param::size == 2);
  STATIC_REQUIRE(L::observable::size == 2);
  STATIC_REQUIRE(L::n_states == 3);
  STATIC_REQUIRE(L::state::count == 3);
  STATIC_REQUIRE(L::state::offset(S) == 0);
  STATIC_REQUIRE(L::state::offset(I) == 1);
  STATIC_REQUIRE(L::state::offset(R) == 2);
  STATIC_REQUIRE(L::state::offset<decltype(R)>() == 2);
  STATIC_REQUIRE(L::state::base<decltype(I)>() == 1);
  STATIC_REQUIRE(L::param::offset(beta) == 0);
  STATIC_REQUIRE(L::param::offset(gamma_) == 1);
  STATIC_REQUIRE(L::observable::base<total_t>() == 0);
  STATIC_REQUIRE(L::observable::base<fx::symbol<fx::kind::observable, "incidence">>() == 1);
  STATIC_REQUIRE(L::state::holds<decltype(S)>);
  STATIC_REQUIRE(!L::state::holds<decltype(beta)>);
  STATIC_REQUIRE(!L::param::holds<decltype(S)>);
}

TEST_CASE("flat model: entries", "[layout]") {
  using L = Flat::layout;
  constexpr auto st = L::state::entries();
  STATIC_REQUIRE(st.size() == 3);
  check_entry<0>(st[0], "S", "state", 0, 1, {}, {}, {});
  check_entry<0>(st[1], "I", "state", 1, 1, {}, {}, {});
  check_entry<0>(st[2], "R", "state", 2, 1, {}, {}, {});
  constexpr auto pa = L::param::entries();
  STATIC_REQUIRE(pa.size() == 2);
  check_entry<0>(pa[0], "beta", "parameter", 0, 1, {}, {}, {});
  check_entry<0>(pa[1], "gamma", "parameter", 1, 1, {}, {}, {});
  constexpr auto ob = L::observable::entries();
  STATIC_REQUIRE(ob.size() == 2);
  check_entry<0>(ob[0], "total", "observable", 0, 1, {}, {}, {});
  check_entry<0>(ob[1], "incidence", "observable", 1, 1, {}, {}, {});
}

TEST_CASE("indexed model: sizes, bases and element offsets", "[layout]") {
  using L = Indexed::layout;
  // States: Sx 3x4 at 0, Ix 3x4 at 12, Rx 3 at 24.
  STATIC_REQUIRE(L::state::size == 27);
  STATIC_REQUIRE(L::state::base<decltype(Sx)>() == 0);
  STATIC_REQUIRE(L::state::base<decltype(Ix)>() == 12);
  STATIC_REQUIRE(L::state::base<decltype(Rx)>() == 24);
  STATIC_REQUIRE(L::state::offset(Sx, 0, 0) == 0);
  STATIC_REQUIRE(L::state::offset(Sx, 0, 3) == 3);
  STATIC_REQUIRE(L::state::offset(Sx, 1, 0) == 4);
  STATIC_REQUIRE(L::state::offset(Sx, 2, 3) == 11);
  STATIC_REQUIRE(L::state::offset(Ix, 0, 0) == 12);
  STATIC_REQUIRE(L::state::offset(Ix, 1, 2) == 18);
  STATIC_REQUIRE(L::state::offset(Ix, 2, 3) == 23);
  STATIC_REQUIRE(L::state::offset(Rx, 0) == 24);
  STATIC_REQUIRE(L::state::offset(Rx, 2) == 26);
  STATIC_REQUIRE(L::state::offset<decltype(Ix)>(1, 2) == 18);
  // Parameters: b 3 at 0, C 3x3 at 3, sigma at 12, a 4 at 13.
  STATIC_REQUIRE(L::param::size == 17);
  STATIC_REQUIRE(L::param::offset(b, 1) == 1);
  STATIC_REQUIRE(L::param::offset(C, 0, 0) == 3);
  STATIC_REQUIRE(L::param::offset(C, 1, 2) == 8);
  STATIC_REQUIRE(L::param::offset(C, 2, 1) == 10);
  STATIC_REQUIRE(L::param::offset(C, 2, 2) == 11);
  STATIC_REQUIRE(L::param::offset(sigma) == 12);
  STATIC_REQUIRE(L::param::offset(a, 0) == 13);
  STATIC_REQUIRE(L::param::offset(a, 3) == 16);
  // Observables: incidence 3 at 0, total at 3, by_age 3x4 at 4.
  STATIC_REQUIRE(L::observable::size == 16);
  STATIC_REQUIRE(L::observable::offset<incidence_t>(2) == 2);
  STATIC_REQUIRE(L::observable::offset<total_t>() == 3);
  STATIC_REQUIRE(L::observable::offset<by_age_t>(0, 0) == 4);
  STATIC_REQUIRE(L::observable::offset<by_age_t>(2, 3) == 15);
  STATIC_REQUIRE(Indexed::n_states == 27 && Indexed::n_params == 17 && Indexed::n_observables == 16);
  // Row-major strides, last index fastest.
  STATIC_REQUIRE(L::state::stride<decltype(Sx)>(0) == 4);
  STATIC_REQUIRE(L::state::stride<decltype(Sx)>(1) == 1);
  STATIC_REQUIRE(L::state::stride<decltype(Rx)>(0) == 1);
  STATIC_REQUIRE(L::param::stride<decltype(C)>(0) == 3);
  STATIC_REQUIRE(L::param::stride<decltype(C)>(1) == 1);
  STATIC_REQUIRE(std::is_same_v<L::policy, fx::symbol_major>);

  // Every element of every state has its own offset, and together they tile 0..26.
  bool seen[27] = {};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      seen[L::state::offset(Sx, i, j)] = true;
      seen[L::state::offset(Ix, i, j)] = true;
      CHECK(L::state::offset(Sx, i, j) == std::size_t(i * 4 + j));
      CHECK(L::state::offset(Ix, i, j) == std::size_t(12 + i * 4 + j));
    }
    seen[L::state::offset(Rx, i)] = true;
  }
  for (bool s : seen) CHECK(s);
}

TEST_CASE("indexed model: entries", "[layout]") {
  using L = Indexed::layout;
  constexpr auto st = L::state::entries();
  STATIC_REQUIRE(st.size() == 3);
  check_entry<2>(st[0], "Sx", "state", 0, 12, {3, 4}, {4, 1}, {"patch", "age"});
  check_entry<2>(st[1], "Ix", "state", 12, 12, {3, 4}, {4, 1}, {"patch", "age"});
  check_entry<1>(st[2], "Rx", "state", 24, 3, {3}, {1}, {"patch"});
  constexpr auto pa = L::param::entries();
  STATIC_REQUIRE(pa.size() == 4);
  check_entry<1>(pa[0], "b", "parameter", 0, 3, {3}, {1}, {"patch"});
  check_entry<2>(pa[1], "C", "parameter", 3, 9, {3, 3}, {3, 1}, {"patch", "patch"});
  check_entry<0>(pa[2], "sigma", "parameter", 12, 1, {}, {}, {});
  check_entry<1>(pa[3], "a", "parameter", 13, 4, {4}, {1}, {"age"});
  constexpr auto ob = L::observable::entries();
  STATIC_REQUIRE(ob.size() == 3);
  check_entry<1>(ob[0], "incidence", "observable", 0, 3, {3}, {1}, {"patch"});
  check_entry<0>(ob[1], "total", "observable", 3, 1, {}, {}, {});
  check_entry<2>(ob[2], "by_age", "observable", 4, 12, {3, 4}, {4, 1}, {"patch", "age"});
  // Entries are compile-time constants.
  STATIC_REQUIRE(L::param::entries()[3].offset == 13);
  STATIC_REQUIRE(L::state::entries()[1].extents[1] == 4);
  STATIC_REQUIRE(L::param::entries()[1].strides[0] == 3);
}

TEST_CASE("the rhs writes each element at its layout offset", "[layout]") {
  using L = Indexed::layout;
  double x[27], prm[17], dx[27], y[16];
  for (int n = 0; n < 27; ++n) x[n] = 1.0 + 0.1 * n;
  for (int n = 0; n < 17; ++n) prm[n] = 0.05 * (n + 1);
  Indexed{}.rhs(0.0, x, prm, dx);
  Indexed{}.observe(0.0, x, prm, y);
  const double sig = prm[12];
  for (int i = 0; i < 3; ++i) {
    double inc = 0;
    for (int j = 0; j < 4; ++j) {
      double force = 0;
      for (int r = 0; r < 3; ++r) force += prm[3 + 3 * i + r] * x[12 + 4 * r + j];
      const double newly = prm[i] * x[4 * i + j] * force;
      CHECK(dx[L::state::offset(Sx, i, j)] == -newly);
      CHECK(dx[L::state::offset(Ix, i, j)] == newly - sig * x[12 + 4 * i + j]);
      CHECK(y[L::observable::offset<by_age_t>(i, j)] == x[4 * i + j] + x[12 + 4 * i + j]);
      inc += sig * x[12 + 4 * i + j];
    }
    CHECK(y[L::observable::offset<incidence_t>(i)] == inc);
  }
  CHECK(y[L::observable::offset<total_t>()] == x[24] + x[25] + x[26]);
}
