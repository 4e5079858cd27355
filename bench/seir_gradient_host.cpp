// The SEIR example's log-density on one host thread: a plain solve, the
// log-density, with its gradient by forward sensitivities and by the
// discrete adjoint, each as a multiple of the solve (bench/seir_bench.hpp;
// bench/seir_log_density.cu prints the same line after its GPU part).
// Prints one JSON line.
//
//   fluxion-bench-seir-gradient-host [N]     (default 2000 parameter sets)
#include <cstdlib>

#include "seir_bench.hpp"

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 2000;
  seir_bench::host_costs(n, seir::make_data());
  return 0;
}
