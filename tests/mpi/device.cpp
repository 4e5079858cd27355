// The MPI layer on GPUs (include/fluxion/mpi/cuda.hpp), where CUDA builds:
// the cases themselves are plain functions in device_cases.cu. Without a
// GPU, the refusals are checked (the same error on every rank, no rank
// left waiting) and the cases that need a device SKIP, saying why.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <mpi.h>

#include <string>

#include "device_cases.hpp"
#include "mpi/mpi_support.hpp"

using Catch::Matchers::ContainsSubstring;
namespace cases = mpi_device_cases;
using mpi_support::same_text_everywhere;

namespace {

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
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
