// The four flat models of tests/support/flat_models.hpp evaluated by fluxion
// (compiled<model, double> and compiled<model, float>) against their
// hand-written references, at random points.
//
// Tolerances. Each output is compared relative to its value OR to the sum of
// the absolute values of its additive terms (the reference's *_scale), which
// bounds rounding error even where terms cancel:
//   double vs double reference   1e-13
//   float  vs float  reference   1e-5
//   float  vs double reference   2e-5   (same float-representable inputs)
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/layout/view.hpp>

#include "support/flat_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

constexpr double tol_double = 1e-13;
constexpr double tol_float = 1e-5;
constexpr double tol_float_vs_double = 2e-5;
constexpr int n_points = 200;

// |got - want| <= tol * max(|want|, scale)
template <class T>
void check_close(T got, T want, T scale, double tol) {
  INFO("got " << got << ", want " << want << ", term scale " << scale << ", tolerance " << tol);
  REQUIRE(std::isfinite(static_cast<double>(got)));
  REQUIRE_THAT(static_cast<double>(got), WithinRel(static_cast<double>(want), tol) ||
                                             WithinAbs(static_cast<double>(want), tol * static_cast<double>(scale)));
}

template <class A>
bool same_bytes(const A& a, const A& b) {
  return std::memcmp(a.data(), b.data(), sizeof(typename A::value_type) * a.size()) == 0;
}

// Evaluates one point with every host entry point and checks them against
// the reference: raw contiguous, raw strided, validated span overload.
template <class Case, class T>
void check_point(const flat::point<typename Case::reference, T>& pt, double tol) {
  using Ref = typename Case::reference;
  using M = fx::compiled<Case::model, T>;
  constexpr std::size_t ns = Ref::n_states, np = Ref::n_params, no = Ref::n_observables;

  const auto x0 = pt.x;
  const auto p0 = pt.p;
  auto x = pt.x;
  auto p = pt.p;

  std::array<T, ns> want_dx{}, scale_dx{};
  std::array<T, no> want_y{}, scale_y{};
  Ref::rhs(pt.t, x0.data(), p0.data(), want_dx.data());
  Ref::rhs_scale(pt.t, x0.data(), p0.data(), scale_dx.data());
  Ref::observe(pt.t, x0.data(), p0.data(), want_y.data());
  Ref::observe_scale(pt.t, x0.data(), p0.data(), scale_y.data());

  // Raw pointers, contiguous.
  std::array<T, ns> dx{};
  M{}.rhs(pt.t, x.data(), p.data(), dx.data());
  REQUIRE(same_bytes(x, x0));
  REQUIRE(same_bytes(p, p0));
  for (std::size_t i = 0; i < ns; ++i) {
    INFO(Case::name << " d(" << Ref::state_names[i] << ")/dt at t = " << pt.t);
    check_close(dx[i], want_dx[i], scale_dx[i], tol);
  }

  std::array<T, no> y{};
  M{}.observe(pt.t, x.data(), p.data(), y.data());
  REQUIRE(same_bytes(x, x0));
  REQUIRE(same_bytes(p, p0));
  for (std::size_t i = 0; i < no; ++i) {
    INFO(Case::name << " observable " << Ref::observable_names[i] << " at t = " << pt.t);
    check_close(y[i], want_y[i], scale_y[i], tol);
  }

  // Raw pointers with element strides 3, 2 and 4: same bits as contiguous.
  std::array<T, 3 * ns> xs{};
  std::array<T, 2 * np> ps{};
  std::array<T, 4 * ns> dxs{};
  std::array<T, 4 * no> ys{};
  for (std::size_t i = 0; i < ns; ++i) xs[3 * i] = x0[i];
  for (std::size_t i = 0; i < np; ++i) ps[2 * i] = p0[i];
  const auto xs0 = xs;
  const auto ps0 = ps;
  M{}.rhs(pt.t, xs.data(), 3, ps.data(), 2, dxs.data(), 4);
  M{}.observe(pt.t, xs.data(), 3, ps.data(), 2, ys.data(), 4);
  REQUIRE(same_bytes(xs, xs0));
  REQUIRE(same_bytes(ps, ps0));
  for (std::size_t i = 0; i < ns; ++i) REQUIRE(std::memcmp(&dxs[4 * i], &dx[i], sizeof(T)) == 0);
  for (std::size_t i = 0; i < no; ++i) REQUIRE(std::memcmp(&ys[4 * i], &y[i], sizeof(T)) == 0);

  // Validated one-instance overload: same bits again.
  std::array<T, ns> dx_host{};
  std::array<T, no> y_host{};
  fx::host::rhs(M{}, pt.t, std::span<const T>(x), std::span<const T>(p), std::span<T>(dx_host));
  fx::host::observe(M{}, pt.t, std::span<const T>(x), std::span<const T>(p), std::span<T>(y_host));
  REQUIRE(same_bytes(x, x0));
  REQUIRE(same_bytes(p, p0));
  REQUIRE(same_bytes(dx_host, dx));
  REQUIRE(same_bytes(y_host, y));
}

}  // namespace

