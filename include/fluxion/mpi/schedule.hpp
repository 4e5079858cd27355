#pragma once
// How a distributed call spreads its trajectories over the ranks
// (fluxion::mpi::integrate, fluxion::mpi::log_density):
//
//   fx::mpi::distribution d;                      // the static split (default)
//   d.kind = fx::mpi::schedule::dynamic;          // ranks take chunks as they finish
//   d.chunk = 256;                                // trajectories a chunk (0: automatic)
//   d.inputs = fx::mpi::input_scope::local;       // x0, p hold this rank's range alone (static only)
//   d.exec = fx::host::threads(4);                // each rank's host threads
//
// Static split: rank r integrates its owned range (mpi/range.hpp) and writes
// it into its output buffers; no message but the agreement on the checks.
//
// Dynamic: each rank's range is cut into chunks of d.chunk trajectories;
// each rank keeps a counter of its next chunk in an MPI window
// (MPI_Win_allocate). A rank takes its own chunks first, one at a time
// (MPI_Fetch_and_op, MPI_SUM on the owner's counter), then those left on the
// next ranks in turn (rank + 1, rank + 2, ...), until every counter has
// passed its last chunk. A chunk taken from another rank is integrated into
// a buffer of its own and sent to its owner (MPI_Isend), which copies it
// into its output buffers where the static split writes it: results land in
// the same places, bit for bit (each trajectory's integration depends on its
// inputs alone). Automatic chunks: ceil(count / (32 ranks)), at least 16
// trajectories (two chunks of the host's SIMD lanes), fewer where one chunk's
// results would pass 2^31 - 1 bytes, an MPI message's count.
//
// Every call returns this rank's schedule_report: what it computed, what it
// took from others and gave away, and how long its work took.
//
// Inputs: by default x0 and p are the global batch of `count` trajectories
// on every rank (each rank reads only the trajectories it integrates: its
// range under the static split, any chunk under the dynamic schedule);
// with input_scope::local they hold this rank's owned range alone, as
// owned_range(count, rank, ranks).size() trajectories (static split only:
// under the dynamic schedule a rank reads the inputs of any chunk).
#include <cstddef>

#include <fluxion/exec/threads.hpp>
#include <fluxion/mpi/range.hpp>

namespace fluxion::mpi {

enum class schedule { static_split = 0, dynamic = 1 };
enum class input_scope { global = 0, local = 1 };

struct distribution {
  schedule kind = schedule::static_split;
  std::size_t chunk = 0;  // dynamic: trajectories a chunk; 0: automatic
  input_scope inputs = input_scope::global;
  host::threads exec = {};
};

// What a rank did in one distributed call (the calls return it; the
// results' structs keep it as `report`).
struct schedule_report {
  std::size_t trajectories = 0;  // trajectories this rank computed, its own and others'
  std::size_t chunks = 0;        // the calls it made (the static split: 1 where it owns trajectories)
  std::size_t chunks_taken = 0;  // of those, chunks of other ranks' ranges
  std::size_t chunks_given = 0;  // chunks of this rank's range that other ranks computed
  double seconds = 0;            // wall time from the end of the checks until this rank's results are in place
};

// This rank's part of a distributed result (fx::mpi::distributed_ensemble,
// fx::mpi::distributed_log_density): the single-process result of its owned
// range, in that result's layout.
template <class Result>
struct distributed {
  std::size_t count = 0;   // the global batch
  range owned;             // this rank's trajectories
  Result local;            // their results, owned.size() trajectories
  schedule_report report;  // what this rank did
};

}  // namespace fluxion::mpi
