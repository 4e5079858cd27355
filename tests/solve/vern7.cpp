// Verner's 7(6) pair (fx::vern7) on the host (fx::host::integrate): its
// tableau checked against the Runge-Kutta order conditions, written here
// from Butcher's rooted trees (the checker first shown right on Tsit5);
// closed-form solutions at tolerances 1e-10 to 1e-12 (linear decay, the
// harmonic oscillator, logistic growth, a non-autonomous Riccati equation),
// float and double; the convergence orders of the step and of the dense
// output, measured with fixed steps, globally and over one step; the cost
// in right-hand sides, counted exactly (extra stages only for a step with a
// save time inside it) and against Tsit5's at rtol 1e-10.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "support/closed_form_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// y' = -k y; x'' = -w^2 x as (x, v); y' = r y (1 - y / K); y' = k y^2
// (blowup: infinite at t = 1 / (k y0)).
using closed_form_models::blowup;
using closed_form_models::decay;
using closed_form_models::k;
using closed_form_models::logistic;
using closed_form_models::oscillator;
using closed_form_models::y;

// y' = -k t y^2: y = 1 / (1 / y0 + k t^2 / 2) from t = 0. Nonlinear and
// non-autonomous, so every stage's time (c) matters.
constexpr auto riccati = fx::model(fx::states(y), fx::params(k), fx::d(y) = -k * fx::t * y * y);

double logistic_exact(double t, double rr, double kk, double y0) {
  return kk / (1 + (kk / y0 - 1) * std::exp(-rr * t));
}
double riccati_exact(double t, double kk, double y0) { return 1 / (1 / y0 + kk * t * t / 2); }

template <class M, class Method = fx::vern7, class T = typename M::scalar>
fx::ensemble_result<T> solve_soa(const fx::ode_problem<T>& pr, std::size_t B, const std::vector<T>& x0,
                                 const std::vector<T>& p, Method method = {},
                                 fx::host::threads exec = fx::host::threads{}) {
  return fx::host::integrate(M{}, method, pr, B, fx::soa(std::span<const T>(x0)), fx::soa(std::span<const T>(p)),
                             exec);
}

// ---------------------------------------------------------------------------
// Order conditions from rooted trees (Butcher; Hairer, Norsett & Wanner I,
// II.2): a tree of order q is a multiset of subtrees; its elementary weight
// at stage i is Phi_i(t) = prod over subtrees u of sum_j a_ij Phi_j(u), and a
// method of order p has sum_i b_i Phi_i(t) = 1 / gamma(t) for every tree of
// order q <= p, gamma(t) = q prod_u gamma(u). A continuous extension of order
// p has sum_i w_i(theta) Phi_i(t) = theta^q / gamma(t).
using real = long double;

struct rooted_tree {
  int order;
  real gamma;
  std::vector<int> children;  // indices of earlier trees, nondecreasing
};

// Every rooted tree of order 1 .. max_order, each once, by order.
std::vector<rooted_tree> rooted_trees(int max_order) {
  std::vector<rooted_tree> all = {{1, 1, {}}};
  for (int q = 2; q <= max_order; ++q) {
    const std::size_t known = all.size();
    std::vector<int> pick;
    // Multisets of known trees (nondecreasing indices) with orders summing to q - 1.
    auto extend = [&](auto&& self, int remaining, std::size_t from) -> void {
      if (remaining == 0) {
        real g = q;
        for (int c : pick) g *= all[std::size_t(c)].gamma;
        all.push_back({q, g, pick});
        return;
      }
      for (std::size_t t = from; t < known; ++t)
        if (all[t].order <= remaining) {
          pick.push_back(int(t));
          self(self, remaining - all[t].order, t);
          pick.pop_back();
        }
    };
    extend(extend, q - 1, 0);
  }
  return all;
}

