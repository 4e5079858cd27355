#pragma once
// A distributed result as blocks of per-trajectory columns: each block
// `rows` rows of `count` elements, the trajectory fastest, as every result
// of the host and CUDA calls lies (saved states [save][state][trajectory],
// final states, log-densities, gradients [column][trajectory], statuses,
// statistics). The MPI layer moves trajectories between ranks block by
// block, whatever the result:
//
//   copy_trajectories   a range of trajectories from one set of blocks to another
//   chunk_layout        k trajectories' blocks back to back in one allocation,
//                       after a header (the dynamic schedule's messages)
//   gather_columns      every rank's owned trajectories into the global blocks
//                       of one rank (MPI_Gatherv; derived datatypes read and
//                       write the rows in place, no staging copy)
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fluxion/layout/check.hpp>
#include <fluxion/layout/error.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/solve/status.hpp>

namespace fluxion::mpi::detail {

struct block_shape {
  std::size_t element_bytes;
  std::size_t rows;
};

struct column_block {
  std::byte* data;
  std::size_t element_bytes;
  std::size_t rows;
  const char* name = "";  // the block, as layout_error names it
  std::size_t size = 0;   // the elements its buffer holds
};

struct columns {
  std::vector<column_block> blocks;
  std::size_t count = 0;
};

template <class T>
column_block block_of(const char* name, std::span<T> s, std::size_t rows) {
  return {reinterpret_cast<std::byte*>(s.data()), sizeof(T), rows, name, s.size()};
}
// Block i of a set of columns as the span of T its rows x count elements fill.
template <class T>
std::span<T> span_of(const columns& c, std::size_t i) {
  return {reinterpret_cast<T*>(c.blocks[i].data), c.blocks[i].rows * c.count};
}

// The bytes a block's rows x count elements span (check_no_overlap's view).
inline checked_buffer<const std::byte> bytes_of(const column_block& b, std::size_t count) {
  const auto first = reinterpret_cast<std::uintptr_t>(b.data);
  return {b.data, 1, 1, first, first + b.rows * count * b.element_bytes};
}

// Result buffers given as columns (the gathers' local and global buffers):
// each large enough for its rows x count elements, none overlapping
// another (fluxion::layout_error naming the block).
inline void check_columns(const columns& c) {
  for (std::size_t i = 0; i < c.blocks.size(); ++i) {
    const column_block& b = c.blocks[i];
    const std::size_t needed = b.rows * c.count;
    if (needed > b.size)
      throw layout_error(b.name, "buffer too small for " + std::to_string(c.count) + " trajectories of " +
                                     std::to_string(b.rows) + " value(s) each", needed, b.size);
    for (std::size_t j = 0; j < i; ++j)
      check_no_overlap(c.blocks[j].name, bytes_of(c.blocks[j], c.count), b.name, bytes_of(b, c.count));
  }
}

// The results of every call of the layer have one shape: two blocks of
// scalars (saved and final states; log-densities and gradients), one status
// and, where recorded, one statistics record a trajectory. Their blocks,
// their buffers as columns, and columns as buffers again:
struct scalar_block {
  const char* name;
  std::size_t rows;  // values a trajectory
};
template <class T>
std::vector<block_shape> result_shape(scalar_block a, scalar_block b, bool with_stats) {
  std::vector<block_shape> s = {{sizeof(T), a.rows}, {sizeof(T), b.rows}, {sizeof(solve_status), 1}};
  if (with_stats) s.push_back({sizeof(solve_statistics), 1});
  return s;
}
template <class T>
columns result_columns(scalar_block a, std::span<T> a_values, scalar_block b, std::span<T> b_values,
                       std::span<solve_status> status, std::span<solve_statistics> stats, std::size_t count,
                       bool with_stats) {
  columns c{{block_of(a.name, a_values, a.rows), block_of(b.name, b_values, b.rows), block_of("status", status, 1)},
            count};
  if (with_stats) c.blocks.push_back(block_of("statistics", stats, 1));
  return c;
}
template <class T>
struct result_spans {
  std::span<T> a, b;
  std::span<solve_status> status;
  std::span<solve_statistics> stats;  // empty: none recorded
};
template <class T>
result_spans<T> spans_of(const columns& c) {
  return {span_of<T>(c, 0), span_of<T>(c, 1), span_of<solve_status>(c, 2),
          c.blocks.size() > 3 ? span_of<solve_statistics>(c, 3) : std::span<solve_statistics>{}};
}

// Trajectories [from, from + k) of src to [to, to + k) of dst (the same blocks).
inline void copy_trajectories(const columns& src, std::size_t from, const columns& dst, std::size_t to, std::size_t k) {
  for (std::size_t i = 0; i < src.blocks.size(); ++i) {
    const column_block& s = src.blocks[i];
    const column_block& d = dst.blocks[i];
    if (k == 0 || s.rows == 0 || s.element_bytes == 0) continue;
    for (std::size_t row = 0; row < s.rows; ++row)
      std::memcpy(d.data + (row * dst.count + to) * d.element_bytes,
                  s.data + (row * src.count + from) * s.element_bytes, k * s.element_bytes);
  }
}

// A chunk's message: a header, then k trajectories' blocks back to back,
// each at a multiple of 64 bytes.
struct chunk_header {
  std::uint64_t index;  // the chunk's number within its owner's range
  std::uint64_t ok;     // 0: the rank that took it failed (no results follow)
};
struct chunk_layout {
  std::vector<std::size_t> offsets;  // of each block, from the start of the message
  std::size_t bytes = 0;             // the whole message

