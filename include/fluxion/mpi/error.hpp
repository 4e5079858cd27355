#pragma once
// The errors of the MPI layer (host only):
//
//   fluxion::mpi::mpi_error    an MPI call failed (code() is the MPI error
//                              code, the message carries MPI_Error_string);
//   fluxion::mpi::device_error the rank -> GPU mapping cannot be made (more
//                              ranks on a node than GPUs without sharing, a
//                              device index out of range, no GPU);
//   fluxion::mpi::rank_error   a rank failed with an error that is none of
//                              fluxion's argument errors (std::bad_alloc, a
//                              std::runtime_error, ...): every rank throws it,
//                              naming the rank and its message.
//
// The argument errors of the single-process calls (fluxion::layout_error,
// problem_error, data_error, std::invalid_argument) keep their type and
// message when the layer agrees on them across ranks (mpi/agree.hpp).
#include <stdexcept>
#include <string>

namespace fluxion::mpi {

class mpi_error : public std::runtime_error {
 public:
  mpi_error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

class device_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class rank_error : public std::runtime_error {
 public:
  rank_error(int rank, const std::string& message)
      : std::runtime_error("fluxion::mpi: rank " + std::to_string(rank) + " failed: " + message), rank_(rank) {}
  // The first rank (lowest number) that failed.
  int rank() const noexcept { return rank_; }

 private:
  int rank_;
};

}  // namespace fluxion::mpi