// A tableau's a (s x s) and its elementary weights Phi(t) for every tree.
struct tableau_weights {
  std::vector<std::vector<real>> phi;  // [tree][stage]
  tableau_weights(const std::vector<rooted_tree>& trees, const std::vector<std::vector<real>>& a) {
    const std::size_t s = a.size();
    for (const auto& t : trees) {
      std::vector<real> p(s, 1);
      for (int c : t.children)
        for (std::size_t i = 0; i < s; ++i) {
          real sum = 0;
          for (std::size_t j = 0; j < s; ++j) sum += a[i][j] * phi[std::size_t(c)][j];
          p[i] *= sum;
        }
      phi.push_back(p);
    }
  }
  // sum_i w_i Phi_i(t) - theta^q / gamma(t)
  real defect(const std::vector<rooted_tree>& trees, std::size_t t, const std::vector<real>& wts, real theta) const {
    real sum = 0;
    for (std::size_t i = 0; i < wts.size(); ++i) sum += wts[i] * phi[t][i];
    return sum - std::pow(theta, real(trees[t].order)) / trees[t].gamma;
  }
};

template <class Method, int D>
std::vector<std::vector<real>> a_of() {
  std::vector<std::vector<real>> a(D, std::vector<real>(D, 0));
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) a[std::size_t(i)][std::size_t(j)] = Method::a[i][j];
  return a;
}
template <class Method, int D>
std::vector<real> dense_weights_at(real theta) {
  real wt[D];
  Method::dense_weights(theta, wt);
  return std::vector<real>(wt, wt + D);
}

// The largest |defect| over the trees of order q.
real worst_defect(const std::vector<rooted_tree>& trees, const tableau_weights& tw, int q, const std::vector<real>& wts,
                  real theta = 1) {
  real worst = 0;
  for (std::size_t t = 0; t < trees.size(); ++t)
    if (trees[t].order == q) worst = std::max(worst, std::abs(tw.defect(trees, t, wts, theta)));
  return worst;
}

}  // namespace

TEST_CASE("the rooted trees: 1, 1, 2, 4, 9, 20, 48 of orders 1 to 7") {
  const auto trees = rooted_trees(7);
  int count[8] = {};
  for (const auto& t : trees) ++count[t.order];
  CHECK(count[1] == 1);
  CHECK(count[2] == 1);
  CHECK(count[3] == 2);
  CHECK(count[4] == 4);
  CHECK(count[5] == 9);
  CHECK(count[6] == 20);
  CHECK(count[7] == 48);
}

TEST_CASE("the order-condition checker on Tsit5: order 5, estimate 4, dense output 4") {
  using m = fx::tsit5;
  const auto trees = rooted_trees(6);
  const tableau_weights tw(trees, a_of<m, 7>());
  std::vector<real> b(m::b, m::b + 7), bhat(7);
  for (int i = 0; i < 7; ++i) bhat[std::size_t(i)] = real(m::b[i]) - real(m::e[i]);
  for (int q = 1; q <= 5; ++q) CHECK(worst_defect(trees, tw, q, b) < 1e-13L);
  CHECK(worst_defect(trees, tw, 6, b) > 1e-5L);
  for (int q = 1; q <= 4; ++q) CHECK(worst_defect(trees, tw, q, bhat) < 1e-13L);
  CHECK(worst_defect(trees, tw, 5, bhat) > 1e-5L);
  for (real theta : {0.2L, 0.5L, 0.8L}) {
    const auto wt = dense_weights_at<m, 7>(theta);
    for (int q = 1; q <= 4; ++q) CHECK(worst_defect(trees, tw, q, wt, theta) < 1e-13L);
    CHECK(worst_defect(trees, tw, 5, wt, theta) > 1e-7L);
  }
}

