#pragma once
// The body every distributed call shares (mpi/integrate.hpp,
// mpi/log_density.hpp), around the single-process call that does the work:
//
//   1. its own duplicate of the communicator; this rank's owned range;
//   2. the values every rank must pass alike (the trajectory count, the
//      schedule, the chunk, the input scope, and the call's own: the number
//      of save times, whether statistics or gradients are asked): a
//      problem_error on every rank where they differ;
//   3. this rank's checks, agreed on (agree.hpp): the inputs (the global
//      batch, or this rank's range), the call's own checks of the problem
//      and of its output buffers for the owned range, the global inputs
//      apart from every output, the schedule's chunk;
//   4. the work: the static split computes the owned range into the output
//      buffers in one call; the dynamic schedule runs dynamic.hpp.
//
// check(owned, x0, p) runs the call's checks and gives its output buffers
// as columns; compute(range, x0, p, out) runs the single-process call for a
// range of trajectories (x0, p: those trajectories' inputs) into out.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/mpi/agree.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/detail/columns.hpp>
#include <fluxion/mpi/detail/dynamic.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/mpi/schedule.hpp>
#include <fluxion/solve/problem.hpp>

namespace fluxion::mpi::detail {

// Trajectories [begin, count) of a checked batch of `count` trajectories of
// n elements, as a strided batch that starts at trajectory `begin` (the
// strides the whole batch resolves to: a structure-of-arrays batch's element
// stride is its count, not the range's; a broadcast stays one).
template <class T>
batch<const T> sub_batch(const batch<const T>& b, std::size_t n, std::size_t count, std::size_t begin) {
  if (begin >= count || b.order == batch_order::broadcast) return b;
  if (n == 0) return batch<const T>{b.data, batch_order::strided, 1, 0};
  const auto s = b.resolve(n, count);
  return batch<const T>{b.data.subspan(begin * std::size_t(s.instance)), batch_order::strided, s.element, s.instance};
}

// The automatic chunk of the dynamic schedule (schedule.hpp), or the
// caller's, within the most one message holds.
inline std::size_t chunk_of(const distribution& d, std::size_t count, int ranks,
                            const std::vector<block_shape>& shape) {
  const std::size_t most = most_in_chunk(shape);
  if (d.chunk > most)
    throw problem_error("fluxion::mpi: a chunk of " + std::to_string(d.chunk) +
                        " trajectories would make a message of more than 2^31 - 1 bytes; at most " +
                        std::to_string(most) + " trajectories fit");
  if (d.chunk > 0) return d.chunk;
  const std::size_t spread = (count + 32 * std::size_t(ranks) - 1) / (32 * std::size_t(ranks));
  return std::max<std::size_t>(1, std::min(most, std::max<std::size_t>(16, spread)));
}

// The values every rank passes alike, the common ones then the call's;
// gives the call's as agreed (check_same_everywhere).
inline std::vector<std::uint64_t> agree_on_values(MPI_Comm comm, std::vector<same_value> same,
                                                   const std::vector<same_value>& call_values) {
  const std::size_t common = same.size();
  same.insert(same.end(), call_values.begin(), call_values.end());
  const auto agreed = check_same_everywhere(comm, same);
  return {agreed.begin() + std::ptrdiff_t(common), agreed.end()};
}

// shape(agreed) gives the blocks of a chunk's results; check(owned, x0, p,
// agreed) and compute(range, x0, p, out) as above; agreed: call_values as
// the ranks agreed on them. Dynamic: whether the dynamic schedule may run
// (it copies results through host memory: not for device buffers).
template <bool Dynamic, class T, class Shape, class Check, class Compute>
schedule_report run_distributed(MPI_Comm user_comm, std::size_t count, const batch<const T>& x0, std::size_t n,
                     const batch<const T>& p, std::size_t np, const distribution& d,
                     const std::vector<same_value>& call_values, Shape&& shape, Check&& check, Compute&& compute) {
  const private_comm c(user_comm);
  const range owned = owned_range(count, c.rank(), c.size());
  const std::vector<std::uint64_t> agreed =
      agree_on_values(c.get(),
                      {{"the number of trajectories", count},
                       {"the schedule (static or dynamic)", std::uint64_t(d.kind)},
                       {"the chunk size", d.chunk},
                       {"the input scope (global or local)", std::uint64_t(d.inputs)}},
                      call_values);
  const std::vector<block_shape> blocks = shape(agreed);

  const bool local_inputs = d.inputs == input_scope::local;
  const std::size_t held = local_inputs ? owned.size() : count;  // trajectories the input batches hold
  const std::size_t first = local_inputs ? owned.begin : 0;      // the first of them
  const auto x0_of = [&](const range& r) { return sub_batch(x0, n, held, r.begin - first); };
  const auto p_of = [&](const range& r) { return sub_batch(p, np, held, r.begin - first); };
  columns local;
  std::size_t chunk = 0;
  agree(c.get(), [&] {
    if (!Dynamic && d.kind == schedule::dynamic)
      throw problem_error(
          "fluxion::mpi: the dynamic schedule moves results through host memory; buffers in device memory take "
          "the static split");
    if (local_inputs && d.kind == schedule::dynamic)
      throw problem_error(
          "fluxion::mpi: the dynamic schedule reads the inputs of any chunk: pass the global batch "
          "(input_scope::global), or use the static split with input_scope::local");
    const auto cx = check_buffer("initial state", x0, n, held, false);
    const auto cp = check_buffer("parameter", p, np, held, false);
    local = check(owned, x0_of(owned), p_of(owned), agreed);
    for (const column_block& b : local.blocks) {
      const auto out = bytes_of(b, local.count);
      check_no_overlap("initial state", cx, b.name, out);
      check_no_overlap("parameter", cp, b.name, out);
      if (b.rows > std::size_t(INT_MAX))
        throw problem_error(std::string("fluxion::mpi: block '") + b.name + "' has " + std::to_string(b.rows) +
                            " rows a trajectory, more than an MPI datatype holds (2^31 - 1)");
    }
    if (d.kind == schedule::dynamic) chunk = chunk_of(d, count, c.size(), blocks);
  });
  if (d.kind == schedule::static_split) {
    const auto start = std::chrono::steady_clock::now();
    agree(c.get(), [&] {
      if (owned.size() > 0) compute(owned, x0_of(owned), p_of(owned), local);
    });
    schedule_report report{owned.size(), owned.size() > 0 ? 1u : 0u, 0, 0, 0};
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  if constexpr (Dynamic)
    return run_dynamic(c.get(), count, chunk, blocks, local,
                       [&](const range& r, const columns& out) { compute(r, x0_of(r), p_of(r), out); });
  else
    return {};  // refused by the checks above
}

// Gathers a result's columns to root (gather_columns), after agreeing on
// the checks: the values every rank passes alike, this rank's buffers for
// its owned range (check_local(owned, agreed)), the root's for the whole
// batch (check_global(agreed)); each as columns, checked by check_columns.
template <class CheckLocal, class CheckGlobal>
void gather_distributed(MPI_Comm user_comm, std::size_t count, int root, const std::vector<same_value>& call_values,
                        CheckLocal&& check_local, CheckGlobal&& check_global) {
  const private_comm c(user_comm);
  const std::vector<std::uint64_t> agreed = agree_on_values(
      c.get(), {{"the number of trajectories", count}, {"the root rank", std::uint64_t(root)}}, call_values);
  columns local, global;
  agree(c.get(), [&] {
    if (root < 0 || root >= c.size())
      throw problem_error("fluxion::mpi: the root rank " + std::to_string(root) + " is not among the " +
                          std::to_string(c.size()) + " ranks");
    if (count > std::size_t(INT_MAX))
      throw problem_error("fluxion::mpi: a gather of " + std::to_string(count) +
                          " trajectories to one rank passes 2^31 - 1, the most MPI_Gatherv places");
    local = check_local(owned_range(count, c.rank(), c.size()), agreed);
    check_columns(local);
    if (c.rank() == root) {
      global = check_global(agreed);
      check_columns(global);
    }
  });
  gather_columns(c.get(), local, count, global, root);
}

}  // namespace fluxion::mpi::detail
