// Aliases: named intermediate expressions, evaluated once per call into
// scratch space and read by every equation and observable that uses them;
// aliases that read aliases are evaluated in dependency order; shaped aliases
// are indexed by the free variables of their body in order of first
// appearance. Values are checked against the formulas written by hand.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace fx = fluxion;

namespace {

template <class... S>
std::vector<std::string> names(fx::detail::type_list<S...>) {
  return {std::string(fluxion::text<S::name>)...};
}

template <class T>
Catch::Approx approx(double v) {
  if constexpr (std::is_same_v<T, float>) return Catch::Approx(v).epsilon(1e-5).margin(1e-6);
  else return Catch::Approx(v).epsilon(1e-13);
}

// Aliases that A's body reads (directly).
template <class A>
using reads = typename fx::detail::aliases_read<typename fx::symbol_expansion<A>::body>::type;

// Dependency order: every alias comes after each alias its body reads.
template <class List>
struct dependency_ordered;
template <class... A>
struct dependency_ordered<fx::detail::type_list<A...>> {
  template <class Dep, std::size_t Pos>
  static constexpr bool before() {
    return fx::detail::index_of_v<fx::detail::type_list<A...>, Dep> < Pos;
  }
  template <class X, std::size_t Pos, class... D>
  static constexpr bool deps_before(fx::detail::type_list<D...>) {
    return (before<D, Pos>() && ...);
  }
  template <std::size_t... Pos>
  static constexpr bool check(std::index_sequence<Pos...>) {
    return (deps_before<A, Pos>(reads<A>{}) && ...);
  }
  static constexpr bool value = check(std::index_sequence_for<A...>{});
};

// --- a flat model: one alias read by two equations and an observable ------------
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gamma_;
constexpr auto N = fx::alias<"N">(S + I + R);
constexpr auto force = fx::alias<"force">(beta * I / N);
constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta, gamma_),  //
                               fx::d(S) = -force * S,                          //
                               fx::d(I) = force * S - gamma_ * I,              //
                               fx::d(R) = gamma_ * I,                          //
                               fx::observe<"incidence">() = force * S,         //
                               fx::observe<"total">() = N);

// --- a chain and a diamond of aliases -------------------------------------------------
constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr auto A = fx::alias<"A">(x + y);
constexpr auto B = fx::alias<"B">(2 * A);
constexpr auto C = fx::alias<"C">(B * A + k);
constexpr auto D = fx::alias<"D">(A * A);
constexpr auto E = fx::alias<"E">(D + B);
// The equations read C (which needs B, which needs A) before A itself.
constexpr auto chain = fx::model(fx::states(x, y), fx::params(k),  //
                                 fx::d(x) = C,                     //
                                 fx::d(y) = E - A,                 //
                                 fx::observe<"c_plus_d">() = C + D);

// --- indexed aliases -------------------------------------------------------------------
using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"Sx", patch, age> Sx;
constexpr fx::state<"Ix", patch, age> Ix;
constexpr fx::state<"Rx", patch> Rx;
constexpr fx::param<"b", patch> b;
constexpr fx::param<"Cm", patch, patch> Cm;
constexpr fx::param<"g"> g;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> kk;
// Population of patch p, shaped [patch].
constexpr auto Np = fx::alias<"Np">(fx::sum(kk, Sx(p, kk) + Ix(p, kk)) + Rx(p));
// Force of infection in p, read from every patch q through Np(q): shaped [patch].
constexpr auto lam = fx::alias<"lambda">(b(p) * fx::sum(q, Cm(p, q) * fx::sum(kk, Ix(q, kk)) / Np(q)));
// Shaped [patch, patch] in order of first appearance (p, then q).
constexpr auto flow = fx::alias<"flow">(Cm(p, q) * fx::sum(kk, Ix(q, kk)));
constexpr auto seir = fx::model(                                                     //
    fx::states(Sx, Ix, Rx), fx::params(b, Cm, g),                                    //
    fx::d(Sx(p, kk)) = -lam(p) * Sx(p, kk),                                          //
    fx::d(Ix(p, kk)) = lam(p) * Sx(p, kk) - g * Ix(p, kk),                           //
    fx::d(Rx(p)) = g * fx::sum(kk, Ix(p, kk)) + fx::sum(q, flow(q, p) - flow(p, q)),  //
    fx::observe<"incidence">(p) = fx::sum(kk, lam(p) * Sx(p, kk)),                   //
    fx::observe<"population">() = fx::sum(p, Np(p)));

}  // namespace

