// Evaluation of every operation of lowered expressions, in double and float,
// against the same formula written by hand with <cmath>.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <string_view>
#include <type_traits>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::param<"k"> k;
constexpr fx::constant<"g", 9.81> g;

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::param<"a", age> a;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> kk;
constexpr fx::ivar<age, 1, "l"> ll;
using P = std::remove_cvref_t<decltype(p)>;
using Q = std::remove_cvref_t<decltype(q)>;
using KK = std::remove_cvref_t<decltype(kk)>;

// An evaluation context: flat symbols x, y, k, indexed S[patch][age], a[age],
// C[patch][patch], and time. Counts reads so that lazy branches can be checked.
template <class T>
struct ctx {
  using scalar = T;
  T tv{}, xv{}, yv{}, kv{};
  T Sv[3][4]{};
  T av[4]{};
  T Cv[3][3]{};
  mutable int reads_x = 0, reads_y = 0, reads_k = 0;

  T time() const { return tv; }
  template <class Sym, class... I>
  T read(I... i) const {
    constexpr std::string_view n = fluxion::text<Sym::name>;
    if constexpr (n == "x") {
      static_assert(sizeof...(I) == 0);
      ++reads_x;
      return xv;
    } else if constexpr (n == "y") {
      static_assert(sizeof...(I) == 0);
      ++reads_y;
      return yv;
    } else if constexpr (n == "k") {
      static_assert(sizeof...(I) == 0);
      ++reads_k;
      return kv;
    } else if constexpr (n == "S") {
      static_assert(sizeof...(I) == 2);
      const int idx[] = {int(i)...};
      REQUIRE((idx[0] >= 0 && idx[0] < 3 && idx[1] >= 0 && idx[1] < 4));
      return Sv[idx[0]][idx[1]];
    } else if constexpr (n == "a") {
      static_assert(sizeof...(I) == 1);
      const int idx[] = {int(i)...};
      REQUIRE((idx[0] >= 0 && idx[0] < 4));
      return av[idx[0]];
    } else {
      static_assert(n == "C");
      const int idx[] = {int(i)...};
      return Cv[idx[0]][idx[1]];
    }
  }
};

template <class T>
ctx<T> make_ctx(double xv, double yv, double kv, double tv = 0.25) {
  ctx<T> c;
  c.xv = T(xv);
  c.yv = T(yv);
  c.kv = T(kv);
  c.tv = T(tv);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) c.Sv[i][j] = T(0.5 + 0.3 * i + 0.7 * j - 0.1 * i * j);
  for (int j = 0; j < 4; ++j) c.av[j] = T(1.0 / (j + 1));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c.Cv[i][j] = T(i == j ? 0.8 : 0.1 * (i + j));
  return c;
}

template <auto E, class T, class Env = fx::env<>>
auto ev(const ctx<T>& c, Env e = {}) {
  return fx::lowered<E>::eval(c, e);
}

template <class T>
constexpr double rel_tol = std::is_same_v<T, float> ? 2e-6 : 1e-14;

}  // namespace

#define CHECK_NEAR(value, expected) \
  CHECK_THAT(double(value), WithinRel(double(expected), rel_tol<T>) || WithinAbs(double(expected), 1e-300))

TEMPLATE_TEST_CASE("arithmetic operators", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  const T X = c.xv, Y = c.yv, K = c.kv;
  CHECK_NEAR(ev<x + k>(c), X + K);
  CHECK_NEAR(ev<x - k>(c), X - K);
  CHECK_NEAR(ev<x * k>(c), X * K);
  CHECK_NEAR(ev<x / k>(c), X / K);
  CHECK_NEAR(ev<-x>(c), -X);
  CHECK_NEAR(ev<-(x * y)>(c), -(X * Y));
  CHECK_NEAR(ev<x - (k - y)>(c), X - (K - Y));
  CHECK_NEAR(ev<x / (k * y)>(c), X / (K * Y));
  CHECK_NEAR(ev<x + (-2 * k)>(c), X - T(2) * K);
  CHECK_NEAR(ev<3 * x + 0.5 * y - 1>(c), T(3) * X + T(0.5) * Y - T(1));
  CHECK_NEAR(ev<0.1f * x>(c), T(double(0.1f)) * X);
  CHECK_NEAR(ev<-0.5 * x * k + fx::pow(x, 2) + fx::exp(x) / (1 + x)>(c),
             T(-0.5) * X * K + X * X + std::exp(X) / (T(1) + X));
  // The result type is the context's scalar.
  STATIC_REQUIRE(std::is_same_v<decltype(ev<x * k + 1>(c)), T>);
}

