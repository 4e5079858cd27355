// The Jacobian walk unrolled at compile time (Jacobians under
// FLUXION_UNROLL_JACOBIAN_VISITS, config/tuning.hpp) against the run-time
// walk of the same blocks: the same begin_row calls and the same entries in
// the same (CSR) order, and at every entry the same value. The unrolled
// walk evaluates each entry with its indices substituted and its zero terms
// gone (compile/jacobian.hpp's at_fixed_indices), the run-time walk the
// whole derivative with the indices bound: equal as numbers (== holds for
// -0 against +0) whatever the states, parameters and scratch they read,
// here drawn at random. Checked for the stiff stage model (unrolled) and
// Model A (its observables' Jacobians unrolled, the others walked at run
// time), every Jacobian of each.
#include <catch2/catch_test_macros.hpp>

#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

#include "support/model_a.hpp"
#include "support/stage_model.hpp"

namespace fx = fluxion;

namespace {

// One call a sink receives: begin_row (col = -1) or an entry and its value.
struct event {
  std::size_t row = 0;
  std::ptrdiff_t col = -1;
  double value = 0;
  bool operator==(const event&) const = default;
};

// Records every call; evaluates entries where it has a context (the value
// walk's bound expressions), else only their positions.
template <class Ctx>
struct recording_sink {
  std::vector<event>* out;
  const Ctx* ctx = nullptr;
  constexpr void begin_row(std::size_t row) { out->push_back(event{row, -1, 0}); }
  template <class D, class Env>
  void entry(std::size_t row, std::size_t col, const Env& e) {
    double v = 0;
    if constexpr (!std::is_same_v<Ctx, void>) v = double(D::eval(*ctx, e));
    out->push_back(event{row, std::ptrdiff_t(col), v});
  }
};

template <class Walk, class Ctx>
std::size_t same_walks(const Ctx* ctx) {
  using sink = recording_sink<std::remove_const_t<Ctx>>;
  std::vector<event> fast, walked;
  sink a{&fast, ctx}, b{&walked, ctx};
  Walk::run(a);
  Walk::run_walked(b);
  REQUIRE(fast.size() == walked.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    INFO("event " << i << " row " << walked[i].row << " col " << walked[i].col);
    REQUIRE(fast[i] == walked[i]);
  }
  return fast.size();
}

template <class M, fx::jacobian_kind J>
void same_jacobian_walks() {
  using shape = typename M::template jacobian_shape<J>;
  using layout = typename M::layout;
  constexpr std::size_t scratch_size = fx::block<typename shape::plan::scratch_symbols>::size;
  std::mt19937_64 rng(20261208);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::size_t n = same_walks<typename shape::walk>(static_cast<const void*>(nullptr));
  for (int draw = 0; draw < 3; ++draw) {
    std::vector<double> x(layout::state::size), p(layout::param::size), scratch(scratch_size > 0 ? scratch_size : 1);
    for (double& v : x) v = u(rng);
    for (double& v : p) v = u(rng);
    for (double& v : scratch) v = u(rng);
    const fx::detail::eval_context<double> ctx{0.5, x.data(), 1, p.data(), 1, scratch.data()};
    n += same_walks<typename shape::value_walk>(&ctx);
  }
  CHECK(n > 0);
}

}  // namespace

TEST_CASE("stage model: the unrolled Jacobian walk makes the run-time walk's calls", "[derivatives][unrolled]") {
  using M = fx::compiled<stage_model::hierarchical, double>;
  using walk = typename M::template jacobian_shape<fx::jacobian_kind::x>::value_walk;
  static_assert(walk::visits<recording_sink<void>>() <= std::size_t(FLUXION_UNROLL_JACOBIAN_VISITS),
                "the stage model's state Jacobian is meant to be walked at compile time");
  same_jacobian_walks<M, fx::jacobian_kind::x>();
  same_jacobian_walks<M, fx::jacobian_kind::p>();
}

TEST_CASE("Model A: unrolled and walked blocks make the run-time walk's calls", "[derivatives][unrolled]") {
  using M = fx::compiled<model_a::model, double>;
  same_jacobian_walks<M, fx::jacobian_kind::x>();
  same_jacobian_walks<M, fx::jacobian_kind::p>();
  same_jacobian_walks<M, fx::jacobian_kind::obs_x>();
  same_jacobian_walks<M, fx::jacobian_kind::obs_p>();
}

TEST_CASE("stage model: dense and CSR values of the unrolled walk match the hand Jacobian's pattern",
          "[derivatives][unrolled]") {
  using M = fx::compiled<stage_model::hierarchical, double>;
  double x[stage_model::n_states], p[stage_model::n_params];
  for (int i = 0; i < stage_model::n_states; ++i) x[i] = 0.1 + 0.05 * i;
  for (int i = 0; i < stage_model::n_params; ++i) p[i] = 0.5 + 0.25 * i;
  constexpr std::size_t n = stage_model::n_states;
  std::vector<double> dense(n * n), hand(n * n), values(n * n);
  M{}.jac_x(0.0, x, p, dense.data());
  stage_model::hand::jac_x(x, p, hand.data());
  M{}.jac_x_values(0.0, x, p, values.data());
  // The CSR values are the dense non-zeros in row order (the pattern keeps
  // no structural zero of this model).
  std::size_t k = 0;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < n; ++c)
      if (hand[r * n + c] != 0.0) {
        INFO("row " << r << " column " << c);
        CHECK(dense[r * n + c] == values[k]);
        ++k;
      }
}