TEMPLATE_TEST_CASE("flat model sizes and canonical layout order", "[host][flat][layout]", flat::sir_case,
                   flat::lorenz_case, flat::robertson_case, flat::pk_case) {
  using Ref = typename TestType::reference;
  using M = fx::compiled<TestType::model, double>;
  using Mf = fx::compiled<TestType::model, float>;
  STATIC_REQUIRE(M::n_states == Ref::n_states);
  STATIC_REQUIRE(M::n_params == Ref::n_params);
  STATIC_REQUIRE(M::n_observables == Ref::n_observables);
  STATIC_REQUIRE(M::layout::observable::size == Ref::n_observables);
  STATIC_REQUIRE(Mf::n_states == Ref::n_states);
  STATIC_REQUIRE(std::is_empty_v<M>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<M>);
  STATIC_REQUIRE(std::is_empty_v<Mf>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Mf>);
  STATIC_REQUIRE(std::is_same_v<typename M::scalar, double>);
  STATIC_REQUIRE(std::is_same_v<typename Mf::scalar, float>);

  // Declaration order, one slot per scalar symbol, names as declared.
  const auto states = M::layout::state::entries();
  const auto params = M::layout::param::entries();
  const auto observables = M::layout::observable::entries();
  REQUIRE(states.size() == Ref::n_states);
  REQUIRE(params.size() == Ref::n_params);
  REQUIRE(observables.size() == Ref::n_observables);
  for (std::size_t i = 0; i < states.size(); ++i) {
    CHECK(states[i].name == Ref::state_names[i]);
    CHECK(states[i].offset == i);
    CHECK(states[i].size == 1);
    CHECK(states[i].rank == 0);
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    CHECK(params[i].name == Ref::param_names[i]);
    CHECK(params[i].offset == i);
  }
  for (std::size_t i = 0; i < observables.size(); ++i) {
    CHECK(observables[i].name == Ref::observable_names[i]);
    CHECK(observables[i].offset == i);
  }
}

TEST_CASE("offsets of named symbols are compile-time constants in declaration order", "[host][flat][layout]") {
  using Sir = fx::compiled<flat::sir::model, double>;
  STATIC_REQUIRE(Sir::layout::state::offset(flat::sir::S) == 0);
  STATIC_REQUIRE(Sir::layout::state::offset(flat::sir::I) == 1);
  STATIC_REQUIRE(Sir::layout::state::offset(flat::sir::R) == 2);
  STATIC_REQUIRE(Sir::layout::param::offset<decltype(flat::sir::beta0)>() == 0);
  STATIC_REQUIRE(Sir::layout::param::offset<decltype(flat::sir::amp)>() == 1);
  STATIC_REQUIRE(Sir::layout::param::offset<decltype(flat::sir::gam)>() == 2);

  using Pk = fx::compiled<flat::pk::model, float>;
  STATIC_REQUIRE(Pk::layout::state::offset(flat::pk::A2) == 1);
  STATIC_REQUIRE(Pk::layout::param::offset(flat::pk::V1) == 4);
  STATIC_REQUIRE(Pk::layout::param::offset(flat::pk::t_inf) == 6);
}

