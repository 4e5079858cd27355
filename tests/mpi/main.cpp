// The mpi suite's main: Catch2 3 under MPI. Every rank runs every test case
// in the same order (the cases call collectives); the run fails when any
// rank fails. Ranks other than 0 report failures only.
#include <mpi.h>

#include <catch2/catch_session.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Catch::Session session;
  int result = session.applyCommandLine(argc, argv);
  if (result == 0) {
    if (rank != 0) session.configData().showSuccessfulTests = false;
    result = session.run();
  }
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
