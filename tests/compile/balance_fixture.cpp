// The hierarchical balance fixture (tests/support/hierarchy_fixture.hpp)
// against its hand-written reference: both models (independent and coupled
// habitats), float and double, symbol-major and group-major<habitat> layouts,
// one instance and AoS / SoA batches through fx::host; layout offsets and
// group blocks against numbers computed by hand; mass conservation of the
// stage transport and migration, and the balance of sources and sinks.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/hierarchy_fixture.hpp"

namespace fx = fluxion;
using hier::H;
using hier::S;
namespace flat = hier::flat;

namespace {

template <class T>
constexpr double tol() {
  return sizeof(T) == 8 ? 1e-13 : 1e-5;
}

// |got - want| <= tol * (|want| + scale): relative, with an absolute floor at
// the size of the typical term of that output.
template <class T>
bool close(T got, T want, double scale) {
  const double d = std::abs(double(got) - double(want));
  return d <= tol<T>() * (std::abs(double(want)) + scale);
}

// Canonical state index -> offset in the layout of M.
template <class M>
std::array<std::size_t, flat::n_states> state_map() {
  using L = typename M::layout::state;
  std::array<std::size_t, flat::n_states> o{};
  for (int a = 0; a < H; ++a) {
    for (int b = 0; b < S; ++b) o[flat::X + std::size_t(a * S + b)] = L::offset(hier::X, a, b);
    o[flat::F + std::size_t(a)] = L::offset(hier::F, a);
  }
  return o;
}

template <auto Model, class Policy, class T>
void check_against_reference(bool with_migration) {
  using M = fx::compiled<Model, T, Policy>;
  const hier::reference<T> ref{with_migration};
  REQUIRE(M::n_states == flat::n_states);
  REQUIRE(M::n_params == ref.n_params());
  REQUIRE(M::n_observables == flat::n_observables);
  const auto map = state_map<M>();
  {  // the map is a permutation
    auto sorted = map;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
  }
  const std::size_t np = ref.n_params();
  std::mt19937_64 rng(20240611u + (with_migration ? 1u : 0u));
  constexpr std::size_t B = 9;  // batch instances
  std::vector<std::array<T, flat::n_states>> xs_can(B), dx_want(B);
  std::vector<std::array<T, flat::n_observables>> y_want(B);
  std::vector<std::array<T, flat::n_params_connected>> ps(B);
  const T t = T(0.75);
  for (std::size_t b = 0; b < B; ++b) {
    const auto pt = hier::random_point<T>(rng, with_migration);
    xs_can[b] = pt.x;
    ps[b] = pt.p;
    ref.rhs(t, pt.x.data(), pt.p.data(), dx_want[b].data());
    ref.observe(t, pt.x.data(), pt.p.data(), y_want[b].data());
  }
  // Per-output scale: the size of the state derivative's typical term.
  const double scale = 1.0;

  // One instance through the raw contiguous entry point.
  for (std::size_t b = 0; b < B; ++b) {
    std::array<T, flat::n_states> x{}, dx{};
    std::array<T, flat::n_observables> y{};
    for (std::size_t i = 0; i < flat::n_states; ++i) x[map[i]] = xs_can[b][i];
    M{}.rhs(t, x.data(), ps[b].data(), dx.data());
    M{}.observe(t, x.data(), ps[b].data(), y.data());
    for (std::size_t i = 0; i < flat::n_states; ++i) {
      INFO("instance " << b << ", canonical state " << i << ", layout offset " << map[i]);
      CHECK(close(dx[map[i]], dx_want[b][i], scale));
    }
    for (std::size_t i = 0; i < flat::n_observables; ++i) {
      INFO("instance " << b << ", observable " << i);
      CHECK(close(y[i], y_want[b][i], scale));
    }
  }

  // AoS and SoA batches through the host driver.
  for (bool soa : {false, true}) {
    INFO((soa ? "SoA" : "AoS") << " batch");
    const std::size_t ns = flat::n_states, no = flat::n_observables;
    auto at = [&](std::size_t b, std::size_t j, std::size_t n) { return soa ? j * B + b : b * n + j; };
    std::vector<T> x(ns * B), p(np * B), dx(ns * B, T(-999)), y(no * B, T(-999));
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t i = 0; i < ns; ++i) x[at(b, map[i], ns)] = xs_can[b][i];
      for (std::size_t j = 0; j < np; ++j) p[at(b, j, np)] = ps[b][j];
    }
    const std::vector<T> x0 = x, p0 = p;
    if (soa) {
      fx::host::rhs(M{}, t, B, fx::soa(std::as_const(x)), fx::soa(std::as_const(p)), fx::soa(dx));
      fx::host::observe(M{}, t, B, fx::soa(std::as_const(x)), fx::soa(std::as_const(p)), fx::soa(y));
    } else {
      fx::host::rhs(M{}, t, B, fx::aos(std::as_const(x)), fx::aos(std::as_const(p)), fx::aos(dx));
      fx::host::observe(M{}, t, B, fx::aos(std::as_const(x)), fx::aos(std::as_const(p)), fx::aos(y));
    }
    CHECK(x == x0);
    CHECK(p == p0);
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t i = 0; i < ns; ++i) {
        INFO("instance " << b << ", canonical state " << i);
        CHECK(close(dx[at(b, map[i], ns)], dx_want[b][i], scale));
      }
      for (std::size_t i = 0; i < no; ++i) {
        INFO("instance " << b << ", observable " << i);
        CHECK(close(y[at(b, i, no)], y_want[b][i], scale));
      }
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("independent habitats agree with the hand-written reference", "[hierarchy][fixture]", float,
                   double) {
  SECTION("symbol-major") { check_against_reference<hier::local, fx::symbol_major, TestType>(false); }
  SECTION("group-major over habitat") {
    check_against_reference<hier::local, fx::group_major<hier::habitat>, TestType>(false);
  }
}

