#pragma once
// What the MPI layer asks of a communicator, with MPI's failures as
// fluxion::mpi::mpi_error:
//
//   fx::mpi::rank_of(comm), fx::mpi::size_of(comm)
//   fx::mpi::node_local(comm)      this rank's place among the ranks of its node
//                                  (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED)
//
// Every distributed call works on its own duplicate of the caller's
// communicator (detail::private_comm: MPI_Comm_dup, errors returned, not
// fatal), so that its messages never meet the caller's.
#include <mpi.h>

#include <string>

#include <fluxion/mpi/error.hpp>

namespace fluxion::mpi {

namespace detail {

inline void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw mpi_error(std::string("fluxion::mpi: ") + call + " failed: " + std::string(text, std::size_t(length)), rc);
}

// A duplicate of the caller's communicator for the length of one call.
class private_comm {
 public:
  explicit private_comm(MPI_Comm c) {
    check_mpi(MPI_Comm_dup(c, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  private_comm(const private_comm&) = delete;
  private_comm& operator=(const private_comm&) = delete;
  ~private_comm() { MPI_Comm_free(&comm_); }
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace detail

inline int rank_of(MPI_Comm comm) {
  int r = 0;
  detail::check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}
inline int size_of(MPI_Comm comm) {
  int s = 0;
  detail::check_mpi(MPI_Comm_size(comm, &s), "MPI_Comm_size");
  return s;
}

// This rank's node-local rank and the number of ranks on its node.
struct node_place {
  int rank = 0;
  int ranks = 1;
};
inline node_place node_local(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_of(comm), MPI_INFO_NULL, &node),
                    "MPI_Comm_split_type");
  node_place p;
  MPI_Comm_rank(node, &p.rank);
  MPI_Comm_size(node, &p.ranks);
  MPI_Comm_free(&node);
  return p;
}

}  // namespace fluxion::mpi