TEST_CASE("aliases are listed once and stored once", "[model][alias]") {
  using M = fx::compiled<sir, double>;
  using Al = M::traits::aliases;
  // force reads N, so N comes first; each alias once although N is read by
  // force and an observable, and force by two equations and an observable.
  CHECK(names(Al{}) == std::vector<std::string>{"N", "force"});
  STATIC_REQUIRE(dependency_ordered<Al>::value);
  // One scratch slot per alias element.
  STATIC_REQUIRE(M::layout::intermediate::size == 2);
  // Equations read the stored alias rather than a copy of its body: the
  // right-hand side of dS is -(force * S) with force a reference to the alias.
  using EqS = fx::detail::at_t<M::traits::state_equations, 0>;
  STATIC_REQUIRE(std::is_same_v<typename EqS::rhs, fx::unary<fx::op::neg, fx::binary<fx::op::mul, fx::lowered<force>,
                                                                                      fx::lowered<S>>>>);
  STATIC_REQUIRE(fx::is_alias<typename fx::lowered<force>::symbol_type>);
  // Aliases are not part of the user-visible layout.
  STATIC_REQUIRE(M::n_states == 3);
  STATIC_REQUIRE(M::n_params == 2);
  STATIC_REQUIRE(M::n_observables == 2);
}

TEMPLATE_TEST_CASE("one alias feeds every equation and observable", "[model][alias]", double, float) {
  using T = TestType;
  using M = fx::compiled<sir, T>;
  const T xs[3] = {3, 1, 1};  // S, I, R
  const T ps[2] = {T(0.5), T(0.2)};
  T dx[3] = {-99, -99, -99};
  M{}.rhs(T(0), xs, ps, dx);
  // N = 5, force = 0.5 * 1 / 5 = 0.1
  CHECK(dx[0] == approx<T>(-0.3));
  CHECK(dx[1] == approx<T>(0.3 - 0.2));
  CHECK(dx[2] == approx<T>(0.2));
  T y[2] = {-99, -99};
  M{}.observe(T(0), xs, ps, y);
  CHECK(y[0] == approx<T>(0.3));
  CHECK(y[1] == approx<T>(5.0));
  // A second call with other values: nothing is kept from the first one.
  const T xs2[3] = {2, 2, 4};
  M{}.rhs(T(0), xs2, ps, dx);
  // N = 8, force = 0.5 * 2 / 8 = 0.125
  CHECK(dx[0] == approx<T>(-0.25));
  CHECK(dx[1] == approx<T>(0.25 - 0.4));
  CHECK(dx[2] == approx<T>(0.4));
}

TEST_CASE("aliases of aliases are evaluated in dependency order", "[model][alias]") {
  using M = fx::compiled<chain, double>;
  using Al = M::traits::aliases;
  STATIC_REQUIRE(Al::size == 5);
  STATIC_REQUIRE(dependency_ordered<Al>::value);
  auto n = names(Al{});
  std::sort(n.begin(), n.end());
  CHECK(n == std::vector<std::string>{"A", "B", "C", "D", "E"});
  // A before B before C; A before D; D and B before E.
  auto pos = [&](const char* s) {
    const auto all = names(Al{});
    return std::find(all.begin(), all.end(), s) - all.begin();
  };
  CHECK(pos("A") < pos("B"));
  CHECK(pos("B") < pos("C"));
  CHECK(pos("A") < pos("D"));
  CHECK(pos("D") < pos("E"));
  CHECK(pos("B") < pos("E"));
  STATIC_REQUIRE(M::layout::intermediate::size == 5);
}

TEMPLATE_TEST_CASE("values of chained aliases", "[model][alias]", double, float) {
  using T = TestType;
  using M = fx::compiled<chain, T>;
  for (double xv : {1.0, -0.5, 3.25}) {
    const double yv = 2.0 - xv * 0.5, kv = 0.5 + xv;
    const T xs[2] = {T(xv), T(yv)};
    const T ps[1] = {T(kv)};
    // A = x + y, B = 2 A, C = B A + k, D = A^2, E = D + B
    const double a_ = xv + yv, b_ = 2 * a_, c_ = b_ * a_ + kv, d_ = a_ * a_, e_ = d_ + b_;
    T dx[2] = {-99, -99};
    M{}.rhs(T(0), xs, ps, dx);
    CHECK(dx[0] == approx<T>(c_));
    CHECK(dx[1] == approx<T>(e_ - a_));
    T yo[1] = {-99};
    M{}.observe(T(0), xs, ps, yo);
    CHECK(yo[0] == approx<T>(c_ + d_));
  }
}

