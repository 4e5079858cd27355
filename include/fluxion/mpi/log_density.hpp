#pragma once
// Log-densities (and their gradients) of trajectories across the ranks of an
// MPI communicator, on each rank's host threads, by
// fluxion::host::log_density; their totals reduced across the ranks.
//
//   auto r = fx::mpi::log_density(MPI_COMM_WORLD, M{}, fx::tsit5{}, pr, lik, data, pri, count, x0, p);
//   r.local.value[b - r.owned.begin], r.local.gradient(j, b - r.owned.begin)   // b in r.owned
//   const std::size_t shared[] = {2, 3};                 // gradient columns summed over trajectories
//   auto t = fx::mpi::reduce(MPI_COMM_WORLD, r, shared); // on every rank
//   t.value, t.gradient[0], t.gradient[1], t.failed
//   auto all = fx::mpi::gather(MPI_COMM_WORLD, r, 0);   // on rank 0: the single-process result
//
// Layout: as for integrate (mpi/integrate.hpp): each rank holds its owned
// range's log_density_result (value[b], gradients [column][trajectory],
// status, statistics) for owned.size() trajectories; gather() assembles the
// single-process result on one rank.
//
// What reduce() reduces (every rank gets the same totals):
//   value        the sum over all `count` trajectories of their
//                log-densities, priors included, as the trajectories computed
//                them: a trajectory that failed adds -inf (so the total is
//                -inf), one outside a prior's support adds -inf;
//   gradient[k]  the sum over all trajectories of gradient column shared[k]
//                (columns: the parameters, then the initial states). Where
//                the trajectories are independent units (regions, groups)
//                sharing parameter j, this is the gradient of `value` with
//                respect to j. A prior on a shared parameter counts once per
//                trajectory: put it on one trajectory, or add it once yourself;
//   failed       the number of trajectories whose status is not success.
// Each sum is the exact sum of its terms rounded once (mpi/exact_sum.hpp):
// the same bits for any number of ranks, schedule or order, equal to
// Python's math.fsum over the gathered values.
//
// Every rank calls with the same problem shape, likelihood, data sizes,
// count and distribution; errors on any rank are raised on every rank
// before any work (mpi/agree.hpp), nothing written.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fluxion/infer/buffers.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/mpi/detail/columns.hpp>
#include <fluxion/mpi/detail/distributed_call.hpp>
#include <fluxion/mpi/exact_sum.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/mpi/reduce.hpp>
#include <fluxion/mpi/schedule.hpp>
#include <fluxion/solve/sensitivity.hpp>

namespace fluxion::mpi {

// This rank's part of a distributed log-density (mpi/schedule.hpp).
template <class T>
using distributed_log_density = distributed<log_density_result<T>>;

// The totals of reduce(): the same on every rank.
template <class T>
struct log_density_totals {
  T value = T(0);            // sum of every trajectory's log-density
  std::vector<T> gradient;   // sum of gradient column shared[k], for each k
  std::size_t failed = 0;    // trajectories whose status is not success
};

namespace detail {

// A log-density's result blocks (detail/columns.hpp): the gradient's
// `columns` rows where gradients are computed, none otherwise.
inline scalar_block value_block() { return {"log-density", 1}; }
inline scalar_block gradient_block(std::size_t cols, bool gradient) { return {"gradient", gradient ? cols : 0}; }
template <class T>
columns log_density_columns(const log_density_buffers<T>& out, std::size_t cols, std::size_t count, bool gradient,
                            bool with_stats) {
  return result_columns(value_block(), out.value, gradient_block(cols, gradient), out.gradients, out.status,
                        out.stats, count, with_stats);
}
template <class T>
log_density_buffers<T> log_density_buffers_of(const columns& c) {
  const auto s = spans_of<T>(c);
  return {s.a, s.b, s.status, s.stats};
}
template <class T>
log_density_buffers<T> buffers_of(log_density_result<T>& r) {
  return {std::span<T>(r.value), std::span<T>(r.gradients), std::span<solve_status>(r.status),
          std::span<solve_statistics>(r.stats)};
}

}  // namespace detail

namespace detail {

// Where a rank computes its log-densities: its host threads (here), or its
// GPU (mpi/cuda.hpp), as for integrate (mpi/integrate.hpp).
struct host_log_densities {
  static constexpr bool dynamic = true;
  host::threads exec;
  template <class Bundle>
  void check_memory(const Bundle&) const {}
  template <class M, class Method, class T, class Lik, class Pri>
  void log_density(const M& m, Method method, const ode_problem<T>& pr, const Lik& lik,
                   std::span<const series_data<T>> data, const Pri& pri, std::size_t count, batch<const T> x0,
                   batch<const T> p, const log_density_buffers<T>& out) const {
    host::log_density(m, method, pr, lik, data, pri, count, x0, p, out, exec);
  }
};

// The buffer form below, its ranges run by `on`.
template <class On, class M, class Method, class Lik, class Pri>
schedule_report log_density_on(const On& on, MPI_Comm comm, const M& m, Method method,
                               const ode_problem<typename M::scalar>& pr, const Lik& lik,
                               std::span<const series_data<typename M::scalar>> data, const Pri& pri,
                               std::size_t count, batch<const typename M::scalar> x0,
                               batch<const typename M::scalar> p, const log_density_buffers<typename M::scalar>& out,
                               const distribution& d) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states, cols = M::n_params + M::n_states;
  const bool owns = owned_range(count, rank_of(comm), size_of(comm)).size() > 0;
  return run_distributed<On::dynamic, T>(
      comm, count, x0, n, p, M::n_params, d,
      {{"the number of save times", pr.save_times.size()},
       {"the number of data series", data.size()},
       {"whether gradients are computed", !out.gradients.empty(), owns},
       {"whether statistics are recorded", !out.stats.empty(), owns}},
      [&](const std::vector<std::uint64_t>& agreed) {
        return result_shape<T>(value_block(), gradient_block(cols, agreed[2] != 0), agreed[3] != 0);
      },
      [&](const range& owned, batch<const T> x0_owned, batch<const T> p_owned,
          const std::vector<std::uint64_t>& agreed) {
        const bool gradient = agreed[2] != 0;
        fluxion::detail::log_density_setup<T> setup;
        const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, gradient, setup);
        using E = fluxion::detail::integrated_model_t<M, Lik>;
        check_problem(aug, gradient ? sensitivity_system<E>::n_states : E::n_states, E::n_params);
        on.check_memory(
            fluxion::detail::check_log_density_buffers<T>(n, M::n_params, owned.size(), x0_owned, p_owned, out));
        return log_density_columns(out, cols, owned.size(), gradient, agreed[3] != 0);
      },
      [&](const range& r, batch<const T> x0_r, batch<const T> p_r, const columns& o) {
        on.log_density(m, method, pr, lik, data, pri, r.size(), x0_r, p_r, log_density_buffers_of<T>(o));
      });
}

}  // namespace detail

