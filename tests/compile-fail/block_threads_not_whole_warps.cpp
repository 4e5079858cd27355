// Blocks of a number of threads that is not a multiple of a warp: the
// kernels' warp-wide operations (the discrete adjoint's sort and aligned
// backward pass) name a warp's live lanes by index, so a partial warp would
// name lanes that do not exist. One error, naming the macro.
// expect: FLUXION_CUDA_BLOCK_THREADS must be a multiple of 32 from 32 to 1024
#define FLUXION_CUDA_BLOCK_THREADS 48
#include <fluxion/fluxion.hpp>

int main() { return 0; }
