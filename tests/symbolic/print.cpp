// Printing of every expression node kind as text (fx::to_string). Every
// expected string is written by hand from the printing rules: infix operators
// with C-like precedence (|| < && < comparisons < + - < * /), left
// associativity (the right operand of - and / is parenthesized at equal
// precedence), prefix - and !, function-call syntax for everything else,
// indexed references as S[i,j], numbers in shortest round-trip form.
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
using Sd = std::remove_cvref_t<decltype(S)>;
using P = std::remove_cvref_t<decltype(p)>;
using KK = std::remove_cvref_t<decltype(kk)>;
using J = fx::ivar<patch, 7, "j">;

}  // namespace

TEST_CASE("numbers print in shortest round-trip form", "[symbolic][print]") {
  CHECK(fx::to_string<fx::lit<2.5>>() == "2.5");
  CHECK(fx::to_string<fx::lit<-3.0>>() == "-3");
  CHECK(fx::to_string<fx::zero>() == "0");
  CHECK(fx::to_string<fx::one>() == "1");
  CHECK(fx::to_string<fx::lit<0.125>>() == "0.125");
  CHECK(fx::to_string<fx::lit<1e-20>>() == "1e-20");
  CHECK(fx::to_string<fx::lit<1e20>>() == "1e+20");
  // Literals as written in expressions: int, double and float.
  CHECK(fx::to_string<2 * x>() == "2 * x");
  CHECK(fx::to_string<0.1 * x>() == "0.1 * x");
  CHECK(fx::to_string<2.5f * x>() == "2.5 * x");
  // A float literal keeps its float value: 0.1f is 0.100000001490116119384765625,
  // whose shortest double round-trip text is 0.10000000149011612.
  CHECK(fx::to_string<0.1f * x>() == "0.10000000149011612 * x");
}

TEST_CASE("leaves: named constants, time and symbols", "[symbolic][print]") {
  CHECK(fx::to_string<g>() == "g");
  CHECK(fx::to_string<g * x>() == "g * x");
  CHECK(fx::to_string<fx::t>() == "t");
  CHECK(fx::to_string<fx::time_node>() == "t");
  CHECK(fx::to_string<x>() == "x");
  CHECK(fx::to_string<k>() == "k");
  CHECK(fx::to_string<X>() == "x");
}

TEST_CASE("indexed references: variables, shifts and fixed elements", "[symbolic][print]") {
  CHECK(fx::to_string<S(p, kk)>() == "S[p,k]");
  CHECK(fx::to_string<S(q, kk - 1)>() == "S[q,k-1]");
  CHECK(fx::to_string<S(p, kk + 2)>() == "S[p,k+2]");
  CHECK(fx::to_string<S(p, kk + 0)>() == "S[p,k]");
  CHECK(fx::to_string<S(2, 3)>() == "S[2,3]");
  CHECK(fx::to_string<S(0, kk)>() == "S[0,k]");
  CHECK(fx::to_string<a(kk)>() == "a[k]");
  // Unnamed index variables print as their space, with the id when not 0.
  CHECK(fx::to_string<S(fx::ivar<patch>{}, fx::ivar<age, 2>{})>() == "S[patch,age2]");
}

TEST_CASE("unary nodes", "[symbolic][print]") {
  CHECK(fx::to_string<-x>() == "-x");
  CHECK(fx::to_string<-(x + k)>() == "-(x + k)");
  CHECK(fx::to_string<-(x * k)>() == "-(x * k)");
  CHECK(fx::to_string<-fx::exp(x)>() == "-exp(x)");
  CHECK(fx::to_string<fx::exp(x)>() == "exp(x)");
  CHECK(fx::to_string<fx::log(x)>() == "log(x)");
  CHECK(fx::to_string<fx::sqrt(x)>() == "sqrt(x)");
  CHECK(fx::to_string<fx::sin(x)>() == "sin(x)");
  CHECK(fx::to_string<fx::cos(x)>() == "cos(x)");
  CHECK(fx::to_string<fx::tanh(x)>() == "tanh(x)");
  CHECK(fx::to_string<fx::abs(x)>() == "abs(x)");
  CHECK(fx::to_string<fx::exp(x * k + 1)>() == "exp(x * k + 1)");
  CHECK(fx::to_string<fx::unary<fx::op::sign, X>>() == "sign(x)");
  CHECK(fx::to_string<!(x < k)>() == "!(x < k)");
}

