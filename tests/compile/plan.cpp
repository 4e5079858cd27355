// Evaluation plans (compile/plan.hpp): which subexpressions are hoisted out
// of loops, which scratch steps are deferred into the output loop, and that
// the planned evaluation equals hand-written loops of the same equations,
// including the cases where hoisting or deferring must not happen.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

constexpr int P = 5, K = 3;
using patch = fx::index<"patch", P>;
using age = fx::index<"age", K, fx::ordered>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::state<"x", patch, age> x;
constexpr fx::param<"c", patch, patch> c;
constexpr fx::param<"r", patch> r;
constexpr auto tot = fx::alias<"tot">(fx::sum(k, x(p, k)));

// tot read at its own element only: deferred into the output loop.
constexpr auto own = fx::model(fx::states(x), fx::params(c, r), fx::d(x(p, k)) = -r(p) * x(p, k) * tot(p));
// tot also read at a fixed element: it must be complete before any output.
constexpr auto fixed = fx::model(fx::states(x), fx::params(c, r),
                                 fx::d(x(p, k)) = -r(p) * x(p, k) * tot(p) + 0.25 * tot(0));
// exp(x[q,k]) / tot[q] does not depend on p: hoisted over (q, k), and inside
// it 1 / tot[q], which does not depend on k, over q; tot is read by a hidden
// step, so nothing is deferred.
constexpr auto coupled = fx::model(fx::states(x), fx::params(c, r),
                                   fx::d(x(p, k)) = r(p) * fx::sum(q, c(p, q) * fx::exp(x(q, k)) / tot(q)));

template <auto Model>
using plan_of = fx::detail::evaluation_plan<typename fx::compiled<Model, double>::traits::aliases,
                                            typename fx::compiled<Model, double>::traits::state_equations>;

constexpr std::size_t xi(int pp, int kk) { return std::size_t(pp * K + kk); }
constexpr std::size_t ci(int pp, int qq) { return std::size_t(pp * P + qq); }  // c first, then r
constexpr std::size_t ri(int pp) { return std::size_t(P * P + pp); }

double total(const double* xs, int pp) {
  double s = 0;
  for (int kk = 0; kk < K; ++kk) s += xs[xi(pp, kk)];
  return s;
}

// The three models by hand.
void hand(int which, const double* xs, const double* prm, double* dx) {
  for (int pp = 0; pp < P; ++pp)
    for (int kk = 0; kk < K; ++kk) {
      double v = 0;
      if (which == 0) v = -prm[ri(pp)] * xs[xi(pp, kk)] * total(xs, pp);
      if (which == 1) v = -prm[ri(pp)] * xs[xi(pp, kk)] * total(xs, pp) + 0.25 * total(xs, 0);
      if (which == 2) {
        double s = 0;
        for (int qq = 0; qq < P; ++qq) s += prm[ci(pp, qq)] * std::exp(xs[xi(qq, kk)]) / total(xs, qq);
        v = prm[ri(pp)] * s;
      }
      dx[xi(pp, kk)] = v;
    }
}

