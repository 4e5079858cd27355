// Model validation accepts good models, flat and indexed (with groups and
// stage transport), and puts states, parameters and observables in their
// canonical order: the order of declaration, whatever the order in which the
// equations are written.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace fx = fluxion;

namespace {

Catch::Approx approx(double v) { return Catch::Approx(v).epsilon(1e-13); }

template <class... S>
std::vector<std::string> names(fx::detail::type_list<S...>) {
  return {std::string(fluxion::text<S::name>)...};
}

// --- a flat model whose equations are written in another order than declared ---
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gamma_;

constexpr auto flat = fx::model(                    //
    fx::states(I, S, R), fx::params(gamma_, beta),  //
    fx::observe<"total">() = S + I + R,             //
    fx::d(R) = gamma_ * I,                          //
    fx::d(S) = -beta * S * I,                       //
    fx::observe<"incidence">() = beta * S * I,      //
    fx::d(I) = beta * S * I - gamma_ * I);
using Flat = fx::compiled<flat, double>;

// --- an indexed model ---
using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"Sx", patch, age> Sx;
constexpr fx::state<"Ix", patch, age> Ix;
constexpr fx::state<"Rx", patch> Rx;
constexpr fx::param<"b", patch> b;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"g"> g;
constexpr fx::param<"a", age> a;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;

constexpr auto indexed = fx::model(                             //
    fx::states(Sx, Ix, Rx), fx::params(b, C, g, a),             //
    fx::d(Sx(p, k)) = -b(p) * Sx(p, k) * fx::sum(q, C(p, q) * Ix(q, k)),
    fx::d(Ix(p, k)) = b(p) * Sx(p, k) * fx::sum(q, C(p, q) * Ix(q, k)) - g * Ix(p, k),
    fx::d(Rx(p)) = g * fx::sum(k, Ix(p, k)),                    //
    fx::observe<"prevalence">(p) = fx::sum(k, Ix(p, k)),         //
    fx::observe<"total">() = fx::sum(p, fx::sum(k, Sx(p, k) + Ix(p, k)) + Rx(p)),
    fx::observe<"by_age">(p, k) = a(k) * Ix(p, k));
using Indexed = fx::compiled<indexed, double>;

// --- an indexed model with an independent group and stage transport ---
constexpr auto staged = fx::model(                          //
    fx::states(Sx, Ix, Rx), fx::params(b, g, a),            //
    fx::group<patch>(fx::independent),                     //
    fx::d(Sx(p, k)) = -b(p) * Sx(p, k) * Ix(p, k),          //
    fx::d(Ix(p, k)) = b(p) * Sx(p, k) * Ix(p, k) - g * Ix(p, k),
    fx::d(Rx(p)) = g * fx::sum(k, Ix(p, k)),                //
    fx::transport<age>(a(k), Sx, Ix));
using Staged = fx::compiled<staged, float>;

}  // namespace

TEST_CASE("a flat model is accepted", "[model][validation]") {
  STATIC_REQUIRE(Flat::traits::valid);
  STATIC_REQUIRE(Flat::n_states == 3);
  STATIC_REQUIRE(Flat::n_params == 2);
  STATIC_REQUIRE(Flat::n_observables == 2);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Flat>);
  STATIC_REQUIRE(std::is_empty_v<Flat>);
  STATIC_REQUIRE(std::is_same_v<Flat::scalar, double>);
  STATIC_REQUIRE(std::is_same_v<fx::compiled<flat, float>::scalar, float>);
}

TEST_CASE("indexed models are accepted", "[model][validation]") {
  STATIC_REQUIRE(Indexed::traits::valid);
  STATIC_REQUIRE(Indexed::n_states == 12 + 12 + 3);
  STATIC_REQUIRE(Indexed::n_params == 3 + 9 + 1 + 4);
  STATIC_REQUIRE(Indexed::n_observables == 3 + 1 + 12);
  STATIC_REQUIRE(Staged::traits::valid);
  STATIC_REQUIRE(Staged::n_states == 27);
  STATIC_REQUIRE(Staged::n_params == 3 + 1 + 4);
  STATIC_REQUIRE(Staged::traits::groups::size == 1);
  STATIC_REQUIRE(Staged::traits::transports::size == 1);
}

