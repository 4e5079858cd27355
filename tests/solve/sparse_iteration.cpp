// Rosenbrock steps whose iteration matrix is factored by the state
// Jacobian's compile-time pattern (solve/iteration_matrix.hpp, sparse_lu):
// which models get it, and the stiff stage model (tests/support/stage_model.hpp,
// 15 states, a sparse ring-and-chain Jacobian) integrated by Rodas5P and
// Rosenbrock23 against an independent reference, a classical RK4 of the
// hand-written right-hand side at a step far below the fastest time scale;
// the convergence orders with fixed steps (2 and 5; a factorization that
// were wrong would leave a W-method of lower order, which step-size control
// alone can hide); and in SIMD lanes, bit for bit as one trajectory at a
// time.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include "support/brusselator_line.hpp"
#include "support/identical_results.hpp"
#include "support/stage_model.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;
namespace sm = stage_model;

namespace {

using hierarchical = fx::compiled<sm::hierarchical, double>;
using flat = fx::compiled<sm::flat, double>;

// The stage model's W: 42 structural non-zeros of 225, 56 after fill-in.
static_assert(fx::detail::is_sparse_lu<fx::detail::iteration_lu<hierarchical, double>>);
static_assert(fx::detail::is_sparse_lu<fx::detail::iteration_lu<flat, double>>);
static_assert(fx::detail::iteration_lu<hierarchical, double>::nnz_filled == 56);
// Small models keep the dense, pivoted factorization.
static_assert(!fx::detail::is_sparse_lu<fx::detail::iteration_lu<fx::compiled<stiff_models::robertson, double>, double>>);

constexpr int n = sm::n_states, np = sm::n_params;

struct batch {
  std::size_t B;
  std::vector<double> x0, p;  // structure of arrays
  std::vector<double> x0_row, p_row;  // instance b at b * n, b * np
  explicit batch(std::size_t count) : B(count), x0(n * count), p(np * count), x0_row(n * count), p_row(np * count) {
    std::mt19937_64 rng(1208);
    for (std::size_t b = 0; b < B; ++b) {
      sm::draw_stiff(rng, &x0_row[b * n], &p_row[b * np]);
      for (int i = 0; i < n; ++i) x0[i * B + b] = x0_row[b * n + i];
      for (int j = 0; j < np; ++j) p[j * B + b] = p_row[b * np + j];
    }
  }
};

template <class M, class Method>
fx::ensemble_result<double> integrate(Method method, const batch& in, double t1, bool lanes) {
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = t1, .rtol = 1e-8, .atol = 1e-10};
  fx::host::threads th(1, 1);
  th.simd_lanes = lanes;
  return fx::host::integrate(M{}, method, pr, in.B, fx::soa(std::span<const double>(in.x0)),
                             fx::soa(std::span<const double>(in.p)), th);
}

template <class M, class Method>
void matches_reference(Method method, const batch& in, double t1, const std::vector<std::vector<double>>& ref) {
  const auto r = integrate<M>(method, in, t1, false);
  REQUIRE(r.all_succeeded());
  for (std::size_t b = 0; b < in.B; ++b)
    for (int i = 0; i < n; ++i) {
      INFO("trajectory " << b << " state " << i);
      const double want = ref[b][i], got = r.final_state[i * in.B + b];
      CHECK(std::abs(got - want) <= 1e-5 * std::abs(want) + 1e-8);
    }
}

// The observed order from fixed steps 0.2, 0.1, 0.05 over [0, 2], at rates
// of order 1 (the classical order shows there), against RK4 at 1e-4.
template <class M, class Method>
double fixed_step_order(Method method) {
  const double x0[n] = {1.0, 0.8, 0.6, 0.4, 0.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.3, 0.9, 0.7, 0.2};
  const double p[np] = {1.5, 2.0, 3.0, 0.7, 0.1, 0.2, 0.3, 0.5};  // ktr[3], Ks, e[3], q
  const auto ref = sm::rk4_final(x0, p, 2.0, 1e-4);
  const double steps[] = {0.2, 0.1, 0.05};
  double err[3];
  for (int s = 0; s < 3; ++s) {
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 2, .initial_step = steps[s], .adaptive = false};
    const auto r = fx::host::integrate(M{}, method, pr, 1, fx::soa(std::span<const double>(x0, n)),
                                       fx::soa(std::span<const double>(p, np)));
    REQUIRE(r.all_succeeded());
    err[s] = 0;
    for (int i = 0; i < n; ++i) err[s] = std::max(err[s], std::abs(r.final_state[i] - ref[i]));
    UNSCOPED_INFO("h " << steps[s] << ": error " << err[s]);
  }
  return std::log2(err[0] / err[2]) / 2;
}


