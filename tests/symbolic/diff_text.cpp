// Symbolic derivatives checked as printed text and as types, for simple
// cases whose simplified derivative is derived by hand from the rules
// d(a*b) = da*b + a*db, d(a/b) = da/b - a*db/b^2, chain rule, and the
// simplifications 0*x = 0, 1*x = x, x+0 = x, x-0 = x.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <string>
#include <type_traits>

namespace fx = fluxion;

namespace {

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr fx::constant<"g", 9.81> g;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::param<"a", age> a;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> kk;

using X = fx::ref<std::remove_cvref_t<decltype(x)>>;
using Y = fx::ref<std::remove_cvref_t<decltype(y)>>;
using K = fx::ref<std::remove_cvref_t<decltype(k)>>;
using Sd = std::remove_cvref_t<decltype(S)>;
using Ad = std::remove_cvref_t<decltype(a)>;
using P = std::remove_cvref_t<decltype(p)>;
using KK = std::remove_cvref_t<decltype(kk)>;
using J = fx::ivar<patch, 7, "j">;
using M = fx::ivar<age, 7, "m">;
using WS = fx::ref<Sd, J, M>;  // d / d S[j,m]
using WA = fx::ref<Ad, M>;     // d / d a[m]

template <auto E, class W = X>
std::string d() {
  return fx::to_string<fx::derivative_t<fx::lowered<E>, W>>();
}
template <auto E, class W = X>
using D = fx::derivative_t<fx::lowered<E>, W>;

}  // namespace

TEST_CASE("derivatives of leaves", "[symbolic][diff]") {
  STATIC_REQUIRE(std::is_same_v<D<x>, fx::one>);
  STATIC_REQUIRE(std::is_same_v<D<y>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<k>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<k, K>, fx::one>);
  STATIC_REQUIRE(std::is_same_v<fx::derivative_t<fx::lit<2.5>, X>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<g>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<fx::t>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<g * x>, std::remove_cvref_t<decltype(g)>>);
  STATIC_REQUIRE(std::is_same_v<D<fx::t * x>, fx::time_node>);
}

TEST_CASE("derivatives of the arithmetic operators, as text", "[symbolic][diff]") {
  CHECK(d<x + k>() == "1");
  CHECK(d<x - k>() == "1");
  CHECK(d<k - x>() == "-1");
  CHECK(d<-x>() == "-1");
  CHECK(d<x * k>() == "k");
  CHECK(d<k * x>() == "k");
  CHECK(d<x * x>() == "x + x");
  CHECK(d<3 * x + k>() == "3");
  CHECK(d<x / k>() == "1 / k");
  CHECK(d<k / x>() == "-(k / pow(x, 2))");
  CHECK(d<x * y + k>() == "y");
  CHECK(d<x * y + k, Y>() == "x");
  CHECK(d<x * y + k, K>() == "1");
  CHECK(d<x * y * k, K>() == "x * y");
  CHECK(d<(x + 1) / (y + 1)>() == "1 / (y + 1)");
}

TEST_CASE("derivatives of elementary functions, as text", "[symbolic][diff]") {
  CHECK(d<fx::exp(x)>() == "exp(x)");
  CHECK(d<fx::log(x)>() == "1 / x");
  CHECK(d<fx::sqrt(x)>() == "1 / (2 * sqrt(x))");
  CHECK(d<fx::sin(x)>() == "cos(x)");
  CHECK(d<fx::cos(x)>() == "-sin(x)");
  CHECK(d<fx::tanh(x)>() == "1 - pow(tanh(x), 2)");
  CHECK(d<fx::abs(x)>() == "sign(x)");
  // Chain rule: d exp(k x) = exp(k x) * k
  CHECK(d<fx::exp(k * x)>() == "exp(k * x) * k");
  // A constant factor moves first: cos(2 x) * 2 -> 2 * cos(2 x).
  CHECK(d<fx::sin(2 * x)>() == "2 * cos(2 * x)");
  CHECK(d<fx::log(x * y)>() == "y / (x * y)");
}

