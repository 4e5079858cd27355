// The MPI layer (include/fluxion/mpi/) on 1, 2 or 3 ranks (whatever mpirun
// started): every rank runs every case, in order.
//
// Oracles:
//   - the single-process calls (fx::host::integrate, fx::host::log_density)
//     over the whole batch, computed on every rank: distributed results,
//     left on their ranks or gathered, static or dynamic, equal them bit
//     for bit;
//   - closed forms, independent of the library: y' = -k y integrated to
//     y0 e^(-k t), its normal log-likelihood and gradient written out;
//   - for the reductions, Shewchuk's exact summation (Python's math.fsum,
//     written out below) of the single-process values;
//   - pure rules checked by enumeration (owned ranges, the device map).
// Failures: a bad problem, buffer, data series or disagreement on one rank
// raises the same error (type, message, fields) on every rank, nothing
// written.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/mpi.hpp>

#include "mpi/mpi_support.hpp"
#include "support/closed_form_models.hpp"
#include "support/lorenz63.hpp"
#include "support/stiff_models.hpp"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;
using mpi_support::error_of;
using mpi_support::everywhere;
using mpi_support::same_text_everywhere;

namespace {

int rank() { return fx::mpi::rank_of(MPI_COMM_WORLD); }
int ranks() { return fx::mpi::size_of(MPI_COMM_WORLD); }

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
template <class T>
bool same_bits(const T* a, const T* b, std::size_t k) {
  return k == 0 || std::memcmp(a, b, k * sizeof(T)) == 0;
}

// The single-process result of trajectories [begin, begin + k) in its own
// layout (k trajectories), for a rank's local part.
template <class T>
fx::ensemble_result<T> slice(const fx::ensemble_result<T>& g, fx::mpi::range o) {
  fx::ensemble_result<T> r;
  const std::size_t k = o.size(), n = g.states, ns = g.save_count;
  r.trajectories = k;
  r.states = n;
  r.save_count = ns;
  for (std::size_t row = 0; row < ns * n; ++row)
    for (std::size_t b = o.begin; b < o.end; ++b) r.saved_states.push_back(g.saved_states[row * g.trajectories + b]);
  for (std::size_t row = 0; row < n; ++row)
    for (std::size_t b = o.begin; b < o.end; ++b) r.final_state.push_back(g.final_state[row * g.trajectories + b]);
  r.status.assign(g.status.begin() + std::ptrdiff_t(o.begin), g.status.begin() + std::ptrdiff_t(o.end));
  r.stats.assign(g.stats.begin() + std::ptrdiff_t(o.begin), g.stats.begin() + std::ptrdiff_t(o.end));
  return r;
}
template <class T>
bool same_ensemble(const fx::ensemble_result<T>& a, const fx::ensemble_result<T>& b) {
  return a.trajectories == b.trajectories && same_bits(a.saved_states, b.saved_states) &&
         same_bits(a.final_state, b.final_state) && same_bits(a.status, b.status) && same_bits(a.stats, b.stats);
}
template <class T>
fx::log_density_result<T> slice(const fx::log_density_result<T>& g, fx::mpi::range o) {
  fx::log_density_result<T> r;
  r.trajectories = o.size();
  r.columns = g.columns;
  r.value.assign(g.value.begin() + std::ptrdiff_t(o.begin), g.value.begin() + std::ptrdiff_t(o.end));
  if (!g.gradients.empty())
    for (std::size_t j = 0; j < g.columns; ++j)
      for (std::size_t b = o.begin; b < o.end; ++b) r.gradients.push_back(g.gradients[j * g.trajectories + b]);
  r.status.assign(g.status.begin() + std::ptrdiff_t(o.begin), g.status.begin() + std::ptrdiff_t(o.end));
  r.stats.assign(g.stats.begin() + std::ptrdiff_t(o.begin), g.stats.begin() + std::ptrdiff_t(o.end));
  return r;
}
template <class T>
bool same_log_density(const fx::log_density_result<T>& a, const fx::log_density_result<T>& b) {
  return a.trajectories == b.trajectories && a.columns == b.columns && same_bits(a.value, b.value) &&
         same_bits(a.gradients, b.gradients) && same_bits(a.status, b.status) && same_bits(a.stats, b.stats);
}

// Shewchuk's exact summation with correct rounding (CPython's math.fsum),
// for finite values whose partial sums do not overflow.
double fsum(const std::vector<double>& xs) {
  std::vector<double> partials;
  for (double x : xs) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  std::size_t n = partials.size();
  double hi = 0.0;
  if (n > 0) {
    hi = partials[--n];
    double lo = 0.0;
    while (n > 0) {
      const double x = hi, y = partials[--n];
      hi = x + y;
      const double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
      const double y = lo * 2.0, x = hi + y, yr = x - hi;
      if (y == yr) hi = x;
    }
  }
  return hi;
}

double exact_sum_of(const std::vector<double>& xs) {
  fx::mpi::exact_sum s;
  for (double x : xs) s.add(x);
  return s.value<double>();
}

// --- models and problems ---------------------------------------------------------

using lorenz = fx::compiled<lorenz63::lorenz, double>;
using robertson = fx::compiled<stiff_models::robertson, double>;
using decay = fx::compiled<closed_form_models::decay, double>;
using blowup = fx::compiled<closed_form_models::blowup, double>;

// y' = -k y observed under a normal density of sd `sd` (parameters k, sd).
constexpr fx::param<"sd"> sd;
constexpr auto decay_observed = fx::model(fx::states(closed_form_models::y), fx::params(closed_form_models::k, sd),
                                          fx::d(closed_form_models::y) = -closed_form_models::k * closed_form_models::y,
                                          fx::observe<"y_obs">() = closed_form_models::y);
using observed = fx::compiled<decay_observed, double>;

// Inputs of G trajectories, structure of arrays, from a seed (the same on every rank).
struct inputs {
  std::vector<double> x0, p;
};
inputs lorenz_inputs(std::size_t G, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  inputs in{std::vector<double>(3 * G), std::vector<double>(3 * G)};
  for (std::size_t b = 0; b < G; ++b) {
    for (std::size_t i = 0; i < 3; ++i) in.x0[i * G + b] = 5.0 * u(rng) + (i == 2 ? 20.0 : 0.0);
    in.p[0 * G + b] = 10.0 + u(rng);
    in.p[1 * G + b] = 28.0 + 2.0 * u(rng);
    in.p[2 * G + b] = 8.0 / 3.0 + 0.1 * u(rng);
  }
  return in;
}
inputs robertson_inputs(std::size_t G) {
  inputs in{std::vector<double>(3 * G, 0.0), std::vector<double>(3 * G)};
  for (std::size_t b = 0; b < G; ++b) {
    in.x0[b] = 1.0;
    in.p[b] = 0.04 * (1.0 + 0.01 * double(b % 7));
    in.p[G + b] = 3e7;
    in.p[2 * G + b] = 1e4 * (1.0 + 0.1 * double(b % 3));
  }
  return in;
}

template <class T>
std::span<const T> cspan(const std::vector<T>& v) {
  return std::span<const T>(v);
}

const std::vector<double> lorenz_saves = {0.5, 1.0, 2.0};
const fx::ode_problem<double> lorenz_problem{.t0 = 0, .t1 = 2, .save_times = lorenz_saves, .rtol = 1e-8, .atol = 1e-8};

std::vector<fx::mpi::distribution> schedules() {
  std::vector<fx::mpi::distribution> ds(4);
  ds[1].kind = ds[2].kind = ds[3].kind = fx::mpi::schedule::dynamic;
  ds[1].chunk = 1;
  ds[2].chunk = 3;
  ds[3].chunk = 0;  // automatic
  return ds;
}

}  // namespace

