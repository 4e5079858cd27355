#pragma once
// Ensembles integrated across the ranks of an MPI communicator, on each
// rank's host threads, by fluxion::host::integrate.
//
//   MPI_Init(&argc, &argv);
//   fx::ode_problem<double> pr{.t0 = 0, .t1 = 10, .save_times = ts};
//   auto r = fx::mpi::integrate(MPI_COMM_WORLD, M{}, fx::tsit5{}, pr, count, fx::soa(x0), fx::soa(p));
//   r.owned                      // [begin, end): this rank's trajectories (fx::mpi::owned_range)
//   r.local.saved(s, i, b - r.owned.begin)   // trajectory b's state i at save time s, b in r.owned
//   auto all = fx::mpi::gather(MPI_COMM_WORLD, r, 0);   // on rank 0: the single-process result
//
// Layout: each rank holds its owned range's results in the single-process
// layout for owned.size() trajectories (ensemble_result, or the caller's
// ensemble_buffers: saved [save][state][trajectory], final [state]
// [trajectory], statuses, statistics), trajectory owned.begin + b at b.
// Left distributed; gather() assembles the global result, the layout of
// fluxion::host::integrate for count trajectories, on one rank, the same
// bits as one process computing the whole batch.
//
// Every rank calls with the same problem shape, count and distribution
// (mpi/schedule.hpp: the static split, the dynamic schedule, global or local
// inputs). Before any rank starts, every rank checks what it was given, and
// an error on any rank is raised on every rank: the same type and message
// (mpi/agree.hpp), nothing written. A trajectory whose integration fails
// keeps its status, as in one process.
#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include <fluxion/layout/batch.hpp>
#include <fluxion/mpi/detail/columns.hpp>
#include <fluxion/mpi/detail/distributed_call.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/mpi/schedule.hpp>
#include <fluxion/solve/buffers.hpp>
#include <fluxion/solve/concepts.hpp>
#include <fluxion/solve/host.hpp>
#include <fluxion/solve/problem.hpp>

namespace fluxion::mpi {

// This rank's part of a distributed ensemble (mpi/schedule.hpp).
template <class T>
using distributed_ensemble = distributed<ensemble_result<T>>;

namespace detail {

// An ensemble's result blocks (detail/columns.hpp).
inline scalar_block saved_block(std::size_t n, std::size_t n_save) { return {"saved states", n_save * n}; }
inline scalar_block final_block(std::size_t n) { return {"final state", n}; }
template <class T>
columns ensemble_columns(const ensemble_buffers<T>& out, std::size_t n, std::size_t n_save, std::size_t count,
                         bool with_stats) {
  return result_columns(saved_block(n, n_save), out.saved, final_block(n), out.final_state, out.status, out.stats,
                        count, with_stats);
}
// An ensemble_result of count trajectories (zeros, success), its sizes
// checked first (a layout_error before anything is allocated).
template <class T>
ensemble_result<T> sized_ensemble_result(std::size_t n, std::size_t n_save, std::size_t count) {
  const auto sizes = fluxion::detail::checked_ensemble_result_sizes<T>(n, n_save, count);
  ensemble_result<T> r;
  r.trajectories = count;
  r.states = n;
  r.save_count = n_save;
  r.saved_states.assign(sizes.saved, T(0));
  r.final_state.assign(sizes.final_state, T(0));
  r.status.assign(sizes.status, solve_status::success);
  r.stats.assign(sizes.stats, solve_statistics{});
  return r;
}
template <class T>
ensemble_buffers<T> buffers_of(ensemble_result<T>& r) {
  return {std::span<T>(r.saved_states), std::span<T>(r.final_state), std::span<solve_status>(r.status),
          std::span<solve_statistics>(r.stats)};
}

template <class T>
ensemble_buffers<T> ensemble_buffers_of(const columns& c) {
  const auto s = spans_of<T>(c);
  return {s.a, s.b, s.status, s.stats};
}

}  // namespace detail

namespace detail {

// Where a rank integrates its trajectories: its host threads (here), or its
// GPU (mpi/cuda.hpp): the single-process call for a range of trajectories,
// the checks that call adds to the host's (device memory), and whether the
// dynamic schedule may run.
struct host_integrations {
  static constexpr bool dynamic = true;
  host::threads exec;
  template <class Bundle>
  void check_memory(const Bundle&) const {}
  template <class M, class Method, class T>
  void integrate(const M& m, Method method, const ode_problem<T>& pr, std::size_t count, batch<const T> x0,
                 batch<const T> p, const ensemble_buffers<T>& out) const {
    host::integrate(m, method, pr, count, x0, p, out, exec);
  }
};

// The buffer form below, its ranges run by `on`.
template <class On, class M, class Method>
schedule_report integrate_on(const On& on, MPI_Comm comm, const M& m, Method method,
                             const ode_problem<typename M::scalar>& pr, std::size_t count,
                             batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                             const ensemble_buffers<typename M::scalar>& out, const distribution& d) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states;
  const std::size_t n_save = pr.save_times.size();
  const bool owns = owned_range(count, rank_of(comm), size_of(comm)).size() > 0;
  return run_distributed<On::dynamic, T>(
      comm, count, x0, n, p, M::n_params, d,
      {{"the number of save times", n_save}, {"whether statistics are recorded", !out.stats.empty(), owns}},
      [&](const std::vector<std::uint64_t>& agreed) {
        return result_shape<T>(saved_block(n, n_save), final_block(n), agreed[1] != 0);
      },
      [&](const range& owned, batch<const T> x0_owned, batch<const T> p_owned,
          const std::vector<std::uint64_t>& agreed) {
        const ode_options<T> o = check_problem(pr, n, M::n_params, fluxion::detail::observable_count_of<M>);
        on.check_memory(
            fluxion::detail::check_ensemble<T>(n, M::n_params, o.n_save, owned.size(), x0_owned, p_owned, out));
        return ensemble_columns(out, n, n_save, owned.size(), agreed[1] != 0);
      },
      [&](const range& r, batch<const T> x0_r, batch<const T> p_r, const columns& o) {
        on.integrate(m, method, pr, r.size(), x0_r, p_r, ensemble_buffers_of<T>(o));
      });
}

}  // namespace detail