TEST_CASE("canonical order is declaration order", "[model][validation]") {
  using T = Flat::traits;
  CHECK(names(T::states{}) == std::vector<std::string>{"I", "S", "R"});
  CHECK(names(T::params{}) == std::vector<std::string>{"gamma", "beta"});
  CHECK(names(T::observables_symbols{}) == std::vector<std::string>{"total", "incidence"});
  // One equation per state, in state order, whatever order they were written in.
  using Eqs = T::state_equations;
  STATIC_REQUIRE(Eqs::size == 3);
  STATIC_REQUIRE(std::is_same_v<fx::detail::at_t<Eqs, 0>::symbol, std::remove_cvref_t<decltype(I)>>);
  STATIC_REQUIRE(std::is_same_v<fx::detail::at_t<Eqs, 1>::symbol, std::remove_cvref_t<decltype(S)>>);
  STATIC_REQUIRE(std::is_same_v<fx::detail::at_t<Eqs, 2>::symbol, std::remove_cvref_t<decltype(R)>>);

  using U = Indexed::traits;
  CHECK(names(U::states{}) == std::vector<std::string>{"Sx", "Ix", "Rx"});
  CHECK(names(U::params{}) == std::vector<std::string>{"b", "C", "g", "a"});
  CHECK(names(U::observables_symbols{}) == std::vector<std::string>{"prevalence", "total", "by_age"});
}

TEST_CASE("layout offsets follow the canonical order", "[model][validation]") {
  using L = Flat::layout;
  STATIC_REQUIRE(L::state::offset(I) == 0);
  STATIC_REQUIRE(L::state::offset(S) == 1);
  STATIC_REQUIRE(L::state::offset(R) == 2);
  STATIC_REQUIRE(L::param::offset(gamma_) == 0);
  STATIC_REQUIRE(L::param::offset(beta) == 1);
  using Obs = Flat::traits::observables_symbols;
  STATIC_REQUIRE(L::observable::base<fx::detail::at_t<Obs, 0>>() == 0);
  STATIC_REQUIRE(L::observable::base<fx::detail::at_t<Obs, 1>>() == 1);
}

TEST_CASE("the flat model evaluates each equation into its declared slot", "[model][validation]") {
  // x = {I, S, R}, p = {gamma, beta}
  const double x[3] = {1.0, 3.0, 1.0};
  const double prm[2] = {0.2, 0.5};
  double dx[3] = {-99, -99, -99};
  Flat{}.rhs(0.0, x, prm, dx);
  // dS = -beta S I = -1.5; dI = beta S I - gamma I = 1.3; dR = gamma I = 0.2
  CHECK(dx[0] == 1.5 - 0.2);
  CHECK(dx[1] == -1.5);
  CHECK(dx[2] == 0.2);
  double y[2] = {-99, -99};
  Flat{}.observe(0.0, x, prm, y);
  CHECK(y[0] == 5.0);  // total
  CHECK(y[1] == 1.5);  // incidence
}

TEST_CASE("the indexed model evaluates every element into its declared slot", "[model][validation]") {
  // States: Sx[3][4], Ix[3][4], Rx[3]; params: b[3], C[3][3], g, a[4].
  double x[27], prm[17];
  double Sv[3][4], Iv[3][4], Rv[3], bv[3], Cv[3][3], gv = 0.15, av[4];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      Sv[i][j] = 10.0 + i + 0.5 * j;
      Iv[i][j] = 0.25 * (i + 1) + 0.125 * j;
      x[i * 4 + j] = Sv[i][j];
      x[12 + i * 4 + j] = Iv[i][j];
    }
    Rv[i] = 2.0 * i;
    x[24 + i] = Rv[i];
    bv[i] = 0.1 * (i + 1);
    prm[i] = bv[i];
    for (int j = 0; j < 3; ++j) {
      Cv[i][j] = i == j ? 1.0 : 0.05 * (i + 2 * j);
      prm[3 + i * 3 + j] = Cv[i][j];
    }
  }
  prm[12] = gv;
  for (int j = 0; j < 4; ++j) {
    av[j] = 1.0 + j;
    prm[13 + j] = av[j];
  }

  double dx[27];
  for (double& v : dx) v = -99;
  Indexed{}.rhs(0.0, x, prm, dx);
  double y[16];
  for (double& v : y) v = -99;
  Indexed{}.observe(0.0, x, prm, y);

  double total = 0;
  for (int i = 0; i < 3; ++i) {
    double prevalence = 0;
    for (int j = 0; j < 4; ++j) {
      double force = 0;
      for (int r = 0; r < 3; ++r) force += Cv[i][r] * Iv[r][j];
      const double inf = bv[i] * Sv[i][j] * force;
      CHECK(dx[i * 4 + j] == approx(-inf));
      CHECK(dx[12 + i * 4 + j] == approx(inf - gv * Iv[i][j]));
      prevalence += Iv[i][j];
      total += Sv[i][j] + Iv[i][j];
      CHECK(y[4 + i * 4 + j] == approx(av[j] * Iv[i][j]));
    }
    total += Rv[i];
    CHECK(dx[24 + i] == approx(gv * prevalence));
    CHECK(y[i] == approx(prevalence));
  }
  CHECK(y[3] == approx(total));
}
