// The MPI layer on the host (include/fluxion/mpi/): run under mpirun with
// 1, 2, ... ranks (bench/run_mpi.sh), one host thread a rank unless
// --threads T; JSON lines on rank 0's stdout, one a measurement.
//
//   mpirun -n R fluxion-bench-mpi [--lorenz N] [--robertson N] [--uneven N] [--repeats K] [--threads T]
//
// Cases (each timed from a barrier before the call to a barrier after it,
// so a rank's wait for the slowest is counted; the best of K runs after one
// warm-up run, and their median):
//   lorenz-strong, robertson-strong   N trajectories in all (Tsit5; Rodas5P), the static split
//   lorenz-weak, robertson-weak       N trajectories a rank
//   uneven-sorted, uneven-shuffled    an oscillator x'' = -w^2 x over 20 time units, w from 1 to 10
//                                     (Tsit5's steps, so a trajectory's cost, grow with w: 10x from
//                                     the cheapest to the dearest), N in all, w increasing with the
//                                     trajectory (the dear ones on the last ranks) or shuffled;
//                                     static split and dynamic schedule (automatic chunks)
//   overhead                          a call with one trajectory a rank (the agreement and the
//                                     communicator's duplicate, no work to speak of), mean of 200
//   sum                               fx::mpi::sum of 10^6 doubles a rank (exact summation and one
//                                     MPI_Allreduce), mean of 20
//   gather                            fx::mpi::gather of the lorenz-strong result to rank 0 (bytes a second)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fluxion/fluxion.hpp>
#include <fluxion/mpi.hpp>

#include "support/closed_form_models.hpp"
#include "support/lorenz63.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;