TEMPLATE_TEST_CASE("elementary functions", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  const T X = c.xv, Y = c.yv, K = c.kv;
  CHECK_NEAR(ev<fx::exp(x)>(c), std::exp(X));
  CHECK_NEAR(ev<fx::log(x)>(c), std::log(X));
  CHECK_NEAR(ev<fx::sqrt(k)>(c), std::sqrt(K));
  CHECK_NEAR(ev<fx::sin(y)>(c), std::sin(Y));
  CHECK_NEAR(ev<fx::cos(y)>(c), std::cos(Y));
  CHECK_NEAR(ev<fx::tanh(y)>(c), std::tanh(Y));
  CHECK_NEAR(ev<fx::abs(y)>(c), std::fabs(Y));
  CHECK_NEAR(ev<fx::abs(x)>(c), X);
  CHECK_NEAR(ev<fx::exp(x * k - 1)>(c), std::exp(X * K - T(1)));
  CHECK_NEAR(ev<fx::log(fx::sqrt(k) + fx::cos(x))>(c), std::log(std::sqrt(K) + std::cos(X)));
  using Sign = fx::unary<fx::op::sign, fx::lowered<y>>;
  CHECK(Sign::eval(c, fx::env<>{}) == T(-1));
  using SignX = fx::unary<fx::op::sign, fx::lowered<x>>;
  CHECK(SignX::eval(c, fx::env<>{}) == T(1));
  using SignZ = fx::unary<fx::op::sign, fx::lowered<x - k>>;
  auto z = c;
  z.kv = z.xv;
  CHECK(SignZ::eval(z, fx::env<>{}) == T(0));
}

TEMPLATE_TEST_CASE("powers: integer, real and expression exponents", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  const T X = c.xv, Y = c.yv, K = c.kv;
  CHECK_NEAR(ev<fx::pow(x, 2)>(c), X * X);
  CHECK_NEAR(ev<fx::pow(x, 3)>(c), X * X * X);
  CHECK_NEAR(ev<fx::pow(y, 5)>(c), Y * Y * Y * Y * Y);
  CHECK_NEAR(ev<fx::pow(y, 4)>(c), (Y * Y) * (Y * Y));
  CHECK_NEAR(ev<fx::pow(x, -2)>(c), T(1) / (X * X));
  CHECK_NEAR(ev<fx::pow(y, -3)>(c), T(1) / (Y * Y * Y));
  CHECK(ev<fx::pow(x, 0)>(c) == T(1));
  CHECK_NEAR(ev<fx::pow(x, 2.0)>(c), X * X);
  CHECK_NEAR(ev<fx::pow(x, 0.5)>(c), std::pow(X, T(0.5)));
  CHECK_NEAR(ev<fx::pow(k, 1.7)>(c), std::pow(K, T(1.7)));
  CHECK_NEAR(ev<fx::pow(k, x)>(c), std::pow(K, X));
  CHECK_NEAR(ev<fx::pow(x, k * y)>(c), std::pow(X, K * Y));
  CHECK_NEAR(ev<fx::pow(2.0, x)>(c), std::pow(T(2), X));
}

