// The stiff stage model of tests/support/stage_model.hpp, written with index
// spaces and written out state by state, against its hand transcription: the
// right-hand side and the dense state Jacobian at random points of a stiff
// regime (ktr up to 1e4, e near 1e-2), and the Jacobian's pattern (the
// hand Jacobian's non-zeros, entry for entry). The same checks hold for both
// fluxion forms, so that bench/stage_jacobian.cpp compares equal work.
//
// Tolerance: |got - want| <= 1e-14 (|want| + max |row of want|): the forms
// sum the same terms in different orders.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "support/stage_model.hpp"

namespace fx = fluxion;
namespace sm = stage_model;

namespace {

struct hierarchical_form {
  using M = fx::compiled<sm::hierarchical, double>;
};
struct flat_form {
  using M = fx::compiled<sm::flat, double>;
};

double row_scale(const double* J, int i) {
  double s = 0;
  for (int j = 0; j < sm::n_states; ++j) s = std::fmax(s, std::abs(J[i * sm::n_states + j]));
  return s;
}

}  // namespace

TEMPLATE_TEST_CASE("the stage model's rhs and state Jacobian match the hand transcription", "", hierarchical_form,
                   flat_form) {
  using M = typename TestType::M;
  static_assert(M::n_states == std::size_t(sm::n_states) && M::n_params == std::size_t(sm::n_params));
  std::mt19937_64 rng(20261207);
  constexpr int n = sm::n_states;
  for (int trial = 0; trial < 200; ++trial) {
    double x[n], p[sm::n_params], dx[n], want[n], J[n * n], Jh[n * n];
    sm::draw_stiff(rng, x, p);
    M{}.rhs(0.0, x, p, dx);
    sm::hand::rhs(x, p, want);
    sm::hand::jac_x(x, p, Jh);
    for (int i = 0; i < n; ++i) {
      double scale = 0;  // the largest term of row i: rate * x and q x
      for (int j = 0; j < n; ++j) scale = std::fmax(scale, std::abs(Jh[i * n + j] * x[j]));
      CAPTURE(trial, i);
      CHECK(std::abs(dx[i] - want[i]) <= 1e-14 * (std::abs(want[i]) + scale));
    }
    M{}.template jacobian_dense<M::jacobian::x>(0.0, x, 1, p, 1, J, 1);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        CAPTURE(trial, i, j);
        CHECK(std::abs(J[i * n + j] - Jh[i * n + j]) <= 1e-14 * (std::abs(Jh[i * n + j]) + row_scale(Jh, i)));
      }
  }
}

TEMPLATE_TEST_CASE("the stage model's state Jacobian pattern is the hand Jacobian's non-zeros", "", hierarchical_form,
                   flat_form) {
  using M = typename TestType::M;
  constexpr int n = sm::n_states;
  std::mt19937_64 rng(7);
  double x[n], p[sm::n_params], Jh[n * n];
  sm::draw_stiff(rng, x, p);
  sm::hand::jac_x(x, p, Jh);
  const auto pattern = fx::jacobian_pattern<M, M::jacobian::x>();
  REQUIRE(pattern.rows == std::size_t(n));
  for (int i = 0; i < n; ++i) {
    std::vector<int> hand_columns;
    for (int j = 0; j < n; ++j)
      if (Jh[i * n + j] != 0.0) hand_columns.push_back(j);
    const std::vector<int> columns(pattern.col_idx.begin() + pattern.row_ptr[i],
                                   pattern.col_idx.begin() + pattern.row_ptr[i + 1]);
    CAPTURE(i);
    CHECK(columns == hand_columns);
  }
}
