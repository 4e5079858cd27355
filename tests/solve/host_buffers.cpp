// fx::host::integrate into buffers the caller owns (fx::ensemble_buffers):
// the same bits as the form that returns an fx::ensemble_result, for Tsit5
// (SIMD lanes and one trajectory at a time, one thread and several) and
// Rodas5P, in the documented layout (saved states [save][state][trajectory],
// final states [state][trajectory]); statistics optional. A buffer too small,
// an output overlapping an input or another output, and a bad problem raise
// an error before any work, every output left as it was (a sentinel survives).
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "support/flat_models.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;

namespace {

// Bitwise equality (NaN saves of a failed trajectory compare equal).
template <class T>
bool same_bits(std::span<const T> a, std::span<const T> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
bool same_stats(const fx::solve_statistics& a, const fx::solve_statistics& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

constexpr double sentinel = -12345.5;
constexpr auto status_sentinel = fx::solve_status(-7);

template <class T>
struct outputs {
  std::vector<T> saved, final_state;
  std::vector<fx::solve_status> status;
  std::vector<fx::solve_statistics> stats;
  outputs(std::size_t n_saved, std::size_t n_final, std::size_t count, bool with_stats)
      : saved(n_saved, T(sentinel)), final_state(n_final, T(sentinel)), status(count, status_sentinel),
        stats(with_stats ? count : 0, fx::solve_statistics{-1, -1, -1, -1, -1}) {}
  fx::ensemble_buffers<T> buffers() {
    return {std::span<T>(saved), std::span<T>(final_state), std::span<fx::solve_status>(status),
            std::span<fx::solve_statistics>(stats)};
  }
  bool untouched() const {
    for (T v : saved)
      if (v != T(sentinel)) return false;
    for (T v : final_state)
      if (v != T(sentinel)) return false;
    for (auto s : status)
      if (s != status_sentinel) return false;
    for (const auto& s : stats)
      if (s.accepted != -1) return false;
    return true;
  }
};

// The buffer form against the result form, with the same exec and with
// statistics or without.
template <class M, class Method, class T = typename M::scalar>
void check_same_as_result(Method method, const fx::ode_problem<T>& pr, std::size_t B, const std::vector<T>& x0,
                          const std::vector<T>& p, fx::host::threads exec) {
  constexpr std::size_t n = M::n_states;
  const auto xs = fx::soa(std::span<const T>(x0));
  const auto ps = fx::soa(std::span<const T>(p));
  const fx::ensemble_result<T> want = fx::host::integrate(M{}, method, pr, B, xs, ps, exec);
  REQUIRE(want.saved_states.size() == pr.save_times.size() * n * B);
  for (bool with_stats : {true, false}) {
    CAPTURE(with_stats, exec.count, exec.simd_lanes);
    outputs<T> out(pr.save_times.size() * n * B, n * B, B, with_stats);
    fx::host::integrate(M{}, method, pr, B, xs, ps, out.buffers(), exec);
    CHECK(same_bits<T>(out.saved, want.saved_states));
    CHECK(same_bits<T>(out.final_state, want.final_state));
    CHECK(out.status == want.status);
    if (with_stats)
      for (std::size_t b = 0; b < B; ++b) CHECK(same_stats(out.stats[b], want.stats[b]));
  }
}

}  // namespace

TEST_CASE("Tsit5 into caller buffers gives the result form's bits, in lanes and one at a time, on 1 and 3 threads") {
  using M = fx::compiled<flat::lorenz::model, double>;
  constexpr std::size_t B = 37;  // lanes groups and a remainder
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x0(3 * B), p(3 * B);
  for (std::size_t b = 0; b < B; ++b) {
    x0[0 * B + b] = 1 + u(rng), x0[1 * B + b] = u(rng), x0[2 * B + b] = 20 + 5 * u(rng);
    p[0 * B + b] = 10 + u(rng), p[1 * B + b] = 28 + u(rng), p[2 * B + b] = 8.0 / 3 + 0.1 * u(rng);
  }
  const std::vector<double> ts = {0.0, 0.1, 0.25, 0.7, 1.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = 1e-8, .atol = 1e-8};
  fx::host::threads one;
  fx::host::threads three(3, 1);  // min_values 1: every trajectory range on its own thread
  fx::host::threads scalar = three;
  scalar.simd_lanes = false;
  check_same_as_result<M>(fx::tsit5{}, pr, B, x0, p, one);
  check_same_as_result<M>(fx::tsit5{}, pr, B, x0, p, three);
  check_same_as_result<M>(fx::tsit5{}, pr, B, x0, p, scalar);

  // Trajectory b's states where the layout says, whichever thread wrote them.
  outputs<double> out(ts.size() * 3 * B, 3 * B, B, true);
  fx::host::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const double>(x0)),
                      fx::soa(std::span<const double>(p)), out.buffers(), three);
  for (std::size_t b : {std::size_t(0), std::size_t(17), B - 1}) {
    const std::vector<double> xb = {x0[b], x0[B + b], x0[2 * B + b]}, pb = {p[b], p[B + b], p[2 * B + b]};
    const auto alone = fx::host::integrate(M{}, fx::tsit5{}, pr, 1, fx::soa(std::span<const double>(xb)),
                                           fx::soa(std::span<const double>(pb)));
    for (std::size_t s = 0; s < ts.size(); ++s)
      for (std::size_t i = 0; i < 3; ++i) CHECK(out.saved[(s * 3 + i) * B + b] == alone.saved(s, i, 0));
    for (std::size_t i = 0; i < 3; ++i) CHECK(out.final_state[i * B + b] == alone.final_value(i, 0));
  }
}