// --- pure rules ----------------------------------------------------------------------

TEST_CASE("owned ranges: contiguous, covering, sizes within one, first ranks the larger; owner_of and chunks agree") {
  for (int P = 1; P <= 7; ++P)
    for (std::size_t G = 0; G <= 40; ++G) {
      std::size_t next = 0;
      for (int r = 0; r < P; ++r) {
        const auto o = fx::mpi::owned_range(G, r, P);
        CHECK(o.begin == next);
        CHECK((o.size() == G / std::size_t(P) || o.size() == G / std::size_t(P) + 1));
        CHECK(o.size() == G / std::size_t(P) + (std::size_t(r) < G % std::size_t(P) ? 1 : 0));
        for (std::size_t b = o.begin; b < o.end; ++b) CHECK(fx::mpi::owner_of(b, G, P) == r);
        for (std::size_t chunk : {1u, 2u, 5u}) {
          std::size_t at = o.begin;
          for (std::size_t j = 0; j < fx::mpi::chunk_count(o, chunk); ++j) {
            const auto c = fx::mpi::chunk_range(o, chunk, j);
            CHECK(c.begin == at);
            CHECK((c.size() > 0 && c.size() <= chunk));
            at = c.end;
          }
          CHECK(at == o.end);
        }
        next = o.end;
      }
      CHECK(next == G);
    }
  CHECK_THROWS_WITH(fx::mpi::owned_range(10, 3, 3), "fluxion::mpi: rank 3 is not among the 3 ranks");
  CHECK_THROWS_WITH(fx::mpi::owner_of(10, 10, 3), "fluxion::mpi: trajectory 10 is not among the 10 of the batch");
}

