// fx::min and fx::max, binary and as reductions, follow one rule on every
// path (docs/reference/expressions.md; fluxion/math/elementary.hpp):
//
//   min(a, b) = (b < a || b is NaN) ? b : a
//   max(a, b) = (a < b || b is NaN) ? b : a
//
// the first operand at a tie, +0 and -0 included; NaN when either operand is
// NaN; reductions fold left from the first element. Checked bit for bit on
// +0, -0, NaN, -NaN, 1 and -1 in every order: the scalar, complex and lane
// functions, and the host batch drivers (structure-of-arrays lanes and
// tiles, array-of-structures lanes, one instance at a time, threads) against
// one instance at a time (M{}.rhs, M{}.observe) and against the rule. The
// derivative takes the operand the value takes.
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/exec/lanes.hpp>

namespace fx = fluxion;

namespace {

template <class T>
T min_rule(T a, T b) {
  return (b < a || std::isnan(b)) ? b : a;
}
template <class T>
T max_rule(T a, T b) {
  return (a < b || std::isnan(b)) ? b : a;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class T>
std::string bits_text(T v) {
  std::string text = std::isnan(v) ? "NaN" : std::to_string(std::abs(v));
  return (std::signbit(v) ? "-" : "+") + text;
}

// +0, -0, NaN, -NaN, 1, -1.
template <class T>
std::array<T, 6> specials() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  return {T(0), -T(0), nan, -nan, T(1), T(-1)};
}

using dom = fx::index<"e", 3>;
constexpr fx::ivar<dom, 0, "i"> i;
constexpr fx::ivar<dom, 1, "j"> j;
constexpr fx::state<"a"> a;
constexpr fx::state<"b"> b;
constexpr fx::state<"lo"> lo;
constexpr fx::state<"hi"> hi;
constexpr fx::state<"v", dom> v;
constexpr fx::param<"c"> c;
constexpr auto model = fx::model(fx::states(a, b, lo, hi, v), fx::params(c),  //
                                 fx::d(a) = fx::min(a, b),                      //
                                 fx::d(b) = fx::max(a, b),                      //
                                 fx::d(lo) = fx::min(j, v(j)),                  //
                                 fx::d(hi) = fx::max(j, v(j)),                  //
                                 fx::d(v(i)) = fx::max(v(i), c),                //
                                 fx::observe<"min_ba">() = fx::min(b, a),       //
                                 fx::observe<"max_ba">() = fx::max(b, a),       //
                                 fx::observe<"obs_lo">() = fx::min(j, v(j)),        //
                                 fx::observe<"obs_hi">() = fx::max(j, v(j)),        //
                                 fx::observe<"min_vc">(i) = fx::min(v(i), c));
constexpr std::size_t ns = 7, np = 1, no = 7;

// Instance n: v = (s[n % 6], s[n / 6 % 6], s[n / 36]), a = v[0], b = v[1],
// c = s[(n + n / 6) % 6]; every ordered pair of specials and every triple.
constexpr std::size_t B = 216;

template <class T>
struct instances {
  std::vector<T> x, p;  // AoS
  instances() : x(B * ns), p(B * np) {
    const auto s = specials<T>();
    for (std::size_t n = 0; n < B; ++n) {
      const T v0 = s[n % 6], v1 = s[n / 6 % 6], v2 = s[n / 36];
      const T xi[ns] = {v0, v1, T(5), T(5), v0, v1, v2};
      std::memcpy(x.data() + n * ns, xi, sizeof xi);
      p[n] = s[(n + n / 6) % 6];
    }
  }
  // What the rule gives.
  void expected(std::size_t n, T* dx, T* y) const {
    const T* xi = x.data() + n * ns;
    const T A = xi[0], Bv = xi[1], c = p[n], *v = xi + 4;
    const T lo = min_rule(min_rule(v[0], v[1]), v[2]), hi = max_rule(max_rule(v[0], v[1]), v[2]);
    const T d[ns] = {min_rule(A, Bv), max_rule(A, Bv), lo, hi, max_rule(v[0], c), max_rule(v[1], c), max_rule(v[2], c)};
    const T o[no] = {min_rule(Bv, A), max_rule(Bv, A), lo, hi, min_rule(v[0], c), min_rule(v[1], c), min_rule(v[2], c)};
    std::memcpy(dx, d, sizeof d);
    std::memcpy(y, o, sizeof o);
  }
};

template <class T>
std::vector<T> to_soa(const std::vector<T>& aos, std::size_t n, std::size_t pitch) {
  std::vector<T> s(n * pitch, T(-7));
  for (std::size_t k = 0; k < B; ++k)
    for (std::size_t e = 0; e < n; ++e) s[e * pitch + k] = aos[k * n + e];
  return s;
}
template <class T>
std::vector<T> from_soa(const std::vector<T>& soa, std::size_t n, std::size_t pitch) {
  std::vector<T> a(B * n);
  for (std::size_t k = 0; k < B; ++k)
    for (std::size_t e = 0; e < n; ++e) a[k * n + e] = soa[e * pitch + k];
  return a;
}
// Records of n values 2 apart (element stride 2), one instance at a time.
template <class T>
std::vector<T> spread(const std::vector<T>& aos, std::size_t n) {
  std::vector<T> s(2 * aos.size(), T(-7));
  for (std::size_t k = 0; k < aos.size(); ++k) s[2 * k] = aos[k];
  (void)n;
  return s;
}
template <class T>
std::vector<T> unspread(const std::vector<T>& s) {
  std::vector<T> a(s.size() / 2);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = s[2 * k];
  return a;
}

// Every value of `got` (AoS, n per instance) has the bits of `want`.
template <class T>
void check_bits(const char* path, const std::vector<T>& got, const std::vector<T>& want, std::size_t n) {
  REQUIRE(got.size() == want.size());
  std::size_t wrong = 0;
  std::string first;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!same_bits(got[k], want[k]) && wrong++ == 0)
      first = "instance " + std::to_string(k / n) + ", element " + std::to_string(k % n) + " is " + bits_text(got[k]) +
              ", expected " + bits_text(want[k]);
  INFO(path << ": " << wrong << " values differ, the first: " << first);
  CHECK(wrong == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("math::min and math::max: the rule on scalars, complex scalars and lanes", "[host][minmax]", double,
                   float) {
  using T = TestType;
  using L = fx::lanes<T>;
  constexpr std::size_t W = L::width;
  const auto s = specials<T>();
  for (const T x : s) {
    for (const T y : s) {
      INFO("x = " << bits_text(x) << ", y = " << bits_text(y));
      CHECK(same_bits(fx::math::min(x, y), min_rule(x, y)));
      CHECK(same_bits(fx::math::max(x, y), max_rule(x, y)));
      // Complex scalars compare real parts and return a whole operand.
      const std::complex<T> cx(x, T(2)), cy(y, T(3));
      const std::complex<T> cmin = fx::math::min(cx, cy), cmax = fx::math::max(cx, cy);
      const std::complex<T> want_min = (y < x || std::isnan(y)) ? cy : cx, want_max = (x < y || std::isnan(y)) ? cy : cx;
      CHECK(same_bits(cmin.real(), want_min.real()));
      CHECK(cmin.imag() == want_min.imag());
      CHECK(same_bits(cmax.real(), want_max.real()));
      CHECK(cmax.imag() == want_max.imag());
    }
  }
  // Lanes: every pair in some lane.
  std::vector<T> xs, ys;
  for (const T x : s)
    for (const T y : s) xs.push_back(x), ys.push_back(y);
  while (xs.size() % W != 0) xs.push_back(T(1)), ys.push_back(T(1));
  for (std::size_t g = 0; g < xs.size(); g += W) {
    const L lx = L::load(xs.data() + g), ly = L::load(ys.data() + g);
    const L mn = fx::math::min(lx, ly), mx = fx::math::max(lx, ly);
    for (std::size_t l = 0; l < W; ++l) {
      INFO("x = " << bits_text(xs[g + l]) << ", y = " << bits_text(ys[g + l]));
      CHECK(same_bits(mn[l], min_rule(xs[g + l], ys[g + l])));
      CHECK(same_bits(mx[l], max_rule(xs[g + l], ys[g + l])));
    }
  }
}

TEMPLATE_TEST_CASE("min and max through the host batch drivers equal one instance at a time and the rule, bit for bit",
                   "[host][minmax]", double, float) {
  using T = TestType;
  using M = fx::compiled<model, T>;
  static_assert(M::n_states == ns && M::n_params == np && M::n_observables == no);
  const instances<T> in;
  const T t(0);

  // One instance at a time, and the rule.
  std::vector<T> one_dx(B * ns), one_y(B * no), rule_dx(B * ns), rule_y(B * no);
  for (std::size_t n = 0; n < B; ++n) {
    M{}.rhs(t, in.x.data() + n * ns, in.p.data() + n, one_dx.data() + n * ns);
    M{}.observe(t, in.x.data() + n * ns, in.p.data() + n, one_y.data() + n * no);
    in.expected(n, rule_dx.data() + n * ns, rule_y.data() + n * no);
  }
  check_bits("M{}.rhs against the rule", one_dx, rule_dx, ns);
  check_bits("M{}.observe against the rule", one_y, rule_y, no);

  // Array-of-structures: right-hand sides through lanes (transposed), observables one at a time.
  for (const unsigned threads : {1u, 3u}) {
    INFO("threads(" << threads << ")");
    const fx::host::threads exec(threads, 1);
    std::vector<T> dx(B * ns, T(-7)), y(B * no, T(-7));
    fx::host::rhs(M{}, t, B, fx::aos(in.x), fx::aos(in.p), fx::aos(dx), exec);
    fx::host::observe(M{}, t, B, fx::aos(in.x), fx::aos(in.p), fx::aos(y), exec);
    check_bits("AoS rhs", dx, one_dx, ns);
    check_bits("AoS observe", y, one_y, no);

    // Structure-of-arrays: lanes; rows 600 values apart go through tiles.
    for (const std::size_t pitch : {B, std::size_t(600)}) {
      INFO("SoA pitch " << pitch);
      const auto xs = to_soa(in.x, ns, pitch), ps = to_soa(in.p, np, pitch);
      std::vector<T> dxs(ns * pitch, T(-7)), ys(no * pitch, T(-7));
      fx::host::rhs(M{}, t, B, fx::soa(xs, pitch), fx::soa(ps, pitch), fx::soa(dxs, pitch), exec);
      fx::host::observe(M{}, t, B, fx::soa(xs, pitch), fx::soa(ps, pitch), fx::soa(ys, pitch), exec);
      check_bits("SoA rhs", from_soa(dxs, ns, pitch), one_dx, ns);
      check_bits("SoA observe", from_soa(ys, no, pitch), one_y, no);
    }

    // Element stride 2: one instance at a time, any strides.
    const auto x2 = spread(in.x, ns), p2 = spread(in.p, np);
    std::vector<T> dx2(2 * B * ns, T(-7)), y2(2 * B * no, T(-7));
    fx::host::rhs(M{}, t, B, fx::strided(x2, 2, 2 * ns), fx::strided(p2, 2, 2 * np), fx::strided(dx2, 2, 2 * ns), exec);
    fx::host::observe(M{}, t, B, fx::strided(x2, 2, 2 * ns), fx::strided(p2, 2, 2 * np), fx::strided(y2, 2, 2 * no),
                      exec);
    check_bits("strided rhs", unspread(dx2), one_dx, ns);
    check_bits("strided observe", unspread(y2), one_y, no);
  }
}

TEST_CASE("the derivative of min and max takes the operand the value takes", "[host][minmax][derivatives]") {
  // d min(a, b) = where(a <= b, da, db), d max(a, b) = where(a >= b, da, db):
  // at a tie (+0 and -0 included) the first operand, as the value.
  using M = fx::compiled<model, double>;
  const instances<double> in;
  std::vector<double> J(ns * ns);
  for (std::size_t n = 0; n < B; ++n) {
    const double* xi = in.x.data() + n * ns;
    const double A = xi[0], Bv = xi[1];
    if (std::isnan(A) || std::isnan(Bv)) continue;
    INFO("a = " << bits_text(A) << ", b = " << bits_text(Bv));
    M{}.jac_x(0.0, xi, in.p.data() + n, J.data());
    const bool min_takes_a = !(Bv < A), max_takes_a = !(A < Bv);  // the rule, without NaN
    CHECK(J[0 * ns + 0] == (min_takes_a ? 1.0 : 0.0));
    CHECK(J[0 * ns + 1] == (min_takes_a ? 0.0 : 1.0));
    CHECK(J[1 * ns + 0] == (max_takes_a ? 1.0 : 0.0));
    CHECK(J[1 * ns + 1] == (max_takes_a ? 0.0 : 1.0));
  }
}