TEMPLATE_TEST_CASE("coupled habitats (migration) agree with the hand-written reference", "[hierarchy][fixture]",
                   float, double) {
  SECTION("symbol-major") { check_against_reference<hier::connected, fx::symbol_major, TestType>(true); }
  SECTION("group-major over habitat") {
    check_against_reference<hier::connected, fx::group_major<hier::habitat>, TestType>(true);
  }
}

TEST_CASE("fixture layout offsets equal the hand-computed ones", "[hierarchy][layout]") {
  using SM = fx::compiled<hier::local, double>;
  using GM = fx::compiled<hier::local, double, fx::group_major<hier::habitat>>;
  using CM = fx::compiled<hier::connected, double>;
  // Symbol-major: X[5][4] at 0, F[5] at 20.
  STATIC_REQUIRE(SM::layout::state::size == 25);
  STATIC_REQUIRE(SM::layout::state::offset(hier::X, 0, 0) == 0);
  STATIC_REQUIRE(SM::layout::state::offset(hier::X, 2, 3) == 11);
  STATIC_REQUIRE(SM::layout::state::offset(hier::X, 4, 3) == 19);
  STATIC_REQUIRE(SM::layout::state::offset(hier::F, 0) == 20);
  STATIC_REQUIRE(SM::layout::state::offset(hier::F, 4) == 24);
  // Group-major over habitat: habitat h holds X(h, 0..3), F(h) at 5 h .. 5 h + 4.
  STATIC_REQUIRE(GM::layout::state::size == 25);
  STATIC_REQUIRE(GM::layout::state::per_element == 5);
  STATIC_REQUIRE(GM::layout::state::offset(hier::X, 2, 3) == 13);
  STATIC_REQUIRE(GM::layout::state::offset(hier::F, 2) == 14);
  STATIC_REQUIRE(GM::layout::state::offset(hier::F, 4) == 24);
  STATIC_REQUIRE(GM::layout::state::base<decltype(hier::F)>() == 4);
  STATIC_REQUIRE(GM::layout::state::stride<decltype(hier::X)>(0) == 5);
  STATIC_REQUIRE(GM::layout::state::stride<decltype(hier::X)>(1) == 1);
  for (int a = 0; a < H; ++a) {
    for (int b = 0; b < S; ++b) {
      CHECK(SM::layout::state::offset(hier::X, a, b) == std::size_t(4 * a + b));
      CHECK(GM::layout::state::offset(hier::X, a, b) == std::size_t(5 * a + b));
    }
    CHECK(SM::layout::state::offset(hier::F, a) == std::size_t(20 + a));
    CHECK(GM::layout::state::offset(hier::F, a) == std::size_t(5 * a + 4));
  }
  // Parameters: m[4], mu[5], K[5], fec[4], c[4], r, g (, D[5][5]).
  STATIC_REQUIRE(SM::layout::param::size == 24);
  STATIC_REQUIRE(CM::layout::param::size == 49);
  STATIC_REQUIRE(SM::layout::param::offset(hier::m, 3) == flat::m + 3);
  STATIC_REQUIRE(SM::layout::param::offset(hier::mu, 1) == flat::mu + 1);
  STATIC_REQUIRE(SM::layout::param::offset(hier::Kc, 4) == flat::K + 4);
  STATIC_REQUIRE(SM::layout::param::offset(hier::fec, 0) == flat::fec);
  STATIC_REQUIRE(SM::layout::param::offset(hier::c, 2) == flat::c + 2);
  STATIC_REQUIRE(SM::layout::param::offset(hier::r) == 22);
  STATIC_REQUIRE(SM::layout::param::offset(hier::g) == 23);
  STATIC_REQUIRE(CM::layout::param::offset(hier::D, 0, 0) == 24);
  STATIC_REQUIRE(CM::layout::param::offset(hier::D, 3, 1) == 24 + 3 * 5 + 1);
  STATIC_REQUIRE(GM::layout::param::offset(hier::g) == 23);  // parameters stay symbol-major
  // Observables: adults[5], peak[5], grand, scarcest.
  STATIC_REQUIRE(SM::layout::observable::size == 12);
  // Aliases are evaluated once per call into one scratch slot per element:
  // total[5], crowd[5], vigor[5].
  STATIC_REQUIRE(SM::layout::intermediate::size == 15);
  // Entries name the blocks in declaration order.
  constexpr auto en = SM::layout::state::entries();
  CHECK(en[0].name == "X");
  CHECK(en[0].offset == 0);
  CHECK(en[1].name == "F");
  CHECK(en[1].offset == 20);
  constexpr auto gen = GM::layout::state::entries();
  CHECK(gen[1].offset == 4);
  CHECK(gen[1].strides[0] == 5);
}