TEST_CASE("device map: one rank a GPU by node-local rank, a list, an override, sharing, and the errors") {
  using fx::mpi::device_for;
  for (int r = 0; r < 4; ++r) CHECK(device_for(r, 4, 4) == r);
  CHECK(device_for(1, 2, 4, {.devices = {3, 1}}) == 1);
  CHECK(device_for(0, 2, 4, {.devices = {3, 1}}) == 3);
  CHECK(device_for(2, 3, 1, {.device = 0}) == 0);
  for (int r = 0; r < 5; ++r) CHECK(device_for(r, 5, 2, {.share = true}) == r % 2);
  CHECK(device_for(2, 3, 4, {.devices = {2, 3}, .share = true}) == 2);
  CHECK_THROWS_AS(device_for(0, 3, 2), fx::mpi::device_error);
  CHECK_THROWS_WITH(device_for(0, 3, 2),
                    "fluxion::mpi: 3 ranks run on this node but 2 GPU(s) are available to them (device(s) 0, 1): one "
                    "rank a GPU needs a GPU for every rank; set device_map::share = true to let ranks share GPUs "
                    "round-robin, or start at most 2 rank(s) a node");
  // The same message whichever rank of the node asks.
  CHECK(error_of([] { device_for(2, 3, 2); }) == error_of([] { device_for(0, 3, 2); }));
  CHECK_THROWS_WITH(device_for(0, 1, 0), ContainsSubstring("no GPU is visible"));
  CHECK_THROWS_WITH(device_for(0, 1, 2, {.device = 2}), ContainsSubstring("device 2 was asked for"));
  CHECK_THROWS_WITH(device_for(0, 1, 2, {.devices = {0, 5}}), ContainsSubstring("lists device 5"));
  CHECK_THROWS_WITH(device_for(0, 1, 2, {.devices = {1, 1}}), ContainsSubstring("lists device 1 twice"));
}

TEST_CASE("exact_sum: the correctly rounded exact sum (against Shewchuk's fsum), in any order") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-60, 60);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs(std::size_t(1 + trial % 57));
    for (auto& x : xs) x = std::ldexp(mant(rng), ex(rng));
    if (trial % 3 == 0)  // heavy cancellation
      for (std::size_t i = 0; i + 1 < xs.size(); i += 2) xs[i + 1] = -xs[i] * (1 + 1e-15 * mant(rng));
    const double want = fsum(xs);
    CHECK(std::bit_cast<std::uint64_t>(exact_sum_of(xs)) == std::bit_cast<std::uint64_t>(want));
    std::shuffle(xs.begin(), xs.end(), rng);
    CHECK(std::bit_cast<std::uint64_t>(exact_sum_of(xs)) == std::bit_cast<std::uint64_t>(want));
    // Two accumulators added.
    fx::mpi::exact_sum a, b;
    for (std::size_t i = 0; i < xs.size(); ++i) (i % 2 ? a : b).add(xs[i]);
    a += b;
    CHECK(std::bit_cast<std::uint64_t>(a.value<double>()) == std::bit_cast<std::uint64_t>(want));
  }
  const double tiny = std::numeric_limits<double>::denorm_min();
  CHECK(exact_sum_of({1e100, 1.0, -1e100}) == 1.0);
  CHECK(exact_sum_of({DBL_MAX, DBL_MAX, -DBL_MAX}) == DBL_MAX);
  CHECK(exact_sum_of({tiny, tiny, tiny}) == 3 * tiny);
  CHECK(exact_sum_of({1.0, std::ldexp(1.0, -53)}) == 1.0);                                  // a tie: to even
  CHECK(exact_sum_of({1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -200)}) == 1.0 + DBL_EPSILON);  // above the tie
  CHECK(exact_sum_of({1.0 + DBL_EPSILON, std::ldexp(1.0, -53)}) == 1.0 + 2 * DBL_EPSILON);  // a tie: to even, up
  CHECK(exact_sum_of({DBL_MAX, std::ldexp(1.0, 970)}) == HUGE_VAL);                          // rounds past the largest
  CHECK(exact_sum_of({-3.5, 1.25}) == -2.25);
  CHECK(exact_sum_of({}) == 0.0);
  CHECK(exact_sum_of({HUGE_VAL, 1.0}) == HUGE_VAL);
  CHECK(exact_sum_of({-HUGE_VAL, 1.0, -HUGE_VAL}) == -HUGE_VAL);
  CHECK(std::isnan(exact_sum_of({HUGE_VAL, -HUGE_VAL})));
  CHECK(std::isnan(exact_sum_of({1.0, std::numeric_limits<double>::quiet_NaN()})));
  // Floats, rounded once: values whose exact sum a double holds exactly.
  std::uniform_int_distribution<int> fex(-10, 10);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<float> xs(std::size_t(1 + trial % 31));
    double exact = 0;
    fx::mpi::exact_sum s;
    for (auto& x : xs) {
      x = std::ldexp(float(mant(rng)), fex(rng));
      exact += double(x);
      s.add(x);
    }
    CHECK(s.value<float>() == float(exact));
  }
}