TEST_CASE("Vern7's tableau: row sums, weights and order conditions from its coefficients") {
  using m = fx::vern7;
  constexpr int S = m::stages, D = m::dense_stages;
  STATIC_REQUIRE(S == 10);
  STATIC_REQUIRE(D == 16);
  // Rows sum to c, for the step's stages and the extra ones.
  // (to the rounding of the coefficients to double: 2^-53 of their magnitudes)
  for (int i = 0; i < D; ++i) {
    real sum = 0, magnitude = 0;
    for (int j = 0; j < D; ++j) {
      if (j >= i) CHECK(m::a[i][j] == 0.0);  // explicit
      sum += m::a[i][j];
      magnitude += std::abs(real(m::a[i][j]));
    }
    INFO("row " << i);
    CHECK(std::abs(sum - real(m::c[i])) <= 0x1p-53L * (magnitude + 1));
  }
  real bsum = 0, esum = 0;
  for (int i = 0; i < S; ++i) bsum += m::b[i], esum += m::e[i];
  CHECK(std::abs(bsum - 1) < 1e-15L);
  CHECK(std::abs(esum) < 1e-15L);  // b_hat sums to 1 as well
  // The first extra stage is f at the new point: c = 1, a = b, bit for bit
  // (the step reuses it as the next step's first stage).
  CHECK(m::c[S] == 1.0);
  for (int j = 0; j < S; ++j) CHECK(m::a[S][j] == m::b[j]);
  STATIC_REQUIRE(fx::explicit_rk_step<m, fx::compiled<decay, double>>::reuse_new_point);

  const auto trees = rooted_trees(8);
  const tableau_weights tw(trees, a_of<m, D>());
  std::vector<real> b(D, 0), bhat(D, 0);
  for (int i = 0; i < S; ++i) b[std::size_t(i)] = m::b[i], bhat[std::size_t(i)] = real(m::b[i]) - real(m::e[i]);
  SECTION("the solution has order 7, not 8; the estimate order 6, not 7") {
    for (int q = 1; q <= 7; ++q) {
      INFO("order " << q << ": worst defect " << double(worst_defect(trees, tw, q, b)));
      CHECK(worst_defect(trees, tw, q, b) < 1e-13L);
    }
    CHECK(worst_defect(trees, tw, 8, b) > 1e-6L);
    for (int q = 1; q <= 6; ++q) {
      INFO("order " << q << ": worst defect " << double(worst_defect(trees, tw, q, bhat)));
      CHECK(worst_defect(trees, tw, q, bhat) < 1e-13L);
    }
    CHECK(worst_defect(trees, tw, 7, bhat) > 1e-5L);
  }
  SECTION("the interpolant: w(0) = 0, w(1) = b, the conditions of order 6 at every theta") {
    const auto w0 = dense_weights_at<m, D>(0), w1 = dense_weights_at<m, D>(1);
    for (int i = 0; i < D; ++i) {
      CHECK(w0[std::size_t(i)] == 0);
      CHECK(std::abs(w1[std::size_t(i)] - b[std::size_t(i)]) < 1e-15L);
    }
    for (int q = 1; q <= 7; ++q) CHECK(worst_defect(trees, tw, q, w1, 1) < 1e-13L);
    for (int s = 1; s < 20; ++s) {
      const real theta = real(s) / 20;
      const auto wt = dense_weights_at<m, D>(theta);
      for (int q = 1; q <= 6; ++q) {
        INFO("theta " << double(theta) << ", order " << q);
        CHECK(worst_defect(trees, tw, q, wt, theta) < 1e-13L);
      }
    }
  }
  SECTION("the interpolant misses 12 of the 48 conditions of order 7 between the ends, by at most 2.8e-7") {
    real worst = 0;
    for (int s = 1; s < 100; ++s) {
      const real theta = real(s) / 100;
      worst = std::max(worst, worst_defect(trees, tw, 7, dense_weights_at<m, D>(theta), theta));
    }
    UNSCOPED_INFO("largest defect of order 7 for theta in (0, 1): " << double(worst));
    CHECK(worst < 2.8e-7L);
    CHECK(worst > 2.7e-7L);
    const real third = 1.0L / 3;
    const auto wt = dense_weights_at<m, D>(third);
    int missed = 0;
    for (std::size_t t = 0; t < trees.size(); ++t)
      if (trees[t].order == 7) {
        const real d = std::abs(tw.defect(trees, t, wt, third));
        // Either held to rounding, or missed by more than 1e-9.
        CHECK((d < 1e-13L || d > 1e-9L));
        missed += d > 1e-9L;
      }
    CHECK(missed == 12);
  }
}