TEMPLATE_TEST_CASE("min, max, comparisons, logic and where", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  const T X = c.xv, Y = c.yv, K = c.kv;
  CHECK(ev<fx::min(x, k)>(c) == X);
  CHECK(ev<fx::max(x, k)>(c) == K);
  CHECK(ev<fx::min(x, y)>(c) == Y);
  CHECK(ev<fx::max(x * k, y + 5)>(c) == std::fmax(X * K, Y + T(5)));

  CHECK(ev<(x < k)>(c) == true);
  CHECK(ev<(x <= k)>(c) == true);
  CHECK(ev<(x > k)>(c) == false);
  CHECK(ev<(x >= k)>(c) == false);
  CHECK(ev<(x <= x)>(c) == true);
  CHECK(ev<(x >= x)>(c) == true);
  CHECK(ev<(x < x)>(c) == false);
  CHECK(ev<fx::equal(x, k)>(c) == false);
  CHECK(ev<fx::equal(x, x * 1)>(c) == true);
  CHECK(ev<fx::not_equal(x, k)>(c) == true);
  CHECK(ev<(x < k) && (y < x)>(c) == true);
  CHECK(ev<(x < k) && (y > x)>(c) == false);
  CHECK(ev<(x > k) || (y < x)>(c) == true);
  CHECK(ev<(x > k) || (y > x)>(c) == false);
  CHECK(ev<!(x > k)>(c) == true);

  CHECK_NEAR(ev<fx::where(x < k, x * 2, k)>(c), T(2) * X);
  CHECK_NEAR(ev<fx::where(x > k, x * 2, k)>(c), K);
  CHECK_NEAR(ev<fx::where(x > 0, 1, -1)>(c), T(1));
  CHECK_NEAR(ev<fx::where(y > 0, 1, -1)>(c), T(-1));
  CHECK_NEAR(ev<fx::where((x < k) && !(y > 0), fx::exp(y), 0)>(c), std::exp(Y));

  // Only the chosen branch is evaluated.
  c.reads_x = c.reads_y = c.reads_k = 0;
  CHECK_NEAR(ev<fx::where(fx::t > 0, y, k)>(c), Y);
  CHECK(c.reads_y == 1);
  CHECK(c.reads_k == 0);
  c.reads_y = 0;
  CHECK_NEAR(ev<fx::where(fx::t < 0, y, k)>(c), K);
  CHECK(c.reads_y == 0);
  CHECK(c.reads_k == 1);
  // A branch that would be NaN is not taken.
  CHECK_NEAR(ev<fx::where(y > 0, fx::log(y), 0)>(c), T(0));
}

TEMPLATE_TEST_CASE("named constants, literals and time", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2, 3.5);
  const T X = c.xv;
  CHECK_NEAR(ev<g>(c), T(9.81));
  CHECK_NEAR(ev<g * x>(c), T(9.81) * X);
  CHECK(ev<fx::t>(c) == T(3.5));
  CHECK_NEAR(ev<x * fx::t + fx::sin(fx::t)>(c), X * T(3.5) + std::sin(T(3.5)));
  CHECK(fx::lit<2.5>::eval(c, fx::env<>{}) == T(2.5));
  STATIC_REQUIRE(std::is_same_v<decltype(fx::lit<2.5>::eval(c, fx::env<>{})), T>);
  CHECK(ev<0.1f * x>(c) == T(static_cast<T>(double(0.1f)) * X));
}

TEMPLATE_TEST_CASE("indexed references and index environments", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const fx::env<P, KK> e{{i}, {j}};
      CHECK(ev<S(p, kk)>(c, e) == c.Sv[i][j]);
      CHECK(ev<S(2, kk)>(c, e) == c.Sv[2][j]);
      CHECK(ev<S(p, 1)>(c, e) == c.Sv[i][1]);
      // A shifted index outside its space reads zero.
      CHECK(ev<S(p, kk - 1)>(c, e) == (j == 0 ? T(0) : c.Sv[i][j - 1]));
      CHECK(ev<S(p, kk + 1)>(c, e) == (j == 3 ? T(0) : c.Sv[i][j + 1]));
      CHECK_NEAR(ev<a(kk) * S(p, kk)>(c, e), c.av[j] * c.Sv[i][j]);
    }
  // Binding with env<...>{{value}} as in the documentation.
  CHECK(ev<S(p, 3)>(c, fx::env<P>{{1}}) == c.Sv[1][3]);
}