namespace {

int rank = 0, ranks = 1;
unsigned threads = 1;

struct timing {
  double best, median;
};
template <class F>
timing time_it(int repeats, F&& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    MPI_Barrier(MPI_COMM_WORLD);
    t.push_back(MPI_Wtime() - t0);
  }
  std::sort(t.begin(), t.end());
  // Rank 0's clock decides (the barriers make the ranks' times alike).
  MPI_Bcast(t.data(), int(t.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return {t.front(), t[t.size() / 2]};
}

void emit(const std::string& fields, std::size_t trajectories, const timing& t) {
  if (rank != 0) return;
  std::printf(
      "{\"bench\": \"mpi_scaling\", %s, \"ranks\": %d, \"threads_per_rank\": %u, \"trajectories\": %zu, "
      "\"seconds\": %.6f, \"median_seconds\": %.6f, \"trajectories_per_second\": %.1f}\n",
      fields.c_str(), ranks, threads, trajectories, t.best, t.median, double(trajectories) / t.best);
  std::fflush(stdout);
}

std::span<const double> cs(const std::vector<double>& v) { return std::span<const double>(v); }

template <class M, class Method>
void ensemble_case(const char* name, const char* scaling, Method method, const fx::ode_problem<double>& pr,
                   std::size_t count, const std::vector<double>& x0, const std::vector<double>& p, int repeats,
                   const fx::mpi::distribution& d, fx::mpi::distributed_ensemble<double>* keep = nullptr) {
  fx::mpi::distributed_ensemble<double> r;
  const timing t = time_it(repeats, [&] {
    r = fx::mpi::integrate(MPI_COMM_WORLD, M{}, method, pr, count, fx::soa(cs(x0)), fx::soa(cs(p)), d);
  });
  for (auto s : r.local.status)
    if (s != fx::solve_status::success) std::fprintf(stderr, "%s: a trajectory failed (%s)\n", name, fx::to_string(s));
  // The chunks moved between ranks (the dynamic schedule), and the spread
  // of the trajectories' steps (accepted and rejected): their cost.
  unsigned long long moved = r.report.chunks_taken;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  int steps[2] = {1 << 30, 0};  // the fewest (as its negation below), the most
  for (const auto& st : r.local.stats) {
    steps[0] = std::min(steps[0], st.accepted + st.rejected);
    steps[1] = std::max(steps[1], st.accepted + st.rejected);
  }
  steps[0] = -steps[0];
  MPI_Allreduce(MPI_IN_PLACE, steps, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  emit(std::string("\"case\": \"") + name + "\", \"scaling\": \"" + scaling + "\", \"schedule\": \"" +
           (d.kind == fx::mpi::schedule::dynamic ? "dynamic" : "static") + "\", \"chunks_moved\": " +
           std::to_string(moved) + ", \"steps_min\": " + std::to_string(-steps[0]) +
           ", \"steps_max\": " + std::to_string(steps[1]),
       count, t);
  if (keep) *keep = std::move(r);
}

// Lorenz: x0 near the attractor, parameters about the classic ones.
void lorenz_inputs(std::size_t n, std::vector<double>& x0, std::vector<double>& p) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  x0.resize(3 * n);
  p.resize(3 * n);
  for (std::size_t b = 0; b < n; ++b) {
    x0[b] = 5 * u(rng);
    x0[n + b] = 5 * u(rng);
    x0[2 * n + b] = 20 + 5 * u(rng);
    p[b] = 10;
    p[n + b] = 28 + u(rng);
    p[2 * n + b] = 8.0 / 3;
  }
}
// Robertson: (1, 0, 0), rate constants within 10% of (0.04, 3e7, 1e4).
void robertson_inputs(std::size_t n, std::vector<double>& x0, std::vector<double>& p) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(0.9, 1.1);
  x0.assign(3 * n, 0.0);
  p.resize(3 * n);
  for (std::size_t b = 0; b < n; ++b) {
    x0[b] = 1;
    p[b] = 0.04 * u(rng);
    p[n + b] = 3e7 * u(rng);
    p[2 * n + b] = 1e4 * u(rng);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::size_t n_lorenz = 20000, n_robertson = 40000, n_uneven = 20000;
  int repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const std::size_t v = std::size_t(std::strtoull(argv[i + 1], nullptr, 10));
    if (a == "--lorenz") n_lorenz = v;
    else if (a == "--robertson") n_robertson = v;
    else if (a == "--uneven") n_uneven = v;
    else if (a == "--repeats") repeats = int(v);
    else if (a == "--threads") threads = unsigned(v);
  }
  fx::mpi::distribution stat;
  stat.exec = fx::host::threads(threads, 1);
  fx::mpi::distribution dyn = stat;
  dyn.kind = fx::mpi::schedule::dynamic;

  using lorenz = fx::compiled<lorenz63::lorenz, double>;
  using robertson = fx::compiled<stiff_models::robertson, double>;
  using oscillator = fx::compiled<closed_form_models::oscillator, double>;
  const fx::ode_problem<double> lorenz_pr{.t0 = 0, .t1 = 10, .rtol = 1e-8, .atol = 1e-8};
  const fx::ode_problem<double> robertson_pr{.t0 = 0, .t1 = 1e5, .rtol = 1e-6, .atol = 1e-10};
  std::vector<double> x0, p;

  fx::mpi::distributed_ensemble<double> kept;
  lorenz_inputs(n_lorenz, x0, p);
  ensemble_case<lorenz>("lorenz", "strong", fx::tsit5{}, lorenz_pr, n_lorenz, x0, p, repeats, stat, &kept);
  {
    const std::size_t bytes = kept.count * (kept.local.states * sizeof(double) + sizeof(fx::solve_status) +
                                            sizeof(fx::solve_statistics));
    const timing t = time_it(repeats, [&] { fx::mpi::gather(MPI_COMM_WORLD, kept, 0); });
    if (rank == 0)
      std::printf("{\"bench\": \"mpi_scaling\", \"case\": \"gather\", \"ranks\": %d, \"trajectories\": %zu, "
                  "\"bytes\": %zu, \"seconds\": %.6f, \"bytes_per_second\": %.3e}\n",
                  ranks, kept.count, bytes, t.best, double(bytes) / t.best);
  }
  lorenz_inputs(n_lorenz * std::size_t(ranks), x0, p);
  ensemble_case<lorenz>("lorenz", "weak", fx::tsit5{}, lorenz_pr, n_lorenz * std::size_t(ranks), x0, p, repeats, stat);
  robertson_inputs(n_robertson, x0, p);
  ensemble_case<robertson>("robertson", "strong", fx::rodas5p{}, robertson_pr, n_robertson, x0, p, repeats, stat);
  robertson_inputs(n_robertson * std::size_t(ranks), x0, p);
  ensemble_case<robertson>("robertson", "weak", fx::rodas5p{}, robertson_pr, n_robertson * std::size_t(ranks), x0, p,
                           repeats, stat);

  // x'' = -w^2 x, w from 1 to 10: sorted (increasing with the trajectory), then shuffled.
  const fx::ode_problem<double> osc_pr{.t0 = 0, .t1 = 20, .rtol = 1e-8, .atol = 1e-8};
  std::vector<double> w(n_uneven);
  for (std::size_t b = 0; b < n_uneven; ++b) w[b] = 1 + 9 * double(b) / double(n_uneven > 1 ? n_uneven - 1 : 1);
  x0.assign(2 * n_uneven, 0.0);
  std::fill(x0.begin(), x0.begin() + std::ptrdiff_t(n_uneven), 1.0);
  for (const char* order : {"uneven-sorted", "uneven-shuffled"}) {
    if (std::string(order) == "uneven-shuffled") std::shuffle(w.begin(), w.end(), std::mt19937_64(3));
    ensemble_case<oscillator>(order, "strong", fx::tsit5{}, osc_pr, n_uneven, x0, w, repeats, stat);
    ensemble_case<oscillator>(order, "strong", fx::tsit5{}, osc_pr, n_uneven, x0, w, repeats, dyn);
  }

  // What a call costs beyond its work.
  {
    using decay = fx::compiled<closed_form_models::decay, double>;
    const std::size_t count = std::size_t(ranks);
    std::vector<double> y(count, 1.0), k(count, 1.0);
    const fx::ode_problem<double> pr{.t0 = 0, .t1 = 1e-3, .rtol = 1e-3, .atol = 1e-3};
    std::vector<double> saved, fin(1);
    std::vector<fx::solve_status> st(1);
    constexpr int calls = 200;
    const timing t = time_it(3, [&] {
      for (int c = 0; c < calls; ++c)
        fx::mpi::integrate(MPI_COMM_WORLD, decay{}, fx::tsit5{}, pr, count, fx::soa(cs(y)), fx::soa(cs(k)),
                           fx::ensemble_buffers<double>{saved, fin, st}, stat);
    });
    if (rank == 0)
      std::printf("{\"bench\": \"mpi_scaling\", \"case\": \"overhead\", \"ranks\": %d, \"seconds_per_call\": %.3e, "
                  "\"median_seconds_per_call\": %.3e}\n",
                  ranks, t.best / calls, t.median / calls);
  }
  {
    std::vector<double> values(1000000);
    std::mt19937_64 rng(4);
    std::normal_distribution<double> g;
    for (auto& v : values) v = g(rng);
    constexpr int calls = 20;
    double total = 0;
    const timing t = time_it(3, [&] {
      for (int c = 0; c < calls; ++c) total += fx::mpi::sum(MPI_COMM_WORLD, cs(values));
    });
    if (rank == 0)
      std::printf("{\"bench\": \"mpi_scaling\", \"case\": \"sum\", \"ranks\": %d, \"values_per_rank\": %zu, "
                  "\"seconds_per_call\": %.3e, \"values_per_second_per_rank\": %.3e, \"check\": %.3f}\n",
                  ranks, values.size(), t.best / calls, double(values.size()) * calls / t.best, total);
  }
  MPI_Finalize();
  return 0;
}
