// Model A over a parameter grid across MPI ranks (examples/model_a_grid.hpp:
// transmission scale x infectious period, one trajectory a grid point),
// integrated by fx::mpi::integrate under the dynamic schedule: each rank
// owns a contiguous range of grid points and takes chunks from the others'
// when its own are done.
//
//   mpirun -n 4 model_a_sweep [G [out_dir]]     (G x G grid, default 64; out_dir default .)
//
// Writes, in out_dir:
//   model_a_sweep.rank<r>.csv    rank r's grid points: index, scale, period,
//                                status, attack rate (recovered fraction at
//                                t = 200), peak incidence and its save time
//   model_a_sweep.summary.txt    the ranks' shares and work, the statuses,
//                                and the attack rate over the grid as a
//                                character map (a figure of the grid)
//
// Self-checks (exit status 1 otherwise): every trajectory succeeds; each
// rank's first and last grid points equal fx::host::integrate of that point
// alone, bit for bit; every chunk was computed once (the ranks' trajectory
// counts add up to the grid); the attack rate grows with the transmission
// scale and with the infectious period.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fluxion/fluxion.hpp>
#include <fluxion/mpi.hpp>

#include "../model_a_grid.hpp"

namespace fx = fluxion;
using namespace model_a_grid;
using M = fx::compiled<model, double>;
using LS = M::layout::state;

namespace {

// The recovered fraction at the end and the peak of total incidence
// (sum over patches and stages of sigma E) over the save times, of local
// trajectory b of an ensemble result.
struct outcome {
  double attack_rate, peak_incidence, peak_time;
};
outcome outcome_of(const fx::ensemble_result<double>& r, std::size_t b, double sigma_value,
                   const std::vector<double>& ts) {
  double recovered = 0, total = 0;
  for (std::size_t i = 0; i < M::n_states; ++i) total += r.final_value(i, b);
  for (int pp = 0; pp < P; ++pp)
    for (int kk = 0; kk < K; ++kk) recovered += r.final_value(LS::offset(R, pp, kk), b);
  outcome o{recovered / total, 0, 0};
  for (std::size_t s = 0; s < ts.size(); ++s) {
    double inc = 0;
    for (int pp = 0; pp < P; ++pp)
      for (int kk = 0; kk < K; ++kk) inc += sigma_value * r.saved(s, LS::offset(E, pp, kk), b);
    if (inc > o.peak_incidence) o = {o.attack_rate, inc, ts[s]};
  }
  return o;
}

// Trajectory b of a structure-of-arrays batch of B as a batch of one.
std::span<const double> one(const std::vector<double>& v, std::size_t b) {
  return std::span<const double>(v).subspan(b);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rank = fx::mpi::rank_of(MPI_COMM_WORLD), ranks = fx::mpi::size_of(MPI_COMM_WORLD);
  const std::size_t G = argc > 1 ? std::size_t(std::strtoul(argv[1], nullptr, 10)) : 64;
  const std::string dir = argc > 2 ? argv[2] : ".";
  const std::size_t B = G * G;
  bool ok = G >= 2;

  // Every rank builds the whole grid's inputs (cheap next to integrating
  // it): the dynamic schedule may hand it any chunk.
  std::vector<double> x0, prm;
  grid_inputs(G, x0, prm);
  const auto ts = save_times();
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = t_end, .save_times = ts, .rtol = 1e-6, .atol = 1e-6};
  fx::mpi::distribution d;
  d.kind = fx::mpi::schedule::dynamic;
  const auto r = fx::mpi::integrate(MPI_COMM_WORLD, M{}, fx::tsit5{}, pr, B, fx::soa(std::span<const double>(x0)),
                                    fx::soa(std::span<const double>(prm)), d);
  const std::size_t mine = r.owned.size();

  // This rank's grid points.
  const double sigma_value = 1 / 5.2;
  std::vector<double> attack(mine);
  const std::string csv = dir + "/model_a_sweep.rank" + std::to_string(rank) + ".csv";
  if (FILE* f = std::fopen(csv.c_str(), "w")) {
    std::fprintf(f, "index,scale,period,status,attack_rate,peak_incidence,peak_time\n");
    for (std::size_t b = 0; b < mine; ++b) {
      const std::size_t g = r.owned.begin + b;
      const outcome o = outcome_of(r.local, b, sigma_value, ts);
      attack[b] = o.attack_rate;
      ok = ok && r.local.status[b] == fx::solve_status::success;
      std::fprintf(f, "%zu,%.6f,%.6f,%s,%.9f,%.6f,%.1f\n", g, 0.2 + 0.6 * double(g / G) / double(G - 1),
                   3.0 + 7.0 * double(g % G) / double(G - 1), fx::to_string(r.local.status[b]), o.attack_rate,
                   o.peak_incidence, o.peak_time);
    }
    std::fclose(f);
  } else {
    std::fprintf(stderr, "rank %d: cannot write %s\n", rank, csv.c_str());
    ok = false;
  }

