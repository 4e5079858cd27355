// A product's reduction in a stiff model, integrated in host SIMD lanes.
// The derivative of prod_k a(k) holds a condition on indices alone
// (where(k == j, 1, a(k))), which in lanes used to reach `cond ? a : b`
// with a lane value and not compile. Checked: Rosenbrock23 and Rodas5P in
// lanes agree with one trajectory at a time, and the Jacobian the lanes
// evaluate agrees with a hand-written one.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <vector>

#include <fluxion/fluxion.hpp>

namespace fx = fluxion;

namespace {

using cell = fx::index<"cell", 3>;
constexpr fx::ivar<cell, 0, "k"> k;
constexpr fx::state<"u", cell> u;
constexpr fx::param<"a", cell> a;
// du_k/dt = -a_k u_k prod_j 1 / (1 + u_j) + 0.1: every rate slowed by all cells.
constexpr auto damp = fx::alias<"damp">(fx::prod(k, 1.0 / (1.0 + u(k))));
constexpr auto model = fx::model(fx::states(u), fx::params(a), fx::d(u(k)) = -a(k) * u(k) * damp + 0.1);
using M = fx::compiled<model, double>;

// The same by hand.
void hand_rhs(const double* x, const double* p, double* dx) {
  const double d = 1.0 / ((1 + x[0]) * (1 + x[1]) * (1 + x[2]));
  for (int i = 0; i < 3; ++i) dx[i] = -p[i] * x[i] * d + 0.1;
}
void hand_jac(const double* x, const double* p, double* J) {
  const double d = 1.0 / ((1 + x[0]) * (1 + x[1]) * (1 + x[2]));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) J[i * 3 + j] = -p[i] * x[i] * (-d / (1 + x[j])) - (i == j ? p[i] * d : 0.0);
}

template <class Method>
void lanes_equal_one_at_a_time() {
  constexpr std::size_t B = 64;
  std::vector<double> x0(3 * B), p(3 * B);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < 3; ++i) {
      x0[i * B + b] = 0.5 + 0.1 * double(i) + 0.01 * double(b);
      p[i * B + b] = std::pow(10.0, double(i) + 0.05 * double(b));  // rates 1 to 1e4: stiff
    }
  const std::vector<double> ts = {0.5, 1.0};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = 1e-8, .atol = 1e-10};
  fx::host::threads lanes(1), one(1);
  one.simd_lanes = false;
  const auto rl = fx::host::integrate(M{}, Method{}, pr, B, fx::soa(std::span<const double>(x0)),
                                      fx::soa(std::span<const double>(p)), lanes);
  const auto r1 = fx::host::integrate(M{}, Method{}, pr, B, fx::soa(std::span<const double>(x0)),
                                      fx::soa(std::span<const double>(p)), one);
  REQUIRE(rl.all_succeeded());
  REQUIRE(r1.all_succeeded());
  for (std::size_t i = 0; i < rl.final_state.size(); ++i) {
    const double scale = std::max(1.0, std::abs(r1.final_state[i]));
    CHECK(std::abs(rl.final_state[i] - r1.final_state[i]) <= 1e-9 * scale);
  }
}

}  // namespace

TEST_CASE("a product's reduction: the Jacobian matches a hand-written one") {
  const double x[3] = {0.3, 1.7, 0.9}, p[3] = {2.0, 30.0, 400.0};
  double J[9], H[9], dx[3], hx[3];
  M{}.jacobian_dense<M::jacobian::x>(0.0, x, 1, p, 1, J, 1);
  hand_jac(x, p, H);
  M{}.rhs(0.0, x, p, dx);
  hand_rhs(x, p, hx);
  for (int i = 0; i < 3; ++i) CHECK(std::abs(dx[i] - hx[i]) <= 1e-14 * std::max(1.0, std::abs(hx[i])));
  for (int i = 0; i < 9; ++i) CHECK(std::abs(J[i] - H[i]) <= 1e-13 * std::max(1.0, std::abs(H[i])));
}

TEST_CASE("a product's reduction in lanes: Rosenbrock23 equals one trajectory at a time") {
  lanes_equal_one_at_a_time<fx::rosenbrock23>();
}

TEST_CASE("a product's reduction in lanes: Rodas5P equals one trajectory at a time") {
  lanes_equal_one_at_a_time<fx::rodas5p>();
}