TEMPLATE_TEST_CASE("reductions over an index space", "[symbolic][eval]", double, float) {
  using T = TestType;
  auto c = make_ctx<T>(0.7, -1.3, 2.2);
  c.Sv[1][2] = T(-0.4);  // a negative element, so that min and max differ from first/last
  for (int i = 0; i < 3; ++i) {
    const fx::env<P> e{{i}};
    T s = 0, pr = 1, mn = c.Sv[i][0], mx = c.Sv[i][0], wsum = 0, sq = 0;
    for (int j = 0; j < 4; ++j) {
      s += c.Sv[i][j];
      pr *= c.Sv[i][j];
      mn = std::fmin(mn, c.Sv[i][j]);
      mx = std::fmax(mx, c.Sv[i][j]);
      wsum += c.av[j] * c.Sv[i][j];
      sq += c.Sv[i][j] * c.Sv[i][j];
    }
    CHECK_NEAR(ev<fx::sum(kk, S(p, kk))>(c, e), s);
    CHECK_NEAR(ev<fx::prod(kk, S(p, kk))>(c, e), pr);
    CHECK(ev<fx::min(kk, S(p, kk))>(c, e) == mn);
    CHECK(ev<fx::max(kk, S(p, kk))>(c, e) == mx);
    CHECK_NEAR(ev<fx::sum(kk, a(kk) * S(p, kk))>(c, e), wsum);
    CHECK_NEAR(ev<fx::sum(kk, fx::pow(S(p, kk), 2))>(c, e), sq);
    // Shifted reads inside a reduction: sum_k S[p, k-1] misses the last element.
    CHECK_NEAR(ev<fx::sum(kk, S(p, kk - 1))>(c, e), s - c.Sv[i][3]);
  }
  CHECK(c.Sv[1][2] == fx::lowered<fx::min(kk, S(p, kk))>::eval(c, fx::env<P>{{1}}));

  // Nested reductions and a matrix: sum_q C[p,q] sum_k S[q,k].
  for (int i = 0; i < 3; ++i) {
    T expected = 0;
    for (int j = 0; j < 3; ++j) {
      T inner = 0;
      for (int l = 0; l < 4; ++l) inner += c.Sv[j][l];
      expected += c.Cv[i][j] * inner;
    }
    CHECK_NEAR(ev<fx::sum(q, C(p, q) * fx::sum(kk, S(q, kk)))>(c, fx::env<P>{{i}}), expected);
  }
  // A double sum with two variables over one space: sum_k sum_l a[k] a[l].
  T aa = 0;
  for (int j = 0; j < 4; ++j)
    for (int l = 0; l < 4; ++l) aa += c.av[j] * c.av[l];
  CHECK_NEAR(ev<fx::sum(kk, fx::sum(ll, a(kk) * a(ll)))>(c), aa);
  // Free variable outside, reduction inside: S[p,k] / sum_l S[p,l].
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      T tot = 0;
      for (int l = 0; l < 4; ++l) tot += c.Sv[i][l];
      CHECK_NEAR(ev<S(p, kk) / fx::sum(ll, S(p, ll))>(c, fx::env<P, KK>{{i}, {j}}), c.Sv[i][j] / tot);
    }
}

TEMPLATE_TEST_CASE("stage nodes and Kronecker deltas", "[symbolic][eval]", double, float) {
  using T = TestType;
  const auto c = make_ctx<T>(0.7, -1.3, 2.2);
  using SPK = fx::lowered<S(p, kk)>;
  using Prev = fx::at_previous<KK, SPK>;
  using Next = fx::if_next<KK, SPK>;
  using J = fx::ivar<patch, 7, "j">;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const fx::env<P, KK> e{{i}, {j}};
      CHECK(Prev::eval(c, e) == (j == 0 ? T(0) : c.Sv[i][j - 1]));
      CHECK(Next::eval(c, e) == (j == 3 ? T(0) : c.Sv[i][j]));
      for (int m = 0; m < 3; ++m) {
        const fx::env<P, KK, J> e2{{i}, {j}, {m}};
        CHECK(fx::kdelta<P, J>::eval(c, e2) == (i == m ? T(1) : T(0)));
        CHECK(fx::kdelta<fx::ishift<KK, -1>, fx::ifix<2>>::eval(c, e2) == (j - 1 == 2 ? T(1) : T(0)));
      }
    }
}