// Into buffers the caller owns: out holds this rank's owned range,
// owned_range(count, rank, ranks).size() trajectories, in the layout of
// fluxion::log_density_buffers (out.gradients empty: values alone; out.stats
// empty: no statistics; alike on every rank that owns trajectories).
template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
schedule_report log_density(MPI_Comm comm, const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                            const Lik& lik, std::span<const series_data<typename M::scalar>> data, const Pri& pri,
                            std::size_t count, batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                            const log_density_buffers<typename M::scalar>& out, const distribution& d = {}) {
  return detail::log_density_on(detail::host_log_densities{d.exec}, comm, m, method, pr, lik, data, pri, count, x0, p,
                                out, d);
}

// Into a new distributed_log_density (statistics recorded; the gradient
// with `gradient`): this rank's results, allocated after the checks.
template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
distributed_log_density<typename M::scalar> log_density(MPI_Comm comm, const M& m, Method method,
                                                        const ode_problem<typename M::scalar>& pr, const Lik& lik,
                                                        std::span<const series_data<typename M::scalar>> data,
                                                        const Pri& pri, std::size_t count,
                                                        batch<const typename M::scalar> x0,
                                                        batch<const typename M::scalar> p, bool gradient = true,
                                                        const distribution& d = {}) {
  using T = typename M::scalar;
  distributed_log_density<T> r;
  r.count = count;
  r.owned = owned_range(count, rank_of(comm), size_of(comm));
  {
    const detail::private_comm c(comm);
    // (The distributed result carries no series values: 0 series.)
    detail::agree(c.get(),
                  [&] { r.local = fluxion::detail::sized_log_density_result<M>(r.owned.size(), gradient, 0); });
  }
  r.report = log_density(comm, m, method, pr, lik, data, pri, count, x0, p, detail::buffers_of(r.local), d);
  return r;
}