TEST_CASE("mpi::sum: every rank's values, exactly summed, the same bits on every rank") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> all(1000);
  for (auto& x : all) x = std::ldexp(u(rng), int(u(rng) * 40));
  const auto o = fx::mpi::owned_range(all.size(), rank(), ranks());
  const std::vector<double> mine(all.begin() + std::ptrdiff_t(o.begin), all.begin() + std::ptrdiff_t(o.end));
  const double total = fx::mpi::sum(MPI_COMM_WORLD, cspan(mine));
  CHECK(std::bit_cast<std::uint64_t>(total) == std::bit_cast<std::uint64_t>(fsum(all)));
}

// --- integrate -----------------------------------------------------------------------------

TEST_CASE("integrate (Lorenz, Tsit5): static and dynamic, uneven splits, local parts and gathers equal one process") {
  for (std::size_t G : {1u, 5u, 37u}) {
    const inputs in = lorenz_inputs(G, unsigned(G));
    const auto ref = fx::host::integrate(lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(in.x0)),
                                         fx::soa(cspan(in.p)));
    for (const auto& d : schedules()) {
      const auto r = fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G,
                                        fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), d);
      CHECK(r.owned == fx::mpi::owned_range(G, rank(), ranks()));
      CHECK(everywhere(same_ensemble(r.local, slice(ref, r.owned))));
      // Every trajectory computed once; every chunk taken from a rank given by it.
      std::uint64_t counts[3] = {r.report.trajectories, r.report.chunks_taken, r.report.chunks_given};
      MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      CHECK(counts[0] == G);
      CHECK(counts[1] == counts[2]);
      if (d.kind == fx::mpi::schedule::static_split) CHECK(r.report.trajectories == r.owned.size());
      const int root = ranks() - 1;
      const auto g = fx::mpi::gather(MPI_COMM_WORLD, r, root);
      if (rank() == root) CHECK(same_ensemble(g, ref));
      else CHECK(g.trajectories == 0);
    }
  }
}

TEST_CASE("integrate (Robertson, Rodas5P): static and dynamic equal one process bit for bit") {
  constexpr std::size_t G = 23;
  const inputs in = robertson_inputs(G);
  const std::vector<double> ts = {1e-3, 1.0, 1e2};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e2, .save_times = ts, .rtol = 1e-6, .atol = 1e-10};
  const auto ref = fx::host::integrate(robertson{}, fx::rodas5p{}, pr, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
  REQUIRE(ref.all_succeeded());
  for (const auto& d : schedules()) {
    const auto r = fx::mpi::integrate(MPI_COMM_WORLD, robertson{}, fx::rodas5p{}, pr, G, fx::soa(cspan(in.x0)),
                                      fx::soa(cspan(in.p)), d);
    CHECK(everywhere(same_ensemble(r.local, slice(ref, r.owned))));
    const auto g = fx::mpi::gather(MPI_COMM_WORLD, r);
    if (rank() == 0) CHECK(same_ensemble(g, ref));
  }
}

TEST_CASE("integrate: y' = -k y against its closed form, gathered") {
  constexpr std::size_t G = 29;
  std::vector<double> y0(G), k(G);
  for (std::size_t b = 0; b < G; ++b) {
    y0[b] = 0.5 + 0.1 * double(b);
    k[b] = 0.2 + 0.05 * double(b);  // per-trajectory decay rates from 0.2 to 1.6
  }
  const std::vector<double> ts = {0.25, 1.0, 2.5, 4.0};
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = 4, .save_times = ts, .rtol = 1e-12, .atol = 1e-14};
  fx::mpi::distribution d;
  d.kind = fx::mpi::schedule::dynamic;
  d.chunk = 2;
  const auto r =
      fx::mpi::integrate(MPI_COMM_WORLD, decay{}, fx::tsit5{}, pr, G, fx::soa(cspan(y0)), fx::soa(cspan(k)), d);
  for (std::size_t b = r.owned.begin; b < r.owned.end; ++b)
    for (std::size_t s = 0; s < ts.size(); ++s) {
      const double exact = y0[b] * std::exp(-k[b] * ts[s]);
      CHECK(std::fabs(r.local.saved(s, 0, b - r.owned.begin) - exact) <= 1e-10 * exact);
    }
  const auto g = fx::mpi::gather(MPI_COMM_WORLD, r);
  if (rank() == 0) {
    REQUIRE(g.trajectories == G);
    for (std::size_t b = 0; b < G; ++b) {
      CHECK(g.status[b] == fx::solve_status::success);
      for (std::size_t s = 0; s < ts.size(); ++s) {
        const double exact = y0[b] * std::exp(-k[b] * ts[s]);
        CHECK(std::fabs(g.saved(s, 0, b) - exact) <= 1e-10 * exact);
      }
      CHECK(std::fabs(g.final_value(0, b) - y0[b] * std::exp(-k[b] * 4.0)) <= 1e-10 * y0[b] * std::exp(-k[b] * 4.0));
    }
  }
}