TEMPLATE_TEST_CASE("double rhs and observe match the hand-written reference", "[host][flat][double]", flat::sir_case,
                   flat::lorenz_case, flat::robertson_case, flat::pk_case) {
  using Ref = typename TestType::reference;
  std::mt19937_64 rng(20240611);
  for (int k = 0; k < n_points; ++k) {
    const auto pt = flat::random_point<Ref, double>(rng);
    INFO("point " << k);
    check_point<TestType, double>(pt, tol_double);
  }
}

TEMPLATE_TEST_CASE("float rhs and observe match the float reference and the double result", "[host][flat][float]",
                   flat::sir_case, flat::lorenz_case, flat::robertson_case, flat::pk_case) {
  using Ref = typename TestType::reference;
  using Mf = fx::compiled<TestType::model, float>;
  using Md = fx::compiled<TestType::model, double>;
  constexpr std::size_t ns = Ref::n_states, np = Ref::n_params, no = Ref::n_observables;
  std::mt19937_64 rng(977);
  for (int k = 0; k < n_points; ++k) {
    const auto pt = flat::random_point<Ref, float>(rng);
    INFO("point " << k);
    check_point<TestType, float>(pt, tol_float);

    // The same point in double (exactly representable).
    std::array<double, ns> xd{};
    std::array<double, np> pd{};
    for (std::size_t i = 0; i < ns; ++i) xd[i] = pt.x[i];
    for (std::size_t i = 0; i < np; ++i) pd[i] = pt.p[i];
    const double td = pt.t;

    std::array<float, ns> dxf{};
    std::array<double, ns> dxd{}, sd{};
    Mf{}.rhs(pt.t, pt.x.data(), pt.p.data(), dxf.data());
    Md{}.rhs(td, xd.data(), pd.data(), dxd.data());
    Ref::rhs_scale(td, xd.data(), pd.data(), sd.data());
    for (std::size_t i = 0; i < ns; ++i) {
      INFO(TestType::name << " float vs double d(" << Ref::state_names[i] << ")/dt");
      check_close<double>(dxf[i], dxd[i], sd[i], tol_float_vs_double);
    }
    std::array<float, no> yf{};
    std::array<double, no> yd{}, syd{};
    Mf{}.observe(pt.t, pt.x.data(), pt.p.data(), yf.data());
    Md{}.observe(td, xd.data(), pd.data(), yd.data());
    Ref::observe_scale(td, xd.data(), pd.data(), syd.data());
    for (std::size_t i = 0; i < no; ++i) {
      INFO(TestType::name << " float vs double observable " << Ref::observable_names[i]);
      check_close<double>(yf[i], yd[i], syd[i], tol_float_vs_double);
    }
  }
}