TEST_CASE("binary infix nodes and precedence", "[symbolic][print]") {
  CHECK(fx::to_string<x + k>() == "x + k");
  CHECK(fx::to_string<x - k>() == "x - k");
  CHECK(fx::to_string<x * k>() == "x * k");
  CHECK(fx::to_string<x / k>() == "x / k");
  CHECK(fx::to_string<(x < k)>() == "x < k");
  CHECK(fx::to_string<(x <= k)>() == "x <= k");
  CHECK(fx::to_string<(x > k)>() == "x > k");
  CHECK(fx::to_string<(x >= k)>() == "x >= k");
  CHECK(fx::to_string<fx::equal(x, k)>() == "x == k");
  CHECK(fx::to_string<fx::not_equal(x, k)>() == "x != k");
  CHECK(fx::to_string<(x < k) && (y > k)>() == "x < k && y > k");
  CHECK(fx::to_string<(x < k) || (y > k)>() == "x < k || y > k");

  CHECK(fx::to_string<(x + k) * y>() == "(x + k) * y");
  CHECK(fx::to_string<x * (k + y)>() == "x * (k + y)");
  CHECK(fx::to_string<x + k * y>() == "x + k * y");
  CHECK(fx::to_string<x - (k - y)>() == "x - (k - y)");
  CHECK(fx::to_string<x - (k + y)>() == "x - (k + y)");
  CHECK(fx::to_string<(x - k) - y>() == "x - k - y");
  CHECK(fx::to_string<x / (k / y)>() == "x / (k / y)");
  CHECK(fx::to_string<x / (k * y)>() == "x / (k * y)");
  CHECK(fx::to_string<x / k / y>() == "x / k / y");
  CHECK(fx::to_string<x / k * y>() == "x / k * y");
  CHECK(fx::to_string<(x + k) / (y - 1)>() == "(x + k) / (y - 1)");
  CHECK(fx::to_string<(x < k) && ((y > k) || (x > y))>() == "x < k && (y > k || x > y)");
  CHECK(fx::to_string<((x < k) && (y > k)) || (x > y)>() == "x < k && y > k || x > y");
  CHECK(fx::to_string<(x + 1 < k * 2)>() == "x + 1 < 2 * k");
  CHECK(fx::to_string<-0.5 * x>() == "-0.5 * x");
  CHECK(fx::to_string<-2.0 - x>() == "-2 - x");
}

TEST_CASE("binary call nodes and integer powers", "[symbolic][print]") {
  CHECK(fx::to_string<fx::min(x, k)>() == "min(x, k)");
  CHECK(fx::to_string<fx::max(x, k + 1)>() == "max(x, k + 1)");
  CHECK(fx::to_string<fx::pow(x, k)>() == "pow(x, k)");
  CHECK(fx::to_string<fx::pow(x, 0.5)>() == "pow(x, 0.5)");
  CHECK(fx::to_string<fx::pow(2.0, x)>() == "pow(2, x)");
  CHECK(fx::to_string<fx::pow(x, 3)>() == "pow(x, 3)");
  CHECK(fx::to_string<fx::pow(x, -2)>() == "pow(x, -2)");
  CHECK(fx::to_string<fx::pow(x + k, 2)>() == "pow(x + k, 2)");
  CHECK(fx::to_string<-fx::pow(x, 2)>() == "-pow(x, 2)");
}

TEST_CASE("where, reductions, stage nodes and Kronecker deltas", "[symbolic][print]") {
  CHECK(fx::to_string<fx::where(x < k, x, k)>() == "where(x < k, x, k)");
  CHECK(fx::to_string<fx::where(x > 0, 1, -1)>() == "where(x > 0, 1, -1)");
  CHECK(fx::to_string<fx::where((fx::equal(x, k) && !(x >= k)) || fx::not_equal(x, k), 1.0, x)>() ==
        "where(x == k && !(x >= k) || x != k, 1, x)");

  CHECK(fx::to_string<fx::sum(kk, S(p, kk))>() == "sum(k, S[p,k])");
  CHECK(fx::to_string<fx::prod(kk, S(p, kk))>() == "prod(k, S[p,k])");
  CHECK(fx::to_string<fx::min(kk, S(p, kk))>() == "min(k, S[p,k])");
  CHECK(fx::to_string<fx::max(kk, S(p, kk - 1))>() == "max(k, S[p,k-1])");
  CHECK(fx::to_string<fx::sum(q, fx::sum(kk, a(kk) * S(q, kk)))>() == "sum(q, sum(k, a[k] * S[q,k]))");
  CHECK(fx::to_string<2 * fx::sum(kk, S(p, kk)) + 1>() == "2 * sum(k, S[p,k]) + 1");

  using SPK = fx::ref<Sd, P, KK>;
  CHECK(fx::to_string<fx::at_previous<KK, SPK>>() == "at(k-1, S[p,k])");
  CHECK(fx::to_string<fx::if_next<KK, SPK>>() == "unless_last(k, S[p,k])");
  CHECK(fx::to_string<fx::kdelta<P, J>>() == "delta(p, j)");
  CHECK(fx::to_string<fx::kdelta<fx::ishift<KK, -1>, fx::ifix<2>>>() == "delta(k-1, 2)");
  CHECK(fx::to_string<fx::where_node<fx::kdelta<P, J>, fx::one, SPK>>() == "where(delta(p, j), 1, S[p,k])");
}

TEST_CASE("the example from the documentation", "[symbolic][print]") {
  constexpr auto e = -0.5 * x * k + fx::pow(x, 2) + fx::exp(x) / (1 + x);
  CHECK(fx::to_string<e>() == "-0.5 * x * k + pow(x, 2) + exp(x) / (1 + x)");
  CHECK(fx::to_string<fx::lowered<e>>() == "-0.5 * x * k + pow(x, 2) + exp(x) / (1 + x)");
  CHECK(fx::to_string<g * x + fx::t>() == "g * x + t");
}
