#pragma once
// Which trajectories of a global batch a rank owns: a contiguous range, the
// first (count % ranks) ranks one trajectory more than the others, so that
// sizes differ by at most one and every rank computes its range alone.
//
//   const fx::mpi::range r = fx::mpi::owned_range(count, rank, ranks);
//   for (std::size_t b = r.begin; b < r.end; ++b) ...   // this rank's trajectories
//   fx::mpi::owner_of(b, count, ranks);                 // the rank that owns trajectory b
//
// The dynamic schedule (mpi/schedule.hpp) cuts each rank's range into
// chunks (chunk_range); a chunk is owned by the rank whose range holds it.
// Pure functions of their arguments (no MPI): the same on every rank.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace fluxion::mpi {

struct range {
  std::size_t begin = 0;
  std::size_t end = 0;
  constexpr std::size_t size() const { return end - begin; }
  friend constexpr bool operator==(const range&, const range&) = default;
};

namespace detail {
inline void check_rank(int rank, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("fluxion::mpi: the number of ranks must be at least 1, got " + std::to_string(ranks));
  if (rank < 0 || rank >= ranks)
    throw std::invalid_argument("fluxion::mpi: rank " + std::to_string(rank) + " is not among the " +
                                std::to_string(ranks) + " ranks");
}
}  // namespace detail

// The trajectories [begin, end) that rank `rank` of `ranks` owns in a batch of `count`.
inline range owned_range(std::size_t count, int rank, int ranks) {
  detail::check_rank(rank, ranks);
  const std::size_t p = std::size_t(ranks), r = std::size_t(rank);
  const std::size_t q = count / p, extra = count % p;
  const std::size_t begin = r * q + std::min(r, extra);
  return {begin, begin + q + (r < extra ? 1 : 0)};
}

// The rank whose owned range holds trajectory b (b < count).
inline int owner_of(std::size_t b, std::size_t count, int ranks) {
  detail::check_rank(0, ranks);
  if (b >= count)
    throw std::invalid_argument("fluxion::mpi: trajectory " + std::to_string(b) + " is not among the " +
                                std::to_string(count) + " of the batch");
  const std::size_t p = std::size_t(ranks), q = count / p, extra = count % p;
  // The first `extra` ranks own q + 1 trajectories each.
  const std::size_t long_part = extra * (q + 1);
  return int(b < long_part ? b / (q + 1) : extra + (b - long_part) / q);
}

// The number of chunks of at most `chunk` trajectories (chunk >= 1) that
// cut an owned range, and chunk j of it.
inline std::size_t chunk_count(const range& owned, std::size_t chunk) {
  return chunk == 0 ? 0 : (owned.size() + chunk - 1) / chunk;
}
inline range chunk_range(const range& owned, std::size_t chunk, std::size_t j) {
  const std::size_t begin = owned.begin + j * chunk;
  return {begin, std::min(owned.end, begin + chunk)};
}

}  // namespace fluxion::mpi