TEST_CASE("group blocks of the independent habitats equal hand-computed lists", "[hierarchy][layout]") {
  using SB = fx::compiled<hier::local, double>::layout::group_block<hier::habitat>;
  using GB = fx::compiled<hier::local, double, fx::group_major<hier::habitat>>::layout::group_block<hier::habitat>;
  STATIC_REQUIRE(SB::size == 5);
  STATIC_REQUIRE(GB::size == 5);
  STATIC_REQUIRE(!SB::contiguous);
  STATIC_REQUIRE(GB::contiguous);
  for (int e = 0; e < H; ++e) {
    INFO("habitat " << e);
    const std::array<std::size_t, 5> sm = {std::size_t(4 * e), std::size_t(4 * e + 1), std::size_t(4 * e + 2),
                                           std::size_t(4 * e + 3), std::size_t(20 + e)};
    const std::array<std::size_t, 5> gm = {std::size_t(5 * e), std::size_t(5 * e + 1), std::size_t(5 * e + 2),
                                           std::size_t(5 * e + 3), std::size_t(5 * e + 4)};
    CHECK(SB::offsets(e) == sm);
    CHECK(GB::offsets(e) == gm);
  }
}

TEST_CASE("an independent habitat's derivative depends only on its own block", "[hierarchy][fixture]") {
  // Perturbing every state outside habitat e leaves habitat e's derivatives
  // unchanged (bitwise): independence, observed on values.
  using M = fx::compiled<hier::local, double, fx::group_major<hier::habitat>>;
  using GB = M::layout::group_block<hier::habitat>;
  std::mt19937_64 rng(7);
  const auto pt = hier::random_point<double>(rng, false);
  const auto map = state_map<M>();
  std::array<double, 25> x{}, dx{}, x2{}, dx2{};
  for (std::size_t i = 0; i < 25; ++i) x[map[i]] = pt.x[i];
  M{}.rhs(0.0, x.data(), pt.p.data(), dx.data());
  for (int e = 0; e < H; ++e) {
    INFO("habitat " << e);
    x2 = x;
    const auto own = GB::offsets(e);
    for (std::size_t i = 0; i < 25; ++i)
      if (std::find(own.begin(), own.end(), i) == own.end()) x2[i] *= 1.7;
    M{}.rhs(0.0, x2.data(), pt.p.data(), dx2.data());
    for (auto o : own) CHECK(dx2[o] == dx[o]);
  }
}