TEST_CASE("linear decay matches its closed form at rtol 1e-12, trajectory by trajectory") {
  using M = fx::compiled<decay, double>;
  constexpr std::size_t B = 32;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.1, 5.0);
  std::vector<double> x0(B), p(B);
  for (auto& e : x0) e = u(rng);
  for (auto& e : p) e = u(rng);
  const std::vector<double> ts = {0.0, 0.1, 0.37, 1.0, 1.9, 2.5, 3.0};
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 3, .save_times = ts, .rtol = 1e-12, .atol = 1e-14};
  const auto res = solve_soa<M>(pr, B, x0, p);
  REQUIRE(res.all_succeeded());
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double exact = x0[b] * std::exp(-p[b] * ts[s]);
      worst = std::max(worst, std::abs(res.saved(s, 0, b) - exact) / exact);
    }
  UNSCOPED_INFO("largest relative error " << worst);
  CHECK(worst < 1e-10);
}

TEST_CASE("the harmonic oscillator over ten periods at rtol 1e-11, at 200 save times") {
  using M = fx::compiled<oscillator, double>;
  constexpr std::size_t B = 5;
  const std::vector<double> x0 = {1, 0.5, -2, 0, 3, /* v */ 0, 1, 0.25, -1, 2};
  const std::vector<double> p = {1, 2, 0.5, 3, 1.7};
  std::vector<double> ts(200);
  for (std::size_t s = 0; s < ts.size(); ++s) ts[s] = 20.0 * double(s + 1) / 200.0;
  fx::ode_problem<double> pr{.t0 = 0, .t1 = 20, .save_times = ts, .rtol = 1e-11, .atol = 1e-11};
  const auto res = solve_soa<M>(pr, B, x0, p);
  REQUIRE(res.all_succeeded());
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b) {
    const double om = p[b], a = x0[b], c = x0[B + b] / om;
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double t = ts[s], scale = std::sqrt(a * a + c * c);
      worst = std::max(worst, std::abs(res.saved(s, 0, b) - (a * std::cos(om * t) + c * std::sin(om * t))) / scale);
      worst = std::max(worst, std::abs(res.saved(s, 1, b) - om * (-a * std::sin(om * t) + c * std::cos(om * t))) /
                                  (om * scale));
    }
  }
  UNSCOPED_INFO("largest error relative to the amplitude " << worst);
  CHECK(worst < 1e-10);
}