  // The first and last of this rank's points against one process.
  for (std::size_t b : {std::size_t(0), mine > 0 ? mine - 1 : 0}) {
    if (mine == 0) break;
    const std::size_t g = r.owned.begin + b;
    const auto one_point = fx::host::integrate(M{}, fx::tsit5{}, pr, 1, fx::strided(one(x0, g), std::ptrdiff_t(B), 1),
                                               fx::strided(one(prm, g), std::ptrdiff_t(B), 1));
    for (std::size_t i = 0; i < M::n_states; ++i) ok = ok && one_point.final_value(i, 0) == r.local.final_value(i, b);
    for (std::size_t s = 0; s < ts.size(); ++s)
      for (std::size_t i = 0; i < M::n_states; ++i) ok = ok && one_point.saved(s, i, 0) == r.local.saved(s, i, b);
  }

  // The attack rates and the ranks' reports on rank 0.
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displacements(static_cast<std::size_t>(ranks));
  for (int q = 0; q < ranks; ++q) {
    const auto o = fx::mpi::owned_range(B, q, ranks);
    counts[std::size_t(q)] = int(o.size());
    displacements[std::size_t(q)] = int(o.begin);
  }
  std::vector<double> all(rank == 0 ? B : 0);
  MPI_Gatherv(attack.data(), int(mine), MPI_DOUBLE, all.data(), counts.data(), displacements.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  const double mine_report[5] = {double(r.report.trajectories), double(r.report.chunks), double(r.report.chunks_taken),
                                 double(r.report.chunks_given), r.report.seconds};
  std::vector<double> reports(rank == 0 ? 5 * std::size_t(ranks) : 0);
  MPI_Gather(mine_report, 5, MPI_DOUBLE, reports.data(), 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  long long failed = 0, failed_here = 0;
  for (auto s : r.local.status) failed_here += s != fx::solve_status::success;
  MPI_Reduce(&failed_here, &failed, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    double computed = 0;
    for (int q = 0; q < ranks; ++q) computed += reports[5 * std::size_t(q)];
    ok = ok && computed == double(B);
    // Monotone in the scale (rows) and the period (columns).
    for (std::size_t i = 0; i < G; ++i)
      for (std::size_t j = 0; j < G; ++j) {
        if (i > 0) ok = ok && all[i * G + j] >= all[(i - 1) * G + j] - 1e-9;
        if (j > 0) ok = ok && all[i * G + j] >= all[i * G + j - 1] - 1e-9;
      }
    const std::string path = dir + "/model_a_sweep.summary.txt";
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      ok = false;
    } else {
      std::fprintf(f, "Model A over a %zu x %zu grid (%zu trajectories, Tsit5, rtol = atol = 1e-6, t in [0, %g])\n",
                   G, G, B, t_end);
      std::fprintf(f, "%d rank(s), dynamic schedule; failed trajectories: %lld\n\n", ranks, failed);
      std::fprintf(f, "rank  owned  computed  chunks  taken  given  seconds\n");
      for (int q = 0; q < ranks; ++q) {
        const double* rq = &reports[5 * std::size_t(q)];
        std::fprintf(f, "%4d %6d %9.0f %7.0f %6.0f %6.0f %8.3f\n", q, counts[std::size_t(q)], rq[0], rq[1], rq[2],
                     rq[3], rq[4]);
      }
      const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
      std::fprintf(f, "\nattack rate (recovered fraction at t = %g): from %.4f to %.4f\n", t_end, *lo, *hi);
      std::fprintf(f, "rows: transmission scale 0.2 (top) to 0.8; columns: infectious period 3 (left) to 10 days\n");
      std::fprintf(f, "map: ' .:-=+*#%%@' from 0 to 1 in tenths\n\n");
      const char* shades = " .:-=+*#%@";
      const std::size_t step = G > 64 ? (G + 63) / 64 : 1;  // at most 64 characters a row
      for (std::size_t i = 0; i < G; i += step) {
        std::fputc('|', f);
        for (std::size_t j = 0; j < G; j += step)
          std::fputc(shades[std::min(9, int(all[i * G + j] * 10))], f);
        std::fputs("|\n", f);
      }
      std::fclose(f);
      std::printf("model_a_sweep: %zu x %zu grid on %d rank(s); attack rate %.4f to %.4f; wrote %s and %s\n", G, G,
                  ranks, *lo, *hi, path.c_str(), (dir + "/model_a_sweep.rank*.csv").c_str());
    }
  }
  int all_ok = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && !all_ok) std::fprintf(stderr, "model_a_sweep: a self-check failed\n");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