TEST_CASE("time is the native scalar of the evaluator", "[host][flat][time]") {
  using Sd = fx::compiled<flat::sir::model, double>;
  using Sf = fx::compiled<flat::sir::model, float>;
  // The exact signatures exist: t is float in the float evaluator, double in the double one.
  void (Sf::*rhs_f)(float, const float*, const float*, float*) const = &Sf::rhs;
  void (Sf::*obs_f)(float, const float*, const float*, float*) const = &Sf::observe;
  void (Sd::*rhs_d)(double, const double*, const double*, double*) const = &Sd::rhs;
  (void)rhs_f;
  (void)obs_f;
  (void)rhs_d;

  SECTION("seasonal forcing follows cos(2 pi t / 365) in double") {
    const std::array<double, 3> x{990.0, 10.0, 0.0};
    const std::array<double, 3> p{0.4, 0.25, 0.1};
    std::array<double, 2> y0{}, yq{}, yh{}, yy{};
    Sd{}.observe(0.0, x.data(), p.data(), y0.data());
    Sd{}.observe(91.25, x.data(), p.data(), yq.data());
    Sd{}.observe(182.5, x.data(), p.data(), yh.data());
    Sd{}.observe(365.0, x.data(), p.data(), yy.data());
    const double base = 0.4 * 990.0 * 10.0 / 1000.0;
    CHECK_THAT(y0[0], WithinRel(base * 1.25, 1e-14));
    CHECK_THAT(yq[0], WithinRel(base, 1e-12));  // cos(pi/2) ~ 0 up to rounding of 2 pi
    CHECK_THAT(yh[0], WithinRel(base * 0.75, 1e-14));
    CHECK_THAT(yy[0], WithinRel(y0[0], 1e-14));
  }

  SECTION("a float t is used as a float") {
    // 100.1f is not 100.1: the float evaluator must see the float value.
    const float tf = 100.1f;
    const std::array<float, 3> x{990.0f, 10.0f, 0.0f};
    const std::array<float, 3> p{0.4f, 0.25f, 0.1f};
    std::array<float, 3> dx{}, want{};
    Sf{}.rhs(tf, x.data(), p.data(), dx.data());
    flat::sir::reference::rhs(tf, x.data(), p.data(), want.data());
    for (std::size_t i = 0; i < 3; ++i) CHECK_THAT(dx[i], WithinRel(want[i], 1e-5f));
  }

  SECTION("the infusion switches off exactly at t_inf (fx::where with t < t_inf)") {
    // k12 k21 Vmax Km V1 rate t_inf
    const std::array<double, 7> p{0.3, 0.1, 20.0, 4.0, 10.0, 50.0, 2.0};
    const std::array<double, 2> x{100.0, 40.0};
    std::array<double, 2> before{}, at{}, after{};
    using Pd = fx::compiled<flat::pk::model, double>;
    Pd{}.rhs(std::nextafter(2.0, 0.0), x.data(), p.data(), before.data());
    Pd{}.rhs(2.0, x.data(), p.data(), at.data());
    Pd{}.rhs(3.0, x.data(), p.data(), after.data());
    CHECK_THAT(before[0] - at[0], WithinRel(50.0, 1e-13));
    CHECK(at[0] == after[0]);
    CHECK(before[1] == at[1]);

    using Pf = fx::compiled<flat::pk::model, float>;
    const std::array<float, 7> pf{0.3f, 0.1f, 20.0f, 4.0f, 10.0f, 50.0f, 2.0f};
    const std::array<float, 2> xf{100.0f, 40.0f};
    std::array<float, 2> bf{}, af{};
    Pf{}.rhs(std::nextafter(2.0f, 0.0f), xf.data(), pf.data(), bf.data());  // the largest float below 2
    Pf{}.rhs(2.0f, xf.data(), pf.data(), af.data());
    CHECK_THAT(bf[0] - af[0], WithinRel(50.0f, 1e-5f));
  }
}