  chunk_layout(const std::vector<block_shape>& shape, std::size_t k) {
    std::size_t at = 64;  // the header, padded
    for (const auto& b : shape) {
      offsets.push_back(at);
      at += (b.element_bytes * b.rows * k + 63) / 64 * 64;
    }
    bytes = at;
  }
  columns view(std::byte* message, const std::vector<block_shape>& shape, std::size_t k) const {
    columns c;
    c.count = k;
    for (std::size_t i = 0; i < shape.size(); ++i)
      c.blocks.push_back({message + offsets[i], shape[i].element_bytes, shape[i].rows, "", shape[i].rows * k});
    return c;
  }
};
// Storage for a message (new std::byte[]: aligned for any scalar, and the
// values written into it begin their lifetimes there).
inline std::unique_ptr<std::byte[]> message_storage(std::size_t bytes) {
  return std::unique_ptr<std::byte[]>(new std::byte[bytes > 0 ? bytes : 1]);
}
// The most trajectories a chunk may hold so that its message is at most
// INT_MAX bytes (MPI counts are ints).
inline std::size_t most_in_chunk(const std::vector<block_shape>& shape) {
  std::size_t per = 0;
  for (const auto& b : shape) per += b.element_bytes * b.rows;
  const std::size_t room = std::size_t(INT_MAX) - 64 - 64 * shape.size();
  return per == 0 ? room : room / per;
}

// An MPI datatype of one trajectory's column of a block: `rows` elements,
// `pitch` elements apart, its extent one element (so that trajectory b's
// column starts b elements in). Freed with the guard.
struct column_type {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  column_type(std::size_t element_bytes, std::size_t rows, std::size_t pitch) {
    MPI_Datatype rows_type = MPI_DATATYPE_NULL;
    check_mpi(
        MPI_Type_create_hvector(int(rows), int(element_bytes), MPI_Aint(pitch * element_bytes), MPI_BYTE, &rows_type),
        "MPI_Type_create_hvector");
    const int rc = MPI_Type_create_resized(rows_type, 0, MPI_Aint(element_bytes), &type);
    MPI_Type_free(&rows_type);
    check_mpi(rc, "MPI_Type_create_resized");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  column_type(const column_type&) = delete;
  column_type& operator=(const column_type&) = delete;
  ~column_type() {
    if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
};

// Every rank's owned trajectories (local, owned_range(count, rank, ranks)
// of them) into `global` (count trajectories, significant on root only).
// Counts and displacements are ints: count at most INT_MAX (checked by the
// callers before any rank starts).
inline void gather_columns(MPI_Comm comm, const columns& local, std::size_t count, const columns& global, int root) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<int> counts, displacements;
  if (rank == root)
    for (int r = 0; r < size; ++r) {
      const range o = owned_range(count, r, size);
      counts.push_back(int(o.size()));
      displacements.push_back(int(o.begin));
    }
  for (std::size_t i = 0; i < local.blocks.size(); ++i) {
    const column_block& b = local.blocks[i];
    if (b.rows == 0 || b.element_bytes == 0) continue;
    const column_type send(b.element_bytes, b.rows, local.count > 0 ? local.count : 1);
    if (rank == root) {
      const column_type receive(b.element_bytes, b.rows, count);
      check_mpi(MPI_Gatherv(b.data, int(local.count), send.type, global.blocks[i].data, counts.data(),
                            displacements.data(), receive.type, root, comm),
                "MPI_Gatherv");
    } else {
      check_mpi(MPI_Gatherv(b.data, int(local.count), send.type, nullptr, nullptr, nullptr, MPI_BYTE, root, comm),
                "MPI_Gatherv");
    }
  }
}

}  // namespace fluxion::mpi::detail