// The Brusselator line's W: 64 states, 314 entries after fill-in (of 4096).
using brusselator = fx::compiled<brusselator_line::model, double>;
static_assert(fx::detail::is_sparse_lu<fx::detail::iteration_lu<brusselator, double>>);
static_assert(fx::detail::iteration_lu<brusselator, double>::nnz_filled == 314);

}  // namespace

TEST_CASE("Rosenbrock23 converges with order 2 and Rodas5P with order 5 with the sparse iteration matrix",
          "[stiff][sparse]") {
  const double o23 = fixed_step_order<hierarchical>(fx::rosenbrock23{});
  const double o5 = fixed_step_order<hierarchical>(fx::rodas5p{});
  UNSCOPED_INFO("observed orders: rosenbrock23 " << o23 << ", rodas5p " << o5);
  CHECK(o23 > 1.8);
  CHECK(o23 < 2.5);
  CHECK(o5 > 4.5);
}

TEST_CASE("Rosenbrock methods with the sparse iteration matrix integrate the stiff stage model", "[stiff][sparse]") {
  const batch in(6);
  const double t1 = 1.0;
  std::vector<std::vector<double>> ref;
  for (std::size_t b = 0; b < in.B; ++b) ref.push_back(sm::rk4_final(&in.x0_row[b * n], &in.p_row[b * np], t1, 2e-5));
  matches_reference<hierarchical>(fx::rodas5p{}, in, t1, ref);
  matches_reference<flat>(fx::rodas5p{}, in, t1, ref);
  matches_reference<hierarchical>(fx::rosenbrock23{}, in, t1, ref);
  matches_reference<flat>(fx::rosenbrock23{}, in, t1, ref);
}

TEST_CASE("the sparse iteration matrix in SIMD lanes: the steps and values of one trajectory at a time",
          "[stiff][sparse][lanes]") {
  const batch in(13);  // not a multiple of the lane count
  support::require_identical(integrate<hierarchical>(fx::rodas5p{}, in, 10.0, false),
                             integrate<hierarchical>(fx::rodas5p{}, in, 10.0, true));
  support::require_identical(integrate<hierarchical>(fx::rosenbrock23{}, in, 10.0, false),
                             integrate<hierarchical>(fx::rosenbrock23{}, in, 10.0, true));
}

TEST_CASE("a Brusselator line of 64 states: Rodas5P and Rosenbrock23 with the sparse iteration matrix",
          "[stiff][sparse]") {
  constexpr int m = 2 * brusselator_line::N;
  const std::size_t B = 5;
  std::vector<double> x0(m * B), p(3 * B);
  std::vector<std::vector<double>> ref;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> xb(m), pb(3);
    brusselator_line::initial(1.0 + 0.05 * double(b), 3.0 + 0.1 * double(b), xb.data(), pb.data());
    for (int j = 0; j < m; ++j) x0[j * B + b] = xb[j];
    for (int j = 0; j < 3; ++j) p[j * B + b] = pb[j];
    ref.push_back(brusselator_line::rk4(xb, pb.data(), 10.0, 1e-3));
  }
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .rtol = 1e-8, .atol = 1e-10};
  const auto check = [&](const fx::ensemble_result<double>& r) {
    REQUIRE(r.all_succeeded());
    for (std::size_t b = 0; b < B; ++b)
      for (int j = 0; j < m; ++j) {
        INFO("trajectory " << b << " state " << j);
        CHECK(std::abs(r.final_state[j * B + b] - ref[b][j]) <= 1e-5 * std::abs(ref[b][j]) + 1e-8);
      }
  };
  for (bool lanes : {false, true}) {
    fx::host::threads th(1, 1);
    th.simd_lanes = lanes;
    check(fx::host::integrate(brusselator{}, fx::rodas5p{}, pr, B, fx::soa(std::span<const double>(x0)),
                              fx::soa(std::span<const double>(p)), th));
    check(fx::host::integrate(brusselator{}, fx::rosenbrock23{}, pr, B, fx::soa(std::span<const double>(x0)),
                              fx::soa(std::span<const double>(p)), th));
  }
}