// The totals (above) of the log-densities of `count` trajectories, this
// rank holding its owned range: value and status (owned.size() values
// each) and, where `shared` names columns, gradients ([column][trajectory],
// `columns` columns). Collective; checked and agreed on first.
template <class T>
log_density_totals<T> reduce(MPI_Comm comm, std::size_t count, std::size_t columns, std::span<const T> value,
                             std::span<const T> gradients, std::span<const solve_status> status,
                             std::span<const std::size_t> shared = {}) {
  const detail::private_comm c(comm);
  const std::size_t k = owned_range(count, c.rank(), c.size()).size();
  std::vector<detail::same_value> same = {{"the number of gradient columns", columns},
                                          {"the number of shared columns", shared.size()}};
  for (const std::size_t j : shared) same.push_back({"a shared column", j});
  detail::agree_on_values(c.get(), {{"the number of trajectories", count}}, same);
  detail::agree(c.get(), [&] {
    if (value.size() < k)
      throw layout_error("log-density", "buffer too small for this rank's trajectories", k, value.size());
    if (status.size() < k)
      throw layout_error("status", "buffer too small for this rank's trajectories", k, status.size());
    for (const std::size_t j : shared)
      if (j >= columns)
        throw problem_error("fluxion::mpi: shared column " + std::to_string(j) + " is not among the " +
                            std::to_string(columns) + " gradient columns");
    if (!shared.empty() && gradients.size() < columns * k)
      throw layout_error("gradient", "buffer too small for this rank's trajectories' " + std::to_string(columns) +
                                         " columns (were gradients computed?)",
                         columns * k, gradients.size());
  });
  std::vector<exact_sum> sums(1 + shared.size());
  std::vector<std::int64_t> failed(1, 0);
  for (std::size_t b = 0; b < k; ++b) {
    sums[0].add(value[b]);
    if (status[b] != solve_status::success) ++failed[0];
  }
  for (std::size_t s = 0; s < shared.size(); ++s)
    for (std::size_t b = 0; b < k; ++b) sums[1 + s].add(gradients[shared[s] * k + b]);
  detail::allreduce_sums(c.get(), sums, failed);
  log_density_totals<T> t;
  t.value = sums[0].value<T>();
  for (std::size_t s = 0; s < shared.size(); ++s) t.gradient.push_back(sums[1 + s].value<T>());
  t.failed = std::size_t(failed[0]);
  return t;
}

template <class T>
log_density_totals<T> reduce(MPI_Comm comm, const distributed_log_density<T>& r,
                             std::span<const std::size_t> shared = {}) {
  return reduce(comm, r.count, r.local.columns, std::span<const T>(r.local.value),
                std::span<const T>(r.local.gradients), std::span<const solve_status>(r.local.status), shared);
}

// Every rank's owned log-densities (local) into `global` on rank root
// (count trajectories, the single-process layout; ignored elsewhere).
// columns: the gradient's columns (n_params + n_states); gradients and
// statistics are in both or in neither. Collective; checked and agreed on first.
template <class T>
void gather(MPI_Comm comm, std::size_t columns, std::size_t count, const log_density_buffers<T>& local,
            const log_density_buffers<T>& global, int root = 0) {
  const bool owns = owned_range(count, rank_of(comm), size_of(comm)).size() > 0;
  detail::gather_distributed(
      comm, count, root,
      {{"the number of gradient columns", columns},
       {"whether gradients are computed", !local.gradients.empty(), owns},
       {"whether statistics are recorded", !local.stats.empty(), owns}},
      [&](const range& owned, const std::vector<std::uint64_t>& agreed) {
        return detail::log_density_columns(local, columns, owned.size(), agreed[1] != 0, agreed[2] != 0);
      },
      [&](const std::vector<std::uint64_t>& agreed) {
        if (count > 0 && (global.gradients.empty() == (agreed[1] != 0) || global.stats.empty() == (agreed[2] != 0)))
          throw problem_error("fluxion::mpi: gradients or statistics are in the local results or in the global ones "
                              "but not in both; give both or neither");
        return detail::log_density_columns(global, columns, count, agreed[1] != 0, agreed[2] != 0);
      });
}

// The global result on rank root (the single-process log_density_result of
// r.count trajectories); an empty one (no trajectories) on the other ranks.
template <class T>
log_density_result<T> gather(MPI_Comm comm, const distributed_log_density<T>& r, int root = 0) {
  log_density_result<T> g;
  const std::size_t cols = r.local.columns;
  {
    const detail::private_comm c(comm);
    // Whether gradients were computed: a rank that owns no trajectory cannot tell from its empty vectors.
    int any = r.local.gradients.empty() ? 0 : 1;
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, c.get()), "MPI_Allreduce");
    detail::agree(c.get(), [&] {
      if (c.rank() != root) return;
      g.trajectories = r.count;
      g.columns = cols;
      g.value.assign(result_values<T>("log-density", r.count, 1), T(0));
      g.gradients.assign(any ? result_values<T>("gradient", r.count, cols) : 0, T(0));
      g.status.assign(result_values<solve_status>("status", r.count, 1), solve_status::success);
      g.stats.assign(result_values<solve_statistics>("statistics", r.count, 1), solve_statistics{});
    });
  }
  auto& l = const_cast<log_density_result<T>&>(r.local);  // read only: the gather's source
  gather(comm, cols, r.count, detail::buffers_of(l), detail::buffers_of(g), root);
  return g;
}

}  // namespace fluxion::mpi