TEST_CASE("shaped aliases take the free variables of their body", "[model][alias]") {
  using Np_t = fx::lowered_symbol<Np>;
  using lam_t = fx::lowered_symbol<lam>;
  using flow_t = fx::lowered_symbol<flow>;
  using P = std::remove_cvref_t<decltype(p)>;
  using Q = std::remove_cvref_t<decltype(q)>;
  STATIC_REQUIRE(std::is_same_v<Np_t::vars, fx::detail::type_list<P>>);
  STATIC_REQUIRE(std::is_same_v<lam_t::vars, fx::detail::type_list<P>>);
  STATIC_REQUIRE(std::is_same_v<flow_t::vars, fx::detail::type_list<P, Q>>);
  STATIC_REQUIRE(Np_t::size == 3);
  STATIC_REQUIRE(flow_t::size == 9);
  using M = fx::compiled<seir, double>;
  STATIC_REQUIRE(dependency_ordered<M::traits::aliases>::value);
  CHECK(M::traits::aliases::size == 3);
  STATIC_REQUIRE(M::layout::intermediate::size == 3 + 3 + 9);
}

TEMPLATE_TEST_CASE("values of shaped aliases read at other elements", "[model][alias]", double, float) {
  using T = TestType;
  using M = fx::compiled<seir, T>;
  double Sv[3][4], Iv[3][4], Rv[3], bv[3], Cv[3][3];
  const double gv = 0.3;
  T xs[27], ps[13];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      Sv[i][j] = 5.0 + 2 * i - 0.5 * j;
      Iv[i][j] = 0.2 + 0.3 * i + 0.1 * j * j;
      xs[i * 4 + j] = T(Sv[i][j]);
      xs[12 + i * 4 + j] = T(Iv[i][j]);
    }
    Rv[i] = 1.0 + i;
    xs[24 + i] = T(Rv[i]);
    bv[i] = 0.4 + 0.1 * i;
    ps[i] = T(bv[i]);
    for (int j = 0; j < 3; ++j) {
      Cv[i][j] = 0.5 + 0.2 * i - 0.1 * j;
      ps[3 + 3 * i + j] = T(Cv[i][j]);
    }
  }
  ps[12] = T(gv);

  // The model written by hand.
  double Npv[3], Itot[3], lamv[3];
  for (int i = 0; i < 3; ++i) {
    Npv[i] = Rv[i];
    Itot[i] = 0;
    for (int j = 0; j < 4; ++j) {
      Npv[i] += Sv[i][j] + Iv[i][j];
      Itot[i] += Iv[i][j];
    }
  }
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int r = 0; r < 3; ++r) s += Cv[i][r] * Itot[r] / Npv[r];
    lamv[i] = bv[i] * s;
  }

  T dx[27];
  for (T& v : dx) v = -99;
  M{}.rhs(T(0), xs, ps, dx);
  T yo[4];
  for (T& v : yo) v = -99;
  M{}.observe(T(0), xs, ps, yo);

  double population = 0;
  for (int i = 0; i < 3; ++i) {
    double incidence = 0;
    for (int j = 0; j < 4; ++j) {
      CHECK(dx[i * 4 + j] == approx<T>(-lamv[i] * Sv[i][j]));
      CHECK(dx[12 + i * 4 + j] == approx<T>(lamv[i] * Sv[i][j] - gv * Iv[i][j]));
      incidence += lamv[i] * Sv[i][j];
    }
    // flow(q, p) = Cm[q][p] Itot[p]; flow(p, q) = Cm[p][q] Itot[q].
    double net = 0;
    for (int r = 0; r < 3; ++r) net += Cv[r][i] * Itot[i] - Cv[i][r] * Itot[r];
    CHECK(dx[24 + i] == approx<T>(gv * Itot[i] + net));
    CHECK(yo[i] == approx<T>(incidence));
    population += Npv[i];
  }
  CHECK(yo[3] == approx<T>(population));
}