TEST_CASE("balance identities hold for the flat models", "[host][flat][conservation]") {
  std::mt19937_64 rng(5);
  for (int k = 0; k < 100; ++k) {
    {  // SIR: closed population, dS + dI + dR = 0; observable population = S + I + R.
      using M = fx::compiled<flat::sir::model, double>;
      const auto pt = flat::random_point<flat::sir::reference, double>(rng);
      std::array<double, 3> dx{};
      std::array<double, 2> y{};
      M{}.rhs(pt.t, pt.x.data(), pt.p.data(), dx.data());
      M{}.observe(pt.t, pt.x.data(), pt.p.data(), y.data());
      CHECK_THAT(dx[0] + dx[1] + dx[2], WithinAbs(0.0, 1e-13 * (std::abs(dx[0]) + std::abs(dx[1]) + std::abs(dx[2]))));
      CHECK_THAT(y[1], WithinRel(pt.x[0] + pt.x[1] + pt.x[2], 1e-15));
      CHECK_THAT(y[0], WithinRel(-dx[0], 1e-15));  // incidence is the flow out of S
    }
    {  // Robertson: mass conserved.
      using M = fx::compiled<flat::robertson::model, double>;
      const auto pt = flat::random_point<flat::robertson::reference, double>(rng);
      std::array<double, 3> dy{}, s{};
      M{}.rhs(pt.t, pt.x.data(), pt.p.data(), dy.data());
      flat::robertson::reference::rhs_scale(pt.t, pt.x.data(), pt.p.data(), s.data());
      CHECK_THAT(dy[0] + dy[1] + dy[2], WithinAbs(0.0, 1e-14 * s[1]));
    }
    {  // PK: d(A1 + A2)/dt = input - elimination.
      using M = fx::compiled<flat::pk::model, double>;
      const auto pt = flat::random_point<flat::pk::reference, double>(rng);
      std::array<double, 2> dx{}, y{}, s{};
      M{}.rhs(pt.t, pt.x.data(), pt.p.data(), dx.data());
      M{}.observe(pt.t, pt.x.data(), pt.p.data(), y.data());
      flat::pk::reference::rhs_scale(pt.t, pt.x.data(), pt.p.data(), s.data());
      const double input = pt.t < pt.p[6] ? pt.p[5] : 0.0;
      CHECK_THAT(dx[0] + dx[1], WithinAbs(input - y[1], 1e-13 * s[0]));
    }
  }
}

TEST_CASE("per-symbol views address the flat layout of a batch", "[host][flat][layout][view]") {
  using M = fx::compiled<flat::pk::model, double>;
  constexpr std::size_t B = 5;
  // SoA state: element j of instance b at j * B + b.
  std::vector<double> x(M::n_states * B);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = double(k) + 0.5;
  for (std::size_t b = 0; b < B; ++b) {
    const auto a1 = fx::view<M::layout::state>(flat::pk::A1, x.data() + b, B);
    const auto a2 = fx::view<M::layout::state>(flat::pk::A2, x.data() + b, B);
    CHECK(a1() == x[0 * B + b]);
    CHECK(a2() == x[1 * B + b]);
  }
  // AoS parameters: one instance contiguous.
  std::vector<double> p(M::n_params);
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = 10.0 * double(k);
  CHECK(fx::view<M::layout::param>(flat::pk::V1, p.data())() == 40.0);
  CHECK(fx::view<M::layout::param>(flat::pk::t_inf, p.data())() == 60.0);
  // Writable views write through.
  fx::view<M::layout::param>(flat::pk::rate, p.data())() = -1.0;
  CHECK(p[5] == -1.0);
}

TEST_CASE("layout table and JSON list every flat symbol in canonical order", "[host][flat][layout][describe]") {
  using M = fx::compiled<flat::sir::model, float>;
  const std::string table = fx::layout_table<M::layout>();
  const std::string json = fx::layout_json<M::layout>();
  std::size_t at_table = 0, at_json = 0;
  for (const char* name : {"S", "I", "R", "beta0", "amp", "gamma", "incidence", "population"}) {
    INFO(name);
    const auto in_table = table.find(std::string(" ") + name + " ", at_table);
    const auto in_json = json.find(std::string("\"name\": \"") + name + "\"", at_json);
    REQUIRE(in_table != std::string::npos);
    REQUIRE(in_json != std::string::npos);
    at_table = in_table + 1;
    at_json = in_json + 1;
  }
  // Aliases are scratch, not part of the user-visible layout.
  CHECK(table.find("beta_t") == std::string::npos);
  CHECK(json.find("\"infection\"") == std::string::npos);
}