template <auto Model>
double max_rel_error(int which) {
  using M = fx::compiled<Model, double>;
  static_assert(M::n_states == P * K && M::n_params == P * P + P);
  std::mt19937_64 rng(which + 1);
  std::uniform_real_distribution<double> u(0.2, 1.5);
  constexpr std::size_t B = 13;
  std::vector<double> xs(B * M::n_states), prm(B * M::n_params), got(B * M::n_states), want(M::n_states);
  for (auto& e : xs) e = u(rng);
  for (auto& e : prm) e = u(rng);
  double worst = 0;
  for (const bool soa : {false, true}) {
    if (soa) fx::host::rhs(M{}, 0.0, B, fx::soa(std::span<const double>(xs)), fx::soa(std::span<const double>(prm)),
                           fx::soa(std::span<double>(got)));
    else fx::host::rhs(M{}, 0.0, B, fx::aos(std::span<const double>(xs)), fx::aos(std::span<const double>(prm)),
                       fx::aos(std::span<double>(got)));
    for (std::size_t b = 0; b < B; ++b) {
      std::vector<double> xb(M::n_states), pb(M::n_params);
      for (std::size_t j = 0; j < M::n_states; ++j) xb[j] = xs[soa ? j * B + b : b * M::n_states + j];
      for (std::size_t j = 0; j < M::n_params; ++j) pb[j] = prm[soa ? j * B + b : b * M::n_params + j];
      hand(which, xb.data(), pb.data(), want.data());
      for (std::size_t j = 0; j < M::n_states; ++j) {
        const double g = got[soa ? j * B + b : b * M::n_states + j];
        worst = std::max(worst, std::abs(g - want[j]) / (std::abs(want[j]) + 1e-12));
      }
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("Model A's plan: sum_k I[q,k] / N[q] hoisted once per q, lambda computed in the output loop",
          "[plan]") {
  using M = fx::compiled<model_a::model, double>;
  using plan = fx::detail::evaluation_plan<M::traits::aliases, M::traits::state_equations>;
  STATIC_REQUIRE(plan::early_steps::size == 2);     // N, then the hoisted quotient
  STATIC_REQUIRE(plan::deferred_steps::size == 1);  // lambda
  using hidden = fx::detail::at_t<plan::early_steps, 1>;
  CHECK(fx::to_string<hidden::rhs>() == "sum(k, I[q,k]) / N[q]");
  using lambda = fx::detail::at_t<plan::deferred_steps, 0>;
  CHECK(fx::to_string<lambda::rhs>() == "beta[p] * sum(q, C[p,q] * (hoisted)[q])");
  // The user's layout is unchanged: only the two declared aliases.
  STATIC_REQUIRE(M::layout::intermediate::size == 16);
}

TEST_CASE("an alias read only at its own element is deferred; read elsewhere it is not", "[plan]") {
  STATIC_REQUIRE(plan_of<own>::deferred_steps::size == 1);
  STATIC_REQUIRE(plan_of<fixed>::deferred_steps::size == 0);
  STATIC_REQUIRE(plan_of<coupled>::deferred_steps::size == 0);
  STATIC_REQUIRE(plan_of<coupled>::early_steps::size == 3);
  CHECK(fx::to_string<fx::detail::at_t<plan_of<coupled>::early_steps, 1>::rhs>() == "1 / tot[q]");
  CHECK(fx::to_string<fx::detail::at_t<plan_of<coupled>::early_steps, 2>::rhs>() == "exp(x[q,k]) * (hoisted)[q]");
  CHECK(fx::to_string<fx::detail::at_t<plan_of<coupled>::equations, 0>::rhs>() ==
        "r[p] * sum(q, c[p,q] * (hoisted)[q,k])");
}

// A product or quotient that is not regrouped leaves its factors' chains
// alone (compile/plan.hpp, rewrite_binary), but a denominator's factors are
// inverted in the whole's list: in r[p] / (x[p,k] / (c[0,0] * c[1,1])) the
// whole holds c[0,0] and c[1,1] as plain factors (nothing to gain), while
// the denominator regroups to x[p,k] * (1 / (c[0,0] c[1,1])), the inverse
// computed once (a scratch step deferred to the output loop's start).
constexpr auto nested_quotient = fx::model(fx::states(x), fx::params(c, r),
                                           fx::d(x(p, k)) = r(p) / (x(p, k) / (c(0, 0) * c(1, 1))));

TEST_CASE("a denominator's own quotient is regrouped where the whole is not", "[plan]") {
  using plan = plan_of<nested_quotient>;
  STATIC_REQUIRE(plan::scratch_steps::size == 1);
  CHECK(fx::to_string<fx::detail::at_t<plan::scratch_steps, 0>::rhs>() == "1 / (c[0,0] * c[1,1])");
  CHECK(fx::to_string<fx::detail::at_t<plan::equations, 0>::rhs>() == "r[p] / (x[p,k] * (hoisted))");
}

TEST_CASE("planned evaluation equals hand-written loops", "[plan]") {
  CHECK(max_rel_error<own>(0) < 1e-14);
  CHECK(max_rel_error<fixed>(1) < 1e-14);
  CHECK(max_rel_error<coupled>(2) < 1e-14);
}