TEST_CASE("logistic growth and a non-autonomous Riccati equation at rtol 1e-10, float at 1e-6") {
  const std::vector<double> ts = {0.25, 0.5, 1, 2, 3.3, 4, 8};
  SECTION("double") {
    using L = fx::compiled<logistic, double>;
    const std::vector<double> x0 = {0.01, 0.5, 2.0}, p = {1.5, 0.7, 2.0, /* K */ 1.0, 3.0, 1.0};
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 8, .save_times = ts, .rtol = 1e-10, .atol = 1e-12};
    const auto res = solve_soa<L>(pr, 3, x0, p);
    REQUIRE(res.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(res.saved(s, 0, b), WithinRel(logistic_exact(ts[s], p[b], p[3 + b], x0[b]), 1e-9));

    using R = fx::compiled<riccati, double>;
    const std::vector<double> y0 = {1.0, 0.2, 3.0}, kk = {1.0, 4.0, 0.3};
    const auto rr = solve_soa<R>(pr, 3, y0, kk);
    REQUIRE(rr.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(rr.saved(s, 0, b), WithinRel(riccati_exact(ts[s], kk[b], y0[b]), 1e-9));
  }
  SECTION("float") {
    std::vector<float> tsf(ts.begin(), ts.end());
    fx::ode_problem<float> pr{.t0 = 0, .t1 = 8, .save_times = tsf, .rtol = 1e-6f, .atol = 1e-7f};
    using L = fx::compiled<logistic, float>;
    const std::vector<float> x0 = {0.01f, 0.5f, 2.0f}, p = {1.5f, 0.7f, 2.0f, 1.0f, 3.0f, 1.0f};
    const auto res = solve_soa<L>(pr, 3, x0, p);
    REQUIRE(res.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(double(res.saved(s, 0, b)), WithinRel(logistic_exact(ts[s], p[b], p[3 + b], x0[b]), 1e-5));

    using R = fx::compiled<riccati, float>;
    const std::vector<float> y0 = {1.0f, 0.2f, 3.0f}, kk = {1.0f, 4.0f, 0.3f};
    const auto rr = solve_soa<R>(pr, 3, y0, kk);
    REQUIRE(rr.all_succeeded());
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t s = 0; s < ts.size(); ++s)
        CHECK_THAT(double(rr.saved(s, 0, b)), WithinRel(riccati_exact(ts[s], kk[b], y0[b]), 1e-5));
  }
}

namespace {

// Fixed steps h over [0, t1] on the oscillator (w = 1, x = cos t): the error
// at t1, and the worst error of the dense output at points 0.37 of the way
// into steps. Returns the slopes of log error against log h between the
// first and the last step size.
struct slopes {
  double step, dense;
};
template <class T>
slopes global_orders(const std::vector<double>& steps, double t1) {
  using M = fx::compiled<oscillator, T>;
  const std::vector<T> x0 = {T(1), T(0)}, p = {T(1)};
  std::vector<double> end_err, dense_err;
  for (double h : steps) {
    std::vector<T> ts;
    for (double t = 0.37 * h; t < t1; t += 3 * h) ts.push_back(T(t));
    fx::ode_problem<T> pr{.t0 = 0, .t1 = T(t1), .save_times = ts, .initial_step = T(h), .adaptive = false};
    const auto res = solve_soa<M>(pr, 1, x0, p);
    REQUIRE(res.status[0] == fx::solve_status::success);
    REQUIRE(res.stats[0].accepted == std::int32_t(std::llround(t1 / h)));
    end_err.push_back(std::abs(double(res.final_value(0, 0)) - std::cos(t1)));
    double worst = 0;
    for (std::size_t s = 0; s < ts.size(); ++s)
      worst = std::max(worst, std::abs(double(res.saved(s, 0, 0)) - std::cos(double(ts[s]))));
    dense_err.push_back(worst);
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    UNSCOPED_INFO("h " << steps[i] << ": error at t1 " << end_err[i] << ", dense output " << dense_err[i]);
  const double span = std::log(steps.front() / steps.back());
  return {std::log(end_err.front() / end_err.back()) / span, std::log(dense_err.front() / dense_err.back()) / span};
}

// One step of each h from the exact state at t0 (the local error), and the
// dense output at t0 + theta h: the slopes of log error against log h.
// Integrate(t0, h, theta, x0, end, at_theta) runs the step; exact(t) is the
// closed form.
template <class Real, class Integrate, class Exact>
slopes local_orders(const std::vector<Real>& steps, Real t0, Real theta, const Integrate& integrate,
                    const Exact& exact) {
  std::vector<Real> end_err, dense_err;
  for (Real h : steps) {
    const auto x0 = exact(t0), at_end = exact(t0 + h), at_theta = exact(t0 + theta * h);
    auto end = x0, mid = x0;
    integrate(t0, h, theta, x0, end, mid);
    Real e1 = 0, e2 = 0;
    for (std::size_t i = 0; i < x0.size(); ++i) {
      e1 = std::max(e1, std::abs(end[i] - at_end[i]));
      e2 = std::max(e2, std::abs(mid[i] - at_theta[i]));
    }
    end_err.push_back(e1);
    dense_err.push_back(e2);
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    UNSCOPED_INFO("h " << double(steps[i]) << ": local error " << double(end_err[i]) << ", dense output at theta "
                       << double(theta) << " " << double(dense_err[i]));
  const Real span = std::log(steps.front() / steps.back());
  return {double(std::log(end_err.front() / end_err.back()) / span),
          double(std::log(dense_err.front() / dense_err.back()) / span)};
}

// The oscillator x' = v, v' = -x written by hand in long double, with what
// the step and the driver ask of a model (fx::compiled is float or double):
// rounding then stays below the interpolant's h^7 term.
struct long_double_oscillator {
  using scalar = long double;
  static constexpr std::size_t n_states = 2, n_params = 0;
  void rhs(scalar, const scalar* x, std::ptrdiff_t xs, const scalar*, std::ptrdiff_t, scalar* dx,
           std::ptrdiff_t dxs) const {
    dx[0] = x[xs];
    dx[dxs] = -x[0];
  }
};

}  // namespace

TEST_CASE("Vern7 converges with order 7, its dense output with order 7, in double and float") {
  const auto d = global_orders<double>({0.5, 0.25, 0.125, 0.0625}, 10.0);
  UNSCOPED_INFO("double: slope of the error at t1 " << d.step << ", of the dense output " << d.dense);
  CHECK(d.step > 6.8);
  CHECK(d.step < 7.6);
  CHECK(d.dense > 6.8);
  CHECK(d.dense < 7.6);
  // In float, 7th-order errors meet float's rounding (about 1e-6 after a few
  // dozen steps) by h = 1: one halving from h = 2.
  const auto f = global_orders<float>({2.0, 1.0}, 10.0);
  UNSCOPED_INFO("float: slope of the error at t1 " << f.step << ", of the dense output " << f.dense);
  CHECK(f.step > 6.5);
  CHECK(f.dense > 6.5);
}

TEST_CASE("over one step, the local error falls as h^8; the dense output's as h^8 here and h^7 as h -> 0") {
  SECTION("the Riccati equation, nonlinear and non-autonomous, in double") {
    using M = fx::compiled<riccati, double>;
    const auto exact = [](double t) { return std::vector<double>{riccati_exact(t, 1, 1)}; };
    const auto integrate = [](double t0, double h, double theta, const std::vector<double>& x0,
                              std::vector<double>& end, std::vector<double>& mid) {
      const std::vector<double> ts = {t0 + theta * h}, p = {1.0};
      fx::ode_problem<double> pr{.t0 = t0, .t1 = t0 + h, .save_times = ts, .initial_step = h, .adaptive = false};
      const auto res = solve_soa<M>(pr, 1, x0, p);
      REQUIRE(res.status[0] == fx::solve_status::success);
      REQUIRE(res.stats[0].accepted == 1);
      end[0] = res.final_value(0, 0);
      mid[0] = res.saved(0, 0, 0);
    };
    const auto o = local_orders<double>({0.4, 0.2, 0.1}, 0.3, 0.37, integrate, exact);
    UNSCOPED_INFO("slope of the local error " << o.step << ", of the dense output " << o.dense);
    CHECK(o.step > 7.6);
    CHECK(o.step < 9.0);
    CHECK(o.dense > 7.6);
    CHECK(o.dense < 9.0);
  }
  SECTION("the oscillator in long double: the interpolant's missed conditions of order 7 show") {
    // For a linear problem only the tall trees count, and the chain of 7 is
    // among the interpolant's 12 missed conditions: at theta = 1/3 its local
    // error falls as h^7, the step's as h^8 (the step and driver run as
    // fx::host::integrate runs them, on a model written by hand).
    using M = long_double_oscillator;
    using real = long double;
    const auto exact = [](real t) { return std::vector<real>{std::cos(t), -std::sin(t)}; };
    const auto integrate = [](real t0, real h, real theta, const std::vector<real>& x0, std::vector<real>& end,
                              std::vector<real>& mid) {
      const real ts = t0 + theta * h;
      fx::ode_options<real> o;
      o.t0 = t0;
      o.t1 = t0 + h;
      o.save_times = &ts;
      o.n_save = 1;
      o.initial_step = h;
      o.adaptive = false;
      const fx::trajectory_io<real> io{x0.data(), 1, nullptr, 1, mid.data(), 1, 2, end.data(), 1};
      fx::solve_statistics st;
      REQUIRE(fx::stepper_of<fx::vern7, M>::type::run(M{}, o, io, st) == fx::solve_status::success);
      REQUIRE(st.accepted == 1);
      REQUIRE(st.rhs_evaluations == 1 + 9 + 6);
    };
    const real third = 1.0L / 3;
    const auto o = local_orders<real>({0.4L, 0.2L, 0.1L, 0.05L}, 0.3L, third, integrate, exact);
    UNSCOPED_INFO("slope of the local error " << o.step << ", of the dense output " << o.dense);
    CHECK(o.step > 7.7);
    CHECK(o.step < 8.3);
    CHECK(o.dense > 6.7);
    CHECK(o.dense < 7.5);
  }
}

TEST_CASE("right-hand sides: 9 an attempt, 1 an accepted step, 5 or 6 more for a step with a save time inside") {
  using M = fx::compiled<riccati, double>;
  const std::vector<double> x0 = {1.0}, p = {1.0};
  const auto run = [&](const std::vector<double>& ts, bool to_save_times) {
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts, .initial_step = 0.1, .adaptive = false,
                               .step_to_save_times = to_save_times};
    const auto res = solve_soa<M>(pr, 1, x0, p);
    REQUIRE(res.status[0] == fx::solve_status::success);
    return res;
  };
  // 10 steps: f(t0), then 9 stages a step and f at each new point but the last.
  const auto plain = run({}, false);
  CHECK(plain.stats[0].accepted == 10);
  CHECK(plain.stats[0].rhs_evaluations == 1 + 10 * 9 + 9);
  // Save times on step ends (and t0) cost nothing.
  const auto ends = run({0.0, 0.2, 0.5, 1.0}, false);
  CHECK(ends.stats[0].rhs_evaluations == plain.stats[0].rhs_evaluations);
  // Two save times inside one step, one inside another: 6 extra stages each,
  // the first of which is the next step's f at the new point.
  const std::vector<double> inside = {0.05, 0.07, 0.55};
  const auto two = run(inside, false);
  CHECK(two.stats[0].rhs_evaluations == plain.stats[0].rhs_evaluations + 2 * 5);
  // Inside the last step: no next step to reuse f at the new point.
  const auto last = run({0.95}, false);
  CHECK(last.stats[0].rhs_evaluations == plain.stats[0].rhs_evaluations + 6);
  // Saving inside steps leaves the trajectory unchanged, bit for bit.
  CHECK(two.final_state == plain.final_state);
  CHECK(last.final_state == plain.final_state);
  for (std::size_t s = 0; s < inside.size(); ++s)
    CHECK_THAT(two.saved(s, 0, 0), WithinAbs(riccati_exact(inside[s], 1, 1), 1e-11));
  // Steps cut to end on the save times: no extra stages.
  const auto cut = run(inside, true);
  const int steps = cut.stats[0].accepted;
  CHECK(steps == 12);  // ends 0.05, 0.07, 0.17, ..., 0.47, 0.55, 0.65, ..., 0.95, 1
  CHECK(cut.stats[0].rhs_evaluations == 1 + steps * 9 + steps - 1);
}

TEST_CASE("adaptive steps: save times change the cost but not the steps; Vern7 beats Tsit5 at rtol 1e-10") {
  std::vector<double> ts(100);
  for (std::size_t s = 0; s < ts.size(); ++s) ts[s] = 0.2 * double(s) + 0.013;
  SECTION("the oscillator over ten periods") {
    using M = fx::compiled<oscillator, double>;
    const std::vector<double> x0 = {1, 0}, p = {std::acos(-1.0) / 10};  // period 20
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 200, .rtol = 1e-10, .atol = 1e-10};
    const auto bare = solve_soa<M>(pr, 1, x0, p);
    std::vector<double> tsl(ts);
    for (auto& t : tsl) t *= 10;
    pr.save_times = tsl;
    const auto saved = solve_soa<M>(pr, 1, x0, p);
    const auto tsit = solve_soa<M>(pr, 1, x0, p, fx::tsit5{});
    REQUIRE(bare.all_succeeded());
    REQUIRE(saved.all_succeeded());
    REQUIRE(tsit.all_succeeded());
    CHECK(saved.stats[0].accepted == bare.stats[0].accepted);
    CHECK(saved.stats[0].rejected == bare.stats[0].rejected);
    CHECK(saved.final_state == bare.final_state);
    CHECK(saved.stats[0].rhs_evaluations > bare.stats[0].rhs_evaluations);
    UNSCOPED_INFO("rhs: Vern7 " << saved.stats[0].rhs_evaluations << " (" << bare.stats[0].rhs_evaluations
                                << " without save times), Tsit5 " << tsit.stats[0].rhs_evaluations);
    CHECK(saved.stats[0].rhs_evaluations * 3 < tsit.stats[0].rhs_evaluations * 2);
    double ev = 0, et = 0;
    for (std::size_t s = 0; s < tsl.size(); ++s) {
      ev = std::max(ev, std::abs(saved.saved(s, 0, 0) - std::cos(p[0] * tsl[s])));
      et = std::max(et, std::abs(tsit.saved(s, 0, 0) - std::cos(p[0] * tsl[s])));
    }
    UNSCOPED_INFO("largest error: Vern7 " << ev << ", Tsit5 " << et);
    CHECK(ev < 2e-9);
  }
  SECTION("logistic growth and the Riccati equation") {
    using L = fx::compiled<logistic, double>;
    using R = fx::compiled<riccati, double>;
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 20, .save_times = ts, .rtol = 1e-10, .atol = 1e-12};
    const std::vector<double> x0 = {0.01}, p = {1.5, 1.0};
    const auto lv = solve_soa<L>(pr, 1, x0, p), lt = solve_soa<L>(pr, 1, x0, p, fx::tsit5{});
    const std::vector<double> y0 = {2.0}, kk = {3.0};
    const auto rv = solve_soa<R>(pr, 1, y0, kk), rt = solve_soa<R>(pr, 1, y0, kk, fx::tsit5{});
    REQUIRE(lv.all_succeeded());
    REQUIRE(lt.all_succeeded());
    REQUIRE(rv.all_succeeded());
    REQUIRE(rt.all_succeeded());
    UNSCOPED_INFO("logistic rhs: Vern7 " << lv.stats[0].rhs_evaluations << ", Tsit5 " << lt.stats[0].rhs_evaluations);
    UNSCOPED_INFO("Riccati rhs: Vern7 " << rv.stats[0].rhs_evaluations << ", Tsit5 " << rt.stats[0].rhs_evaluations);
    CHECK(lv.stats[0].rhs_evaluations < lt.stats[0].rhs_evaluations);
    CHECK(rv.stats[0].rhs_evaluations < rt.stats[0].rhs_evaluations);
    for (std::size_t s = 0; s < ts.size(); ++s) {
      CHECK_THAT(lv.saved(s, 0, 0), WithinRel(logistic_exact(ts[s], 1.5, 1.0, 0.01), 1e-9));
      CHECK_THAT(rv.saved(s, 0, 0), WithinRel(riccati_exact(ts[s], 3.0, 2.0), 1e-9));
    }
  }
}