TEST_CASE("derivatives of powers, min, max and where, as text", "[symbolic][diff]") {
  CHECK(d<fx::pow(x, 2)>() == "2 * x");
  CHECK(d<fx::pow(x, 3)>() == "3 * pow(x, 2)");
  CHECK(d<fx::pow(x, -1)>() == "-pow(x, -2)");
  CHECK(d<fx::pow(x, 0.5)>() == "0.5 * pow(x, -0.5)");
  CHECK(d<fx::pow(x, k)>() == "k * pow(x, k - 1)");
  CHECK(d<fx::pow(k, x)>() == "pow(k, x) * log(k)");
  CHECK(d<fx::pow(x, x)>() == "pow(x, x) * (log(x) + 1)");
  CHECK(d<fx::min(x, k)>() == "where(x <= k, 1, 0)");
  CHECK(d<fx::max(x, k)>() == "where(x >= k, 1, 0)");
  CHECK(d<fx::min(x, k), K>() == "where(x <= k, 0, 1)");
  CHECK(d<fx::where(x < k, x * x, k)>() == "where(x < k, x + x, 0)");
  CHECK(d<fx::where(x < k, 2 * x, 3 * x)>() == "where(x < k, 2, 3)");
  // Identical branches collapse.
  CHECK(d<fx::where(x < k, x + k, x - k)>() == "1");
  // Comparisons are piecewise constant.
  STATIC_REQUIRE(std::is_same_v<fx::derivative_t<fx::lowered<(x < k)>, X>, fx::zero>);
}

TEST_CASE("the documentation example", "[symbolic][diff]") {
  constexpr auto e = -0.5 * x * k + fx::pow(x, 2) + fx::exp(x) / (1 + x);
  CHECK(d<e>() == "-0.5 * k + 2 * x + exp(x) / (1 + x) - exp(x) / pow(1 + x, 2)");
  CHECK(d<e, K>() == "-0.5 * x");
}

TEST_CASE("derivatives of indexed references are Kronecker deltas", "[symbolic][diff]") {
  CHECK(d<S(p, kk), WS>() == "delta(p, j) * delta(k, m)");
  CHECK(d<S(q, kk - 1), WS>() == "delta(q, j) * delta(k-1, m)");
  CHECK(d<S(2, kk), WS>() == "delta(2, j) * delta(k, m)");
  // a[k] * (delta * delta): * is associative, so no parentheses are printed.
  CHECK(d<a(kk) * S(p, kk), WS>() == "a[k] * delta(p, j) * delta(k, m)");
  CHECK(d<a(kk) * S(p, kk), WA>() == "delta(k, m) * S[p,k]");
  CHECK(d<S(p, kk), fx::ref<Sd, J, M>>() == "delta(p, j) * delta(k, m)");
  // One index variable only.
  using WJ = fx::ref<Ad, fx::ivar<age, 3, "n">>;
  CHECK(d<a(kk), WJ>() == "delta(k, n)");
  STATIC_REQUIRE(std::is_same_v<D<S(p, kk), WA>, fx::zero>);
  STATIC_REQUIRE(std::is_same_v<D<S(p, kk), fx::ref<Sd, J, M>>,
                                fx::binary<fx::op::mul, fx::kdelta<P, J>, fx::kdelta<KK, M>>>);
}

TEST_CASE("derivatives of reductions, as text", "[symbolic][diff]") {
  // A sum over a Kronecker delta collapses to its one term: sum over k of
  // delta(p, j) delta(k, m) is delta(p, j) for every m.
  CHECK(d<fx::sum(kk, S(p, kk)), WS>() == "delta(p, j)");
  CHECK(d<fx::sum(kk, a(kk) * S(p, kk)), WS>() == "a[m] * delta(p, j)");
  // Only plain variables collapse: the shifted delta(k-1, m) keeps its sum.
  CHECK(d<fx::sum(kk, S(p, kk - 1)), WS>() == "sum(k, delta(p, j) * delta(k-1, m))");
  CHECK(d<fx::sum(kk, a(kk)), WS>() == "0");
  STATIC_REQUIRE(std::is_same_v<D<fx::sum(kk, a(kk)), WS>, fx::zero>);
  // d prod_k S[p,k] = sum_l dS[p,l] prod_k (k == l ? 1 : S[p,k]); the fresh
  // variable over age prints as age_0.
  CHECK(d<fx::prod(kk, S(p, kk)), WS>() ==
        "sum(age_0, delta(p, j) * delta(age_0, m) * prod(k, where(delta(k, age_0), 1, S[p,k])))");
  // d min_k S[p,k] = sum_k (S[p,k] == min_l S[p,l] and no earlier element attains it ? dS[p,k] : 0)
  CHECK(d<fx::min(kk, S(p, kk)), WS>() ==
        "sum(k, where(S[p,k] == min(age_0, S[p,age_0]), delta(p, j) * delta(k, m) * "
            "prod(age_131072, where(age_131072 < k && S[p,age_131072] == min(age_0, S[p,age_0]), 0, 1)), 0))");
  CHECK(d<fx::max(kk, S(p, kk)), WS>() ==
        "sum(k, where(S[p,k] == max(age_0, S[p,age_0]), delta(p, j) * delta(k, m) * "
            "prod(age_131072, where(age_131072 < k && S[p,age_131072] == max(age_0, S[p,age_0]), 0, 1)), 0))");
}
