// Shared by the mpi suite's files: what every rank saw, compared across the
// ranks, and the error a call raised on this rank as text.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <typeinfo>

#include <fluxion/infer/data_error.hpp>
#include <fluxion/layout/error.hpp>

namespace mpi_support {

// True on every rank when it is true on every rank.
inline bool everywhere(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
}

// True on every rank when every rank holds the same text as rank 0.
inline bool same_text_everywhere(const std::string& s) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string root(n, '\0');
  if (rank == 0) root = s;
  MPI_Bcast(root.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return everywhere(root == s);
}

// The error a call raised on this rank: its dynamic type, message and the
// fields of fluxion's errors ("none" when it returned).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const fluxion::layout_error& e) {
    return std::string(typeid(e).name()) + "|" + e.what() + "|" + e.block() + "|" + std::to_string(e.expected()) + "|" +
           std::to_string(e.actual());
  } catch (const fluxion::data_error& e) {
    return std::string(typeid(e).name()) + "|" + e.what() + "|" + e.series() + "|" + std::to_string(e.index());
  } catch (const std::exception& e) {
    return std::string(typeid(e).name()) + "|" + e.what();
  }
  return "none";
}

}  // namespace mpi_support