TEST_CASE("Rodas5P into caller buffers gives the result form's bits, failed trajectories included") {
  using M = fx::compiled<stiff_models::robertson, double>;
  constexpr std::size_t B = 9;
  std::vector<double> x0(3 * B, 0.0), p(3 * B);
  for (std::size_t b = 0; b < B; ++b) {
    x0[b] = 1.0;
    p[0 * B + b] = 0.04 * (1 + 0.1 * double(b));
    p[1 * B + b] = 3e7;
    p[2 * B + b] = 1e4;
  }
  const std::vector<double> ts = {1e-3, 0.4, 4.0, 40.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 40, .save_times = ts, .rtol = 1e-6, .atol = 1e-10};
  fx::host::threads scalar(2, 1);
  scalar.simd_lanes = false;
  check_same_as_result<M>(fx::rodas5p{}, pr, B, x0, p, fx::host::threads{});
  check_same_as_result<M>(fx::rodas5p{}, pr, B, x0, p, scalar);
  // A step budget that stops every trajectory early: NaN saves past the
  // stop, the last state reached, status max_steps, in both forms alike.
  fx::ode_problem<double> short_pr = pr;
  short_pr.max_steps = 6;
  check_same_as_result<M>(fx::rodas5p{}, short_pr, B, x0, p, fx::host::threads{});
  const auto stopped = fx::host::integrate(M{}, fx::rodas5p{}, short_pr, B, fx::soa(std::span<const double>(x0)),
                                           fx::soa(std::span<const double>(p)));
  CHECK(stopped.status[0] == fx::solve_status::max_steps);
  CHECK(std::isnan(stopped.saved(ts.size() - 1, 0, 0)));
}

TEST_CASE("integrate into caller buffers: bigger buffers are fine, no trajectories writes nothing") {
  using M = fx::compiled<flat::lorenz::model, double>;
  const std::vector<double> x0 = {1, 0, 20, 1.5, 0.5, 21}, p = {10, 10, 28, 28, 2.5, 2.5};
  const std::vector<double> ts = {0.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(p));
  // Room past the batch: the values beyond it are left alone.
  outputs<double> big(3 * 2 + 4, 3 * 2 + 4, 2 + 4, true);
  fx::host::integrate(M{}, fx::tsit5{}, pr, 2, xs, ps, big.buffers());
  const auto want = fx::host::integrate(M{}, fx::tsit5{}, pr, 2, xs, ps);
  CHECK(same_bits<double>(std::span<const double>(big.saved).first(6), want.saved_states));
  CHECK(same_bits<double>(std::span<const double>(big.final_state).first(6), want.final_state));
  for (std::size_t k = 6; k < 10; ++k) CHECK(big.saved[k] == sentinel);
  for (std::size_t k = 2; k < 6; ++k) CHECK(big.status[k] == status_sentinel);
  // No save times: an empty saved span is enough.
  const fx::ode_problem<double> no_saves{.t0 = 0, .t1 = 1};
  outputs<double> finals(0, 6, 2, false);
  fx::host::integrate(M{}, fx::tsit5{}, no_saves, 2, xs, ps, finals.buffers());
  CHECK(finals.status[1] == fx::solve_status::success);
  // No trajectories: nothing to check the sizes against, nothing written.
  outputs<double> none(4, 4, 4, true);
  fx::host::integrate(M{}, fx::tsit5{}, pr, 0, xs, ps, none.buffers());
  CHECK(none.untouched());
}

