#pragma once
// Sums across ranks that do not depend on the ranks: each rank adds its
// values into exact_sum accumulators (mpi/exact_sum.hpp), one MPI_Allreduce
// (MPI_INT64_T, MPI_SUM) adds the accumulators' integer words, every rank
// rounds once. The total is the correctly rounded exact sum of every rank's
// values, the same bits whatever the number of ranks, the split or the
// order, and on every rank.
//
//   double total = fx::mpi::sum(MPI_COMM_WORLD, std::span<const double>(mine));
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/exact_sum.hpp>

namespace fluxion::mpi {

namespace detail {

// Every rank's accumulators (the same number on every rank) added, in place,
// and `extra` integers summed alongside them.
inline void allreduce_sums(MPI_Comm comm, std::vector<exact_sum>& sums, std::vector<std::int64_t>& extra) {
  std::vector<std::int64_t> words;
  words.reserve(sums.size() * exact_sum::words_count + extra.size());
  for (auto& s : sums) {
    const auto& w = s.words();
    words.insert(words.end(), w.begin(), w.end());
  }
  words.insert(words.end(), extra.begin(), extra.end());
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, words.data(), int(words.size()), MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  std::size_t at = 0;
  for (auto& s : sums)
    for (auto& w : s.words()) w = words[at++];
  for (auto& e : extra) e = words[at++];
}

}  // namespace detail

// The exact sum of every rank's values, correctly rounded, on every rank. Collective.
template <class T>
T sum(MPI_Comm comm, std::span<const T> values) {
  std::vector<exact_sum> s(1);
  for (const T v : values) s[0].add(v);
  std::vector<std::int64_t> none;
  detail::allreduce_sums(comm, s, none);
  return s[0].template value<T>();
}

}  // namespace fluxion::mpi
