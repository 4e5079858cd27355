// A `where` whose condition is constant along a loop of the plan
// (compile/plan.hpp hoists such subexpressions into scratch). The condition
// was hoisted whole and read back as a number: models like the ones below did
// not compile for std::complex (no `bool` of a complex number) nor for the
// SIMD lanes of fx::host::rhs (a number where a lane mask is needed). Found by
// the generated suite (tests/generated). Checked against the equations
// written out by hand, one instance, complex and SoA batches.
#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace {

using dom = fx::index<"a", 3>;
constexpr fx::ivar<dom, 0, "a"> a;
constexpr fx::ivar<dom, 1, "b"> b;
constexpr fx::state<"X", dom> X;
constexpr fx::state<"Y"> Y;
constexpr fx::param<"k"> k;
constexpr fx::param<"r", dom> r;

// pow(k, 0.3) > X(1) / 2 is constant along a, and so is sum(b, X(b)) > 3;
// the second condition also reads r(a) through `&&`, and `!` of a hoisted
// comparison.
constexpr auto mdl = fx::model(
    fx::states(X, Y), fx::params(k, r),
    fx::d(X(a)) = fx::where(fx::pow(k, 0.3) > X(1) / 2.0, k * X(a), -X(a) * Y) +
                  fx::where(fx::sum(b, X(b)) > 3.0 && r(a) < 1.0, X(a), 0.5 * Y) +
                  fx::where(!(fx::exp(k) < 2.0), r(a), Y),
    fx::d(Y) = fx::sum(a, fx::where(fx::sqrt(k) >= X(0), r(a) * X(a), Y)),
    fx::observe<"o">(a) = fx::where(fx::log(k + 1.0) <= Y, X(a), r(a)));

// Layout: X[0..2], Y; k, r[0..2]; o[0..2].
template <class T>
void hand_rhs(const T* x, const T* p, T* dx, T* y) {
  using std::exp, std::log, std::pow, std::real, std::sqrt;
  const T k0 = p[0], Y0 = x[3];
  const T sumX = x[0] + x[1] + x[2];
  for (int i = 0; i < 3; ++i) {
    const T ri = p[1 + i];
    T v = real(pow(k0, T(0.3))) > real(x[1] / T(2)) ? k0 * x[i] : -x[i] * Y0;
    v += (real(sumX) > 3.0 && real(ri) < 1.0) ? x[i] : T(0.5) * Y0;
    v += !(real(exp(k0)) < 2.0) ? ri : Y0;
    dx[i] = v;
    y[i] = real(log(k0 + T(1))) <= real(Y0) ? x[i] : ri;
  }
  T s = 0;
  for (int i = 0; i < 3; ++i) s += real(sqrt(k0)) >= real(x[0]) ? p[1 + i] * x[i] : Y0;
  dx[3] = s;
}

// Points on both sides of every condition.
struct point {
  std::vector<double> x, p;
};
std::vector<point> points() {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.1, 2.5);
  std::vector<point> out;
  for (int n = 0; n < 64; ++n) {
    point q{std::vector<double>(4), std::vector<double>(4)};
    for (double& v : q.x) v = u(rng);
    for (double& v : q.p) v = u(rng);
    out.push_back(q);
  }
  return out;
}

}  // namespace

TEST_CASE("Hoisted conditions evaluate like the written equations (double, complex)", "[host][where]") {
  using M = fx::compiled<mdl, double>;
  using MZ = fx::compiled<mdl, std::complex<double>>;
  using Z = std::complex<double>;
  int both_sides = 0;
  for (const auto& q : points()) {
    double dx[4], y[3], want_dx[4], want_y[3];
    M{}.rhs(0.0, q.x.data(), q.p.data(), dx);
    M{}.observe(0.0, q.x.data(), q.p.data(), y);
    hand_rhs(q.x.data(), q.p.data(), want_dx, want_y);
    for (int i = 0; i < 4; ++i) CHECK(std::abs(dx[i] - want_dx[i]) <= 1e-14 * (1 + std::abs(want_dx[i])));
    for (int i = 0; i < 3; ++i) CHECK(y[i] == want_y[i]);
    both_sides += std::pow(q.p[0], 0.3) > q.x[1] / 2 ? 1 : 0;

    // Complex step in x[2]: values and derivatives against the hand equations in complex.
    std::vector<Z> xz(q.x.begin(), q.x.end()), pz(q.p.begin(), q.p.end());
    xz[2] += Z(0, 1e-30);
    Z dz[4], yz[3], want_dz[4], want_yz[3];
    MZ{}.rhs(Z(0), xz.data(), pz.data(), dz);
    MZ{}.observe(Z(0), xz.data(), pz.data(), yz);
    hand_rhs(xz.data(), pz.data(), want_dz, want_yz);
    for (int i = 0; i < 4; ++i) {
      CHECK(std::abs(dz[i].real() - want_dz[i].real()) <= 1e-14 * (1 + std::abs(want_dz[i].real())));
      CHECK(std::abs(dz[i].imag() - want_dz[i].imag()) <= 1e-44 * (1 + std::abs(want_dz[i].imag())) + 1e-44);
    }
    for (int i = 0; i < 3; ++i) CHECK(yz[i] == want_yz[i]);
  }
  CHECK(both_sides > 8);   // the points take both branches
  CHECK(both_sides < 56);
}

TEST_CASE("Hoisted conditions in SIMD lanes: SoA batches equal one instance at a time", "[host][where][lanes]") {
  using M = fx::compiled<mdl, double>;
  const auto pts = points();
  const std::size_t B = pts.size();
  std::vector<double> xs(4 * B), ps(4 * B), dxs(4 * B), ys(3 * B);
  for (std::size_t n = 0; n < B; ++n)
    for (std::size_t i = 0; i < 4; ++i) {
      xs[i * B + n] = pts[n].x[i];
      ps[i * B + n] = pts[n].p[i];
    }
  fx::host::rhs(M{}, 0.0, B, fx::soa(xs), fx::soa(ps), fx::soa(dxs));
  fx::host::observe(M{}, 0.0, B, fx::soa(xs), fx::soa(ps), fx::soa(ys));
  for (std::size_t n = 0; n < B; ++n) {
    double want_dx[4], want_y[3];
    hand_rhs(pts[n].x.data(), pts[n].p.data(), want_dx, want_y);
    for (std::size_t i = 0; i < 4; ++i)
      CHECK(std::abs(dxs[i * B + n] - want_dx[i]) <= 1e-14 * (1 + std::abs(want_dx[i])));
    for (std::size_t i = 0; i < 3; ++i) CHECK(ys[i * B + n] == want_y[i]);
  }
}