TEST_CASE("integrate into caller buffers refuses small and overlapping outputs before any work") {
  using M = fx::compiled<flat::lorenz::model, double>;
  constexpr std::size_t B = 4, n = 3;
  std::vector<double> x0(n * B, 1.0), p(n * B, 2.0);
  const std::vector<double> ts = {0.25, 0.5};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1, .save_times = ts};
  const auto xs = fx::soa(std::span<const double>(x0));
  const auto ps = fx::soa(std::span<const double>(p));
  const std::size_t n_saved = ts.size() * n * B;

  // The block a refused call names, and what it says ("" when it runs).
  struct refusal {
    std::string block, what;
  };
  const auto refuse = [&](fx::batch<const double> x, fx::batch<const double> pp, fx::ensemble_buffers<double> out) {
    try {
      fx::host::integrate(M{}, fx::tsit5{}, pr, B, x, pp, out);
    } catch (const fx::layout_error& e) {
      return refusal{e.block(), e.what()};
    }
    return refusal{};
  };
  SECTION("too small") {
    outputs<double> out(n_saved, n * B, B, true);
    const auto b = out.buffers();
    CHECK(refuse(xs, ps, {b.saved.first(n_saved - 1), b.final_state, b.status, b.stats}).block == "saved states");
    CHECK(refuse(xs, ps, {{}, b.final_state, b.status, b.stats}).block == "saved states");
    CHECK(refuse(xs, ps, {b.saved, b.final_state.first(n * B - 1), b.status, b.stats}).block == "final state");
    CHECK(refuse(xs, ps, {b.saved, b.final_state, b.status.first(B - 1), b.stats}).block == "status");
    CHECK(refuse(xs, ps, {b.saved, b.final_state, b.status, b.stats.first(B - 1)}).block == "statistics");
    CHECK(out.untouched());
  }
  SECTION("outputs overlapping each other") {
    // The saved and final states in one buffer, one starting on the other's last value.
    outputs<double> out(n_saved + n * B, 0, B, true);
    const auto b = out.buffers();
    const std::span<double> all(out.saved);
    const auto r1 = refuse(xs, ps, {all.first(n_saved), all.subspan(n_saved - 1, n * B), b.status, b.stats});
    CHECK(r1.block == "final state");
    CHECK(r1.what.find("overlaps the input buffer of block 'saved states'") != std::string::npos);
    const auto r2 = refuse(xs, ps, {all.subspan(n * B - 1, n_saved), all.first(n * B), b.status, b.stats});
    CHECK(r2.block == "final state");
    CHECK(out.untouched());
    // The statistics over the statuses.
    std::vector<fx::solve_statistics> shared(B + 1);
    const auto r3 = refuse(xs, ps,
                           {b.saved.first(n_saved), b.saved.subspan(n_saved, n * B),
                            std::span<fx::solve_status>(reinterpret_cast<fx::solve_status*>(shared.data()), B),
                            std::span<fx::solve_statistics>(shared)});
    CHECK(r3.block == "status");
    CHECK(out.untouched());
  }
  SECTION("an output over an input") {
    outputs<double> out(n_saved, n * B, B, true);
    const auto b = out.buffers();
    // The final states written over the initial states.
    std::vector<double> x0_copy = x0;
    const std::span<double> x0_out(x0_copy);
    const auto r1 = refuse(fx::soa(std::span<const double>(x0_out)), ps, {b.saved, x0_out, b.status, b.stats});
    CHECK(r1.block == "final state");
    CHECK(r1.what.find("overlaps the input buffer of block 'initial state'") != std::string::npos);
    CHECK(x0_copy == x0);
    // The saved states starting on the parameters' last value.
    std::vector<double> joint(n * B + n_saved, 2.0);
    const std::span<double> p_in = std::span<double>(joint).first(n * B);
    const auto r2 = refuse(xs, fx::soa(std::span<const double>(p_in)),
                           {std::span<double>(joint).subspan(n * B - 1, n_saved), b.final_state, b.status, b.stats});
    CHECK(r2.block == "saved states");
    CHECK(r2.what.find("overlaps the input buffer of block 'parameter'") != std::string::npos);
    for (double v : joint) CHECK(v == 2.0);
    CHECK(out.untouched());
  }
  SECTION("a bad problem") {
    outputs<double> out(n_saved, n * B, B, true);
    fx::ode_problem<double> bad = pr;
    bad.rtol = -1;
    CHECK_THROWS_AS(fx::host::integrate(M{}, fx::tsit5{}, bad, B, xs, ps, out.buffers()), fx::problem_error);
    CHECK(out.untouched());
  }
  SECTION("the same buffers accepted") {
    outputs<double> out(n_saved, n * B, B, true);
    CHECK(refuse(xs, ps, out.buffers()).block.empty());
    CHECK(out.status[0] == fx::solve_status::success);
  }
}