// Into buffers the caller owns: out holds this rank's owned range,
// owned_range(count, rank, ranks).size() trajectories, in the layout of
// fluxion::ensemble_buffers (out.stats empty on every rank that owns
// trajectories, or on none).
template <class M, class Method>
  requires ode_system<M> && ode_method<Method>
schedule_report integrate(MPI_Comm comm, const M& m, Method method, const ode_problem<typename M::scalar>& pr,
                          std::size_t count, batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                          const ensemble_buffers<typename M::scalar>& out, const distribution& d = {}) {
  return detail::integrate_on(detail::host_integrations{d.exec}, comm, m, method, pr, count, x0, p, out, d);
}

// Into a new distributed_ensemble (statistics recorded): this rank's
// results, allocated after the checks.
template <class M, class Method>
  requires ode_system<M> && ode_method<Method>
distributed_ensemble<typename M::scalar> integrate(MPI_Comm comm, const M& m, Method method,
                                                   const ode_problem<typename M::scalar>& pr, std::size_t count,
                                                   batch<const typename M::scalar> x0,
                                                   batch<const typename M::scalar> p, const distribution& d = {}) {
  using T = typename M::scalar;
  constexpr std::size_t n = M::n_states;
  distributed_ensemble<T> r;
  r.count = count;
  r.owned = owned_range(count, rank_of(comm), size_of(comm));
  {
    const detail::private_comm c(comm);
    detail::agree(c.get(),
                  [&] { r.local = detail::sized_ensemble_result<T>(n, pr.save_times.size(), r.owned.size()); });
  }
  r.report = integrate(comm, m, method, pr, count, x0, p, detail::buffers_of(r.local), d);
  return r;
}

// Every rank's owned results (local: its owned range, in the layout above)
// into `global` on rank root (count trajectories, the single-process
// layout; ignored on the other ranks). n_states and n_save: the model's
// states and the problem's save times. local.stats and global.stats are
// empty together or not. Collective; checked and agreed on first.
template <class T>
void gather(MPI_Comm comm, std::size_t n_states, std::size_t n_save, std::size_t count,
            const ensemble_buffers<T>& local, const ensemble_buffers<T>& global, int root = 0) {
  const bool owns = owned_range(count, rank_of(comm), size_of(comm)).size() > 0;
  detail::gather_distributed(
      comm, count, root,
      {{"the number of states", n_states},
       {"the number of save times", n_save},
       {"whether statistics are recorded", !local.stats.empty(), owns}},
      [&](const range& owned, const std::vector<std::uint64_t>& agreed) {
        return detail::ensemble_columns(local, n_states, n_save, owned.size(), agreed[2] != 0);
      },
      [&](const std::vector<std::uint64_t>& agreed) {
        if (count > 0 && global.stats.empty() == (agreed[2] != 0))
          throw problem_error("fluxion::mpi: statistics are in the local results or in the global ones but not in "
                              "both; give both or neither");
        return detail::ensemble_columns(global, n_states, n_save, count, agreed[2] != 0);
      });
}

// The global result on rank root (the single-process ensemble_result of
// r.count trajectories); an empty one (no trajectories) on the other ranks.
template <class T>
ensemble_result<T> gather(MPI_Comm comm, const distributed_ensemble<T>& r, int root = 0) {
  ensemble_result<T> g;
  const std::size_t n = r.local.states, n_save = r.local.save_count;
  {
    const detail::private_comm c(comm);
    detail::agree(c.get(), [&] {
      if (c.rank() == root) g = detail::sized_ensemble_result<T>(n, n_save, r.count);
    });
  }
  // Read only: the local results are the gather's source.
  auto& l = const_cast<ensemble_result<T>&>(r.local);
  gather(comm, n, n_save, r.count, detail::buffers_of(l), detail::buffers_of(g), root);
  return g;
}

}  // namespace fluxion::mpi