TEST_CASE("integrate: input orders, local inputs, caller buffers, threads; failed trajectories keep their status") {
  constexpr std::size_t G = 17;
  const inputs in = lorenz_inputs(G, 3);
  const auto ref =
      fx::host::integrate(lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
  const auto o = fx::mpi::owned_range(G, rank(), ranks());
  const auto want = slice(ref, o);

  // Array of structures and a broadcast parameter set.
  std::vector<double> x0_aos(3 * G), p_one = {10.0, 28.0, 8.0 / 3.0};
  for (std::size_t b = 0; b < G; ++b)
    for (std::size_t i = 0; i < 3; ++i) x0_aos[b * 3 + i] = in.x0[i * G + b];
  const auto ref_b = fx::host::integrate(lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::aos(cspan(x0_aos)),
                                         fx::broadcast(cspan(p_one)));
  for (const auto& d : schedules()) {
    const auto r = fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::aos(cspan(x0_aos)),
                                      fx::broadcast(cspan(p_one)), d);
    CHECK(everywhere(same_ensemble(r.local, slice(ref_b, o))));
  }

  // This rank's inputs alone (static split), into buffers the caller owns, two threads.
  std::vector<double> x0_mine, p_mine;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t b = o.begin; b < o.end; ++b) {
      x0_mine.push_back(in.x0[i * G + b]);
      p_mine.push_back(in.p[i * G + b]);
    }
  fx::ensemble_result<double> mine = want;  // the right sizes, overwritten below
  std::fill(mine.saved_states.begin(), mine.saved_states.end(), -1.0);
  std::fill(mine.final_state.begin(), mine.final_state.end(), -1.0);
  fx::mpi::distribution local;
  local.inputs = fx::mpi::input_scope::local;
  local.exec = fx::host::threads(2, 1);
  fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(x0_mine)),
                     fx::soa(cspan(p_mine)),
                     fx::ensemble_buffers<double>{mine.saved_states, mine.final_state, mine.status, mine.stats}, local);
  CHECK(everywhere(same_ensemble(mine, want)));

  // The buffer form of gather, to the last rank, without statistics.
  std::vector<double> saved(3 * 3 * G), fin(3 * G);
  std::vector<fx::solve_status> st(G);
  const int root = ranks() - 1;
  fx::mpi::gather(MPI_COMM_WORLD, 3, 3, G,
                  fx::ensemble_buffers<double>{mine.saved_states, mine.final_state, mine.status},
                  fx::ensemble_buffers<double>{saved, fin, st}, root);
  if (rank() == root) {
    CHECK(same_bits(saved, ref.saved_states));
    CHECK(same_bits(fin, ref.final_state));
    CHECK(same_bits(st, ref.status));
  }

  // y' = k y^2 blows up at t = 1 / (k y0): trajectories past it fail, and keep their status.
  std::vector<double> y0(G), kk(G);
  for (std::size_t b = 0; b < G; ++b) {
    y0[b] = 1.0;
    kk[b] = b % 3 == 0 ? 2.0 : 0.1;  // blows up at t = 0.5 (inside the span) or t = 10
  }
  const fx::ode_problem<double> pb{.t0 = 0, .t1 = 2, .rtol = 1e-6, .atol = 1e-6};
  const auto ref_fail = fx::host::integrate(blowup{}, fx::tsit5{}, pb, G, fx::soa(cspan(y0)), fx::soa(cspan(kk)));
  REQUIRE(ref_fail.status[0] != fx::solve_status::success);
  REQUIRE(ref_fail.status[1] == fx::solve_status::success);
  for (const auto& d : schedules()) {
    const auto r =
        fx::mpi::integrate(MPI_COMM_WORLD, blowup{}, fx::tsit5{}, pb, G, fx::soa(cspan(y0)), fx::soa(cspan(kk)), d);
    CHECK(everywhere(same_ensemble(r.local, slice(ref_fail, r.owned))));
  }
}

// --- log_density -----------------------------------------------------------------------------