TEMPLATE_TEST_CASE("stage transport and migration conserve mass", "[hierarchy][conservation]", float, double) {
  using T = TestType;
  const double eps = sizeof(T) == 8 ? 1e-12 : 1e-5;
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 10; ++trial) {
    for (bool mig : {false, true}) {
      INFO("trial " << trial << (mig ? ", with migration" : ", without migration"));
      auto pt = hier::random_point<T>(rng, mig);
      // No sources and sinks: mortality, fecundity and predation off.
      for (int i = 0; i < H; ++i) pt.p[flat::mu + std::size_t(i)] = 0;
      for (int i = 0; i < S; ++i) pt.p[flat::fec + std::size_t(i)] = 0;
      for (int i = 0; i < S; ++i) pt.p[flat::c + std::size_t(i)] = 0;
      std::array<T, 25> dx{};
      if (mig)
        fx::compiled<hier::connected, T>{}.rhs(T(0), pt.x.data(), pt.p.data(), dx.data());
      else
        fx::compiled<hier::local, T>{}.rhs(T(0), pt.x.data(), pt.p.data(), dx.data());
      // Sum of |terms| moving mass: transport m(s) X(h,s) twice, migration twice.
      double sum = 0, terms = 0;
      for (int a = 0; a < H; ++a)
        for (int b = 0; b < S; ++b) {
          const double xv = double(pt.x[std::size_t(a * S + b)]);
          sum += double(dx[std::size_t(a * S + b)]);
          if (b < S - 1) terms += 2 * double(pt.p[flat::m + std::size_t(b)]) * xv;
          if (mig)
            for (int o = 0; o < H; ++o) terms += 2 * double(pt.p[flat::D + std::size_t(o * H + a)]) * xv;
        }
      CHECK(terms > 0);
      CHECK(std::abs(sum) <= eps * terms);
      // Per habitat without migration: the stages of one habitat balance.
      if (!mig)
        for (int a = 0; a < H; ++a) {
          double hs = 0;
          for (int b = 0; b < S; ++b) hs += double(dx[std::size_t(a * S + b)]);
          CHECK(std::abs(hs) <= eps * terms);
        }
    }
  }
}

TEMPLATE_TEST_CASE("with sources and sinks on, the total change is sources minus sinks", "[hierarchy][conservation]",
                   float, double) {
  using T = TestType;
  const double eps = sizeof(T) == 8 ? 1e-12 : 1e-5;
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    for (bool mig : {false, true}) {
      INFO("trial " << trial << (mig ? ", with migration" : ", without migration"));
      const auto pt = hier::random_point<T>(rng, mig);
      std::array<T, 25> dx{};
      if (mig)
        fx::compiled<hier::connected, T, fx::group_major<hier::habitat>>{}.rhs(
            T(0), [&] {
              // group-major input
              using L = fx::compiled<hier::connected, T, fx::group_major<hier::habitat>>::layout::state;
              std::array<T, 25> g{};
              for (int a = 0; a < H; ++a) {
                for (int b = 0; b < S; ++b) g[L::offset(hier::X, a, b)] = pt.x[std::size_t(a * S + b)];
                g[L::offset(hier::F, a)] = pt.x[std::size_t(20 + a)];
              }
              return g;
            }().data(),
            pt.p.data(), dx.data());
      else
        fx::compiled<hier::local, T>{}.rhs(T(0), pt.x.data(), pt.p.data(), dx.data());
      // Hand-computed sources (births) and sinks (deaths, predation).
      double births = 0, deaths = 0, eaten = 0, terms = 0;
      for (int a = 0; a < H; ++a) {
        double tot = 0;
        for (int b = 0; b < S; ++b) tot += double(pt.x[std::size_t(a * S + b)]);
        const double Fh = double(pt.x[std::size_t(20 + a)]);
        const double adults = double(pt.x[std::size_t(a * S + 3)]);
        for (int b = 0; b < S; ++b) {
          const double xv = double(pt.x[std::size_t(a * S + b)]);
          births += double(pt.p[flat::fec + std::size_t(b)]) * adults * Fh / (1 + Fh);
          deaths += double(pt.p[flat::mu + std::size_t(a)]) * (1 + tot / double(pt.p[flat::K + std::size_t(a)])) * xv;
          if (b > 0) eaten += double(pt.p[flat::c + std::size_t(b)]) * double(pt.x[std::size_t(a * S + b - 1)]) * xv / (1 + tot);
          if (b < S - 1) terms += 2 * double(pt.p[flat::m + std::size_t(b)]) * xv;
          if (mig)
            for (int o = 0; o < H; ++o) terms += 2 * double(pt.p[flat::D + std::size_t(o * H + a)]) * xv;
        }
      }
      terms += births + deaths + eaten;
      double sum = 0;
      // dx is in group-major order for the migration case: sum the X entries.
      if (mig) {
        using L = fx::compiled<hier::connected, T, fx::group_major<hier::habitat>>::layout::state;
        for (int a = 0; a < H; ++a)
          for (int b = 0; b < S; ++b) sum += double(dx[L::offset(hier::X, a, b)]);
      } else {
        for (int i = 0; i < H * S; ++i) sum += double(dx[std::size_t(i)]);
      }
      CHECK(std::abs(sum - (births - deaths - eaten)) <= eps * terms);
    }
  }
}
