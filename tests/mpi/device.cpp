// The MPI layer on GPUs (include/fluxion/mpi/cuda.hpp), where CUDA builds:
// the cases themselves are plain functions in device_cases.cu. Without a
// GPU, the refusals are checked (the same error on every rank, no rank
// left waiting) and the cases that need a device SKIP, saying why.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>

#include "device_cases.hpp"

using Catch::Matchers::ContainsSubstring;
namespace cases = mpi_device_cases;

namespace {

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank when every rank holds the same text as rank 0.
bool same_text_everywhere(const std::string& s) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string root(n, '\0');
  if (rank == 0) root = s;
  MPI_Bcast(root.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = root == s ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return same == 1;
}

}  // namespace

TEST_CASE("select_device: the same outcome on every rank; no GPU or too few GPUs refused everywhere") {
  const int gpus = cases::visible_gpus();
  const std::string shared = cases::select_device(MPI_COMM_WORLD, true);
  INFO(shared);
  if (gpus == 0) {
    CHECK(same_text_everywhere(shared));
    CHECK_THAT(shared, ContainsSubstring("no GPU is visible"));
  } else {
    CHECK_THAT(shared, ContainsSubstring("device "));
  }
  const std::string alone = cases::select_device(MPI_COMM_WORLD, false);
  INFO(alone);
  if (gpus < ranks()) {  // every rank on this node: more ranks than GPUs
    CHECK(same_text_everywhere(alone));
    CHECK_THAT(alone, ContainsSubstring(gpus == 0 ? "no GPU is visible" : "set device_map::share = true"));
  }
}

TEST_CASE("device forms: host buffers and the dynamic schedule refused on every rank") {
  const std::string host = cases::integrate_host_buffers(MPI_COMM_WORLD);
  INFO(host);
  CHECK(same_text_everywhere(host));
  CHECK(host != "none");
  if (cases::visible_gpus() > 0) CHECK_THAT(host, ContainsSubstring("a host pointer is passed where device memory"));
  const std::string dynamic = cases::integrate_dynamic(MPI_COMM_WORLD);
  INFO(dynamic);
  CHECK(same_text_everywhere(dynamic));
  CHECK_THAT(dynamic, ContainsSubstring("buffers in device memory take the static split"));
}

TEST_CASE("ranks sharing GPUs: Lorenz across the ranks equals one GPU's call bit for bit") {
  if (cases::visible_gpus() == 0) SKIP("no GPU is visible to this process (no CUDA driver or device)");
  const std::string outcome = cases::lorenz_across_gpus(MPI_COMM_WORLD);
  INFO(outcome);
  CHECK(outcome == "same");
}