namespace {

const std::vector<double> ld_saves = {0.5, 1.0, 2.0, 3.0};
using obs = fx::observation<double>;
const std::vector<obs> ld_obs = {obs::exact(0.8), obs::exact(0.55), obs::exact(0.3), obs::exact(0.2)};
const fx::likelihood ld_lik(fx::series<fx::normal>{.name = "y", .observable = 0, .parameters = {1}});
const std::vector<fx::series_data<double>> ld_data = {{.values = ld_obs}};
const fx::ode_problem<double> ld_problem{.t0 = 0, .t1 = 3, .save_times = ld_saves, .rtol = 1e-12, .atol = 1e-14};

// Trajectory b: y0 near 1, k from 0.3 to 0.9, sd 0.2 (shared by every trajectory).
inputs observed_inputs(std::size_t G) {
  inputs in{std::vector<double>(G), std::vector<double>(2 * G)};
  for (std::size_t b = 0; b < G; ++b) {
    in.x0[b] = 1.0 + 0.01 * double(b % 5);
    in.p[b] = 0.3 + 0.6 * double(b) / double(G);
    in.p[G + b] = 0.2;
  }
  return in;
}

// The closed form: y = y0 e^(-k t), log L = sum_s -((o_s - y_s) / sd)^2 / 2 - log sd - log(2 pi) / 2,
// and its derivatives in k, sd, y0.
struct closed_form {
  double value, dk, dsd, dy0;
};
closed_form observed_closed_form(double y0, double k, double s) {
  closed_form c{0, 0, 0, 0};
  for (std::size_t i = 0; i < ld_saves.size(); ++i) {
    const double t = ld_saves[i], e = std::exp(-k * t), y = y0 * e, z = (ld_obs[i].value - y) / s;
    c.value += -0.5 * z * z - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
    c.dk += z / s * (-t * y);
    c.dy0 += z / s * e;
    c.dsd += z * z / s - 1 / s;
  }
  return c;
}

}  // namespace

TEST_CASE("log_density: static and dynamic equal one process bit for bit; gathers; values alone") {
  constexpr std::size_t G = 31;
  const inputs in = observed_inputs(G);
  const fx::priors<> none{};
  const auto ref = fx::host::log_density(observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data), none, G,
                                         fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
  const auto ref_values = fx::host::log_density(observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data), none,
                                                G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), false);
  for (const auto& d : schedules()) {
    const auto r = fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data),
                                        none, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), true, d);
    CHECK(everywhere(same_log_density(r.local, slice(ref, r.owned))));
    const int root = ranks() - 1;
    const auto g = fx::mpi::gather(MPI_COMM_WORLD, r, root);
    if (rank() == root) CHECK(same_log_density(g, ref));
    const auto v = fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data),
                                        none, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), false, d);
    CHECK(everywhere(same_log_density(v.local, slice(ref_values, v.owned))));
    const auto gv = fx::mpi::gather(MPI_COMM_WORLD, v);
    if (rank() == 0) CHECK(same_log_density(gv, ref_values));
  }
}

TEST_CASE("log_density: reduced totals are the exact sums of the single-process values, and match the closed form") {
  constexpr std::size_t G = 26;
  const inputs in = observed_inputs(G);
  const fx::priors<> none{};
  const auto ref = fx::host::log_density(observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data), none, G,
                                         fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
  const std::size_t shared[] = {1, 2, 0};  // sd, y0, k
  for (const auto& d : schedules()) {
    const auto r = fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data),
                                        none, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), true, d);
    const auto t = fx::mpi::reduce(MPI_COMM_WORLD, r, shared);
    REQUIRE(t.gradient.size() == 3);
    CHECK(std::bit_cast<std::uint64_t>(t.value) == std::bit_cast<std::uint64_t>(fsum(ref.value)));
    for (std::size_t s = 0; s < 3; ++s) {
      const std::vector<double> column(ref.gradients.begin() + std::ptrdiff_t(shared[s] * G),
                                       ref.gradients.begin() + std::ptrdiff_t((shared[s] + 1) * G));
      CHECK(std::bit_cast<std::uint64_t>(t.gradient[s]) == std::bit_cast<std::uint64_t>(fsum(column)));
    }
    CHECK(t.failed == 0);
    // The closed form, summed over trajectories.
    double value = 0, dsd = 0, dy0 = 0, dk = 0;
    for (std::size_t b = 0; b < G; ++b) {
      const auto c = observed_closed_form(in.x0[b], in.p[b], in.p[G + b]);
      value += c.value;
      dsd += c.dsd;
      dy0 += c.dy0;
      dk += c.dk;
    }
    CHECK(std::fabs(t.value - value) <= 1e-8 * std::fabs(value));
    CHECK(std::fabs(t.gradient[0] - dsd) <= 1e-7 * (1 + std::fabs(dsd)));
    CHECK(std::fabs(t.gradient[1] - dy0) <= 1e-7 * (1 + std::fabs(dy0)));
    CHECK(std::fabs(t.gradient[2] - dk) <= 1e-7 * (1 + std::fabs(dk)));
  }
  // Failed trajectories: -inf in the total, counted.
  const fx::ode_problem<double> short_budget{.t0 = 0, .t1 = 3, .save_times = ld_saves, .rtol = 1e-12, .atol = 1e-14,
                                             .max_steps = 3};
  const auto r = fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, short_budget, ld_lik, std::span(ld_data),
                                      none, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
  const auto t = fx::mpi::reduce(MPI_COMM_WORLD, r, shared);
  CHECK(t.failed == G);
  CHECK(t.value == -HUGE_VAL);
  CHECK(t.gradient[0] == 0.0);
  for (auto s : r.local.status) CHECK(s == fx::solve_status::max_steps);
}

