#pragma once
// The dynamic schedule (mpi/schedule.hpp says what it does): counters in an
// MPI window, chunks taken with MPI_Fetch_and_op, a chunk taken from another
// rank sent to its owner and copied where the static split writes it.
//
//   schedule_report r = run_dynamic(comm, count, chunk, shape, local, compute);
//
// compute(range, const columns& out) integrates the trajectories of a range
// into out (range.size() trajectories, the blocks of `shape`); local is this
// rank's output (its owned range). After an exception from compute a rank
// computes nothing more but still takes chunks until none are left, each
// going to its owner marked failed (so that every chunk is taken and no
// owner waits for one), and once every message has arrived every rank
// throws the first failing rank's error (agree.hpp), its outputs partly
// written.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <fluxion/mpi/agree.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/detail/columns.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/mpi/schedule.hpp>

namespace fluxion::mpi::detail {

inline constexpr int chunk_tag = 4201;

// The window of chunk counters: one std::uint64_t on each rank, the next
// chunk of its range, zero at the start; passive target (MPI_Win_lock_all).
class chunk_counters {
 public:
  explicit chunk_counters(MPI_Comm comm) {
    std::uint64_t* base = nullptr;
    check_mpi(MPI_Win_allocate(MPI_Aint(sizeof(std::uint64_t)), int(sizeof(std::uint64_t)), MPI_INFO_NULL, comm, &base,
                               &win_),
              "MPI_Win_allocate");
    *base = 0;
    check_mpi(MPI_Win_lock_all(0, win_), "MPI_Win_lock_all");
    // The zero is in the window before any rank takes a chunk.
    check_mpi(MPI_Win_sync(win_), "MPI_Win_sync");
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  }
  chunk_counters(const chunk_counters&) = delete;
  chunk_counters& operator=(const chunk_counters&) = delete;
  ~chunk_counters() {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
  // Rank `owner`'s next chunk (its counter, then one more).
  std::uint64_t take(int owner) {
    const std::uint64_t one = 1;
    std::uint64_t old = 0;
    check_mpi(MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, owner, 0, MPI_SUM, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(owner, win_), "MPI_Win_flush");
    return old;
  }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
};

template <class Compute>
schedule_report run_dynamic(MPI_Comm comm, std::size_t count, std::size_t chunk, const std::vector<block_shape>& shape,
                 const columns& local, Compute&& compute) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const range owned = owned_range(count, rank, size);
  const auto start = std::chrono::steady_clock::now();
  schedule_report report;
  std::exception_ptr failure;
  std::size_t accounted = 0;  // own chunks computed here (or failed here)
  struct outgoing {
    std::unique_ptr<std::byte[]> message;
    MPI_Request request;
  };
  std::vector<outgoing> sent;
  {
    chunk_counters counters(comm);
    for (int step = 0; step < size; ++step) {
      const int owner = (rank + step) % size;
      const range theirs = owned_range(count, owner, size);
      const std::size_t chunks = chunk_count(theirs, chunk);
      for (;;) {
        const std::uint64_t j = counters.take(owner);
        if (j >= chunks) break;
        const range c = chunk_range(theirs, chunk, std::size_t(j));
        report.trajectories += c.size();
        ++report.chunks;
        if (owner != rank) ++report.chunks_taken;
        const chunk_layout layout(shape, c.size());
        const bool run = !failure;  // after a failure: the header alone, marked failed
        auto message = message_storage(run ? layout.bytes : sizeof(chunk_header));
        chunk_header header{j, run ? 1u : 0u};
        if (run) {
          try {
            compute(c, layout.view(message.get(), shape, c.size()));
          } catch (...) {
            failure = std::current_exception();
            header.ok = 0;
          }
        }
        if (owner == rank) {
          if (header.ok)
            copy_trajectories(layout.view(message.get(), shape, c.size()), 0, local, c.begin - owned.begin, c.size());
          ++accounted;
          continue;
        }
        std::memcpy(message.get(), &header, sizeof header);
        sent.push_back({std::move(message), MPI_REQUEST_NULL});
        check_mpi(MPI_Isend(sent.back().message.get(), header.ok ? int(layout.bytes) : int(sizeof header), MPI_BYTE,
                            owner, chunk_tag, comm, &sent.back().request),
                  "MPI_Isend");
      }
    }
    // The chunks of this rank's range that others took.
    const std::size_t mine = chunk_count(owned, chunk);
    report.chunks_given = mine - accounted;
    for (std::size_t k = accounted; k < mine; ++k) {
      MPI_Message m;
      MPI_Status st;
      check_mpi(MPI_Mprobe(MPI_ANY_SOURCE, chunk_tag, comm, &m, &st), "MPI_Mprobe");
      int bytes = 0;
      check_mpi(MPI_Get_count(&st, MPI_BYTE, &bytes), "MPI_Get_count");
      auto message = message_storage(std::size_t(bytes));
      check_mpi(MPI_Mrecv(message.get(), bytes, MPI_BYTE, &m, MPI_STATUS_IGNORE), "MPI_Mrecv");
      chunk_header header;
      std::memcpy(&header, message.get(), sizeof header);
      if (!header.ok) continue;
      const range c = chunk_range(owned, chunk, std::size_t(header.index));
      const chunk_layout layout(shape, c.size());
      copy_trajectories(layout.view(message.get(), shape, c.size()), 0, local, c.begin - owned.begin, c.size());
    }
    for (auto& s : sent) check_mpi(MPI_Wait(&s.request, MPI_STATUS_IGNORE), "MPI_Wait");
  }  // the window is freed (collective) before the agreement
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  agree_on(comm, failure);
  return report;
}

}  // namespace fluxion::mpi::detail