TEST_CASE("Vern7 stops like Tsit5: a blow-up, the step budget; threads give the same trajectories") {
  SECTION("step_too_small: y' = y^2 from 1 past its blow-up at t = 1") {
    using M = fx::compiled<blowup, double>;
    const std::vector<double> ts = {0.5, 1.5};
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .save_times = ts};
    const auto res = solve_soa<M>(pr, 1, {1.0}, {1.0});
    CHECK(res.status[0] == fx::solve_status::step_too_small);
    CHECK_THAT(res.saved(0, 0, 0), WithinRel(2.0, 1e-5));
    CHECK(std::isnan(res.saved(1, 0, 0)));
    CHECK(res.final_value(0, 0) > 1e6);
  }
  SECTION("max_steps") {
    using M = fx::compiled<decay, double>;
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e3, .max_steps = 5};
    const auto res = solve_soa<M>(pr, 1, {1.0}, {1.0});
    CHECK(res.status[0] == fx::solve_status::max_steps);
    CHECK(res.stats[0].accepted + res.stats[0].rejected == 5);
  }
  SECTION("threads") {
    using M = fx::compiled<oscillator, double>;
    constexpr std::size_t B = 40;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.5, 2.0);
    std::vector<double> x0(2 * B), p(B);
    for (auto& e : x0) e = u(rng);
    for (auto& e : p) e = u(rng);
    const std::vector<double> ts = {0.3, 1.1, 2.0, 4.7};
    fx::ode_problem<double> pr{.t0 = 0, .t1 = 5, .save_times = ts, .rtol = 1e-9, .atol = 1e-9};
    const auto one = solve_soa<M>(pr, B, x0, p, fx::vern7{}, fx::host::threads(1));
    const auto two = solve_soa<M>(pr, B, x0, p, fx::vern7{}, fx::host::threads(2, 1));
    REQUIRE(one.all_succeeded());
    CHECK(one.saved_states == two.saved_states);
    CHECK(one.final_state == two.final_state);
  }
}