// --- failures ---------------------------------------------------------------------------------

namespace {

// Runs call(bad) on every rank, bad on the last rank alone (or on every rank
// where all_bad); every rank must raise the same error, of type E.
template <class E, class F>
void same_error_everywhere(F&& call, const std::string& contains, bool all_bad = false) {
  const bool bad = all_bad || rank() == ranks() - 1;
  const std::string e = error_of([&] { call(bad); });
  INFO(e);
  CHECK(same_text_everywhere(e));
  CHECK_THAT(e, ContainsSubstring(contains));
  CHECK_THAT(e, ContainsSubstring(std::string(typeid(E).name()) + "|"));
}

bool all_minus_one(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == -1.0; });
}

}  // namespace

TEST_CASE("failures on one rank raise the same error on every rank before any work, nothing written") {
  constexpr std::size_t G = 11;
  const inputs in = lorenz_inputs(G, 9);
  const auto o = fx::mpi::owned_range(G, rank(), ranks());
  std::vector<double> saved(3 * 3 * o.size(), -1.0), fin(3 * o.size(), -1.0);
  std::vector<fx::solve_status> st(o.size(), fx::solve_status::max_steps);
  const auto out = [&] { return fx::ensemble_buffers<double>{saved, fin, st}; };
  for (const auto& d : schedules()) {
    // A bad problem on one rank.
    same_error_everywhere<fx::problem_error>(
        [&](bool bad) {
          fx::ode_problem<double> pr = lorenz_problem;
          if (bad) pr.rtol = -1;
          fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, pr, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)),
                             out(), d);
        },
        "the relative tolerance must be positive");
    // An output buffer too small on one rank.
    same_error_everywhere<fx::layout_error>(
        [&](bool bad) {
          fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(in.x0)),
                             fx::soa(cspan(in.p)),
                             fx::ensemble_buffers<double>{std::span(saved).first(bad ? saved.size() - 1 : saved.size()),
                                                          fin, st},
                             d);
        },
        "block 'saved states'");
    // A negative stride on one rank (the message shows it signed).
    same_error_everywhere<fx::layout_error>(
        [&](bool bad) {
          fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G,
                             bad ? fx::strided(cspan(in.x0), 1, -3) : fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)),
                             out(), d);
        },
        "instance stride must not be negative, got -3");
    // Ranks that disagree on the count (one rank cannot).
    if (ranks() > 1)
      same_error_everywhere<fx::problem_error>(
          [&](bool bad) {
            fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, bad ? G - 1 : G,
                               fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)), out(), d);
          },
          "the ranks disagree on the number of trajectories (from 10 to 11)");
    // An output overlapping the global inputs (this rank reads them all under the dynamic schedule).
    std::vector<double> p_copy = in.p;
    same_error_everywhere<fx::layout_error>(
        [&](bool bad) {
          fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(in.x0)),
                             fx::soa(cspan(p_copy)),
                             fx::ensemble_buffers<double>{saved, bad ? std::span(p_copy).last(fin.size()) : fin, st},
                             d);
        },
        "overlaps the input buffer of block 'parameter'");
    CHECK(everywhere(all_minus_one(saved) && all_minus_one(fin)));
    CHECK(everywhere(std::all_of(st.begin(), st.end(), [](auto s) { return s == fx::solve_status::max_steps; })));
  }
  // The dynamic schedule with local inputs.
  same_error_everywhere<fx::problem_error>(
      [&](bool) {
        fx::mpi::distribution d;
        d.kind = fx::mpi::schedule::dynamic;
        d.inputs = fx::mpi::input_scope::local;
        fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G, fx::soa(cspan(in.x0)),
                           fx::soa(cspan(in.p)), out(), d);
      },
      "the dynamic schedule reads the inputs of any chunk", true);
  // A gather to a rank that is not there.
  same_error_everywhere<fx::problem_error>(
      [&](bool) {
        const auto r = fx::mpi::integrate(MPI_COMM_WORLD, lorenz{}, fx::tsit5{}, lorenz_problem, G,
                                          fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
        fx::mpi::gather(MPI_COMM_WORLD, r, ranks());
      },
      "the root rank " + std::to_string(ranks()) + " is not among the", true);
}

TEST_CASE("log-density failures: bad data on one rank, a prior on no parameter, a shared column out of range") {
  constexpr std::size_t G = 7;
  const inputs in = observed_inputs(G);
  const fx::priors<> none{};
  const auto o = fx::mpi::owned_range(G, rank(), ranks());
  std::vector<double> value(o.size(), -1.0), grad(3 * o.size(), -1.0);
  std::vector<fx::solve_status> st(o.size(), fx::solve_status::max_steps);
  const std::vector<obs> nan_obs = {obs::exact(0.8), obs::exact(0.5), obs::exact(std::nan("")), obs::exact(0.2)};
  const std::vector<fx::series_data<double>> bad_data = {{.values = nan_obs}};
  for (const auto& d : schedules()) {
    same_error_everywhere<fx::data_error>(
        [&](bool bad) {
          fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik,
                               std::span(bad ? bad_data : ld_data), none, G, fx::soa(cspan(in.x0)),
                               fx::soa(cspan(in.p)), fx::log_density_buffers<double>{value, grad, st}, d);
        },
        "series 'y' at time index 2");
    CHECK(everywhere(all_minus_one(value) && all_minus_one(grad)));
  }
  same_error_everywhere<fx::problem_error>(
      [&](bool bad) {
        const fx::priors pri(fx::prior_on{bad ? 7 : 0, fx::normal_prior{0.5, 0.1}});
        fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik, std::span(ld_data), pri, G,
                             fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
      },
      "prior 0 is on parameter 7");
  same_error_everywhere<fx::problem_error>(
      [&](bool) {
        const auto r = fx::mpi::log_density(MPI_COMM_WORLD, observed{}, fx::tsit5{}, ld_problem, ld_lik,
                                            std::span(ld_data), none, G, fx::soa(cspan(in.x0)), fx::soa(cspan(in.p)));
        const std::size_t shared[] = {3};
        fx::mpi::reduce(MPI_COMM_WORLD, r, shared);
      },
      "shared column 3 is not among the 3 gradient columns", true);
}

TEST_CASE("an error of any other type on one rank becomes the same rank_error on every rank") {
  const std::string e = error_of([] {
    fx::mpi::detail::agree(MPI_COMM_WORLD, [] {
      if (rank() == ranks() - 1) throw std::runtime_error("out of something");
    });
  });
  INFO(e);
  CHECK(same_text_everywhere(e));
  CHECK_THAT(e, ContainsSubstring("fluxion::mpi: rank " + std::to_string(ranks() - 1) + " failed: out of something"));
  CHECK_THAT(e, ContainsSubstring(std::string(typeid(fx::mpi::rank_error).name()) + "|"));
}

TEST_CASE("the dynamic schedule: a chunk that fails stops no rank, and every rank raises its error") {
  // Chunks of one trajectory, each a block of one double: its index.
  constexpr std::size_t G = 23;
  const auto o = fx::mpi::owned_range(G, rank(), ranks());
  std::vector<double> mine(o.size(), -1.0);
  const std::vector<fx::mpi::detail::block_shape> shape = {{sizeof(double), 1}};
  const fx::mpi::detail::columns local{{fx::mpi::detail::block_of("index", std::span<double>(mine), 1)}, o.size()};
  const auto compute = [](std::size_t failing) {
    return [failing](const fx::mpi::range& r, const fx::mpi::detail::columns& out) {
      if (r.begin == failing) throw std::runtime_error("chunk " + std::to_string(failing) + " failed");
      double* index = reinterpret_cast<double*>(out.blocks[0].data);
      for (std::size_t b = r.begin; b < r.end; ++b) index[b - r.begin] = double(b);
    };
  };
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const auto report = fx::mpi::detail::run_dynamic(comm, G, 2, shape, local, compute(G));  // none fails
  bool placed = true;
  for (std::size_t b = 0; b < o.size(); ++b) placed = placed && mine[b] == double(o.begin + b);
  CHECK(everywhere(placed));
  std::uint64_t computed = report.trajectories;
  MPI_Allreduce(MPI_IN_PLACE, &computed, 1, MPI_UINT64_T, MPI_SUM, comm);
  CHECK(computed == G);
  for (std::size_t failing : {std::size_t(0), std::size_t(12), G - 1}) {
    const std::string e = error_of([&] { fx::mpi::detail::run_dynamic(comm, G, 1, shape, local, compute(failing)); });
    INFO(e);
    CHECK(same_text_everywhere(e));
    CHECK_THAT(e, ContainsSubstring("failed: chunk " + std::to_string(failing) + " failed"));
  }
  MPI_Comm_free(&comm);
}
