#pragma once
// Every tuning knob of fluxion in one place: each a macro with its default,
// set at build time (-DFLUXION_...=n, or NVCC_FLAGS for the bench scripts).
// None changes a result; each changes how the work is laid out on the
// machine. Where a knob was measured, the benchmark named beside it
// measures it again.
//
// GPU kernels (launch bounds: threads per block, and the blocks per SM that
// a kernel's register allocation must allow; 1: the compiler chooses)
//
//   FLUXION_CUDA_BLOCK_THREADS            128  threads per block of the evaluation, integration and
//                                              log-density kernels; whole warps, 32 to 1024
//                                              (config/macros.hpp checks it)
//   FLUXION_CUDA_MIN_BLOCKS_PER_SM          4  the evaluation kernels (exec/cuda/launch.hpp):
//                                              generated evaluators are long straight-line code
//                                              that would otherwise take registers from the warps
//                                              that hide memory latency
//   FLUXION_SOLVE_MIN_BLOCKS_PER_SM         1  the integration kernel, a thread a trajectory
//                                              (solve/cuda.hpp; bench/run_solvers.sh)
//   FLUXION_WARP_MIN_BLOCKS_PER_SM          1  the integration kernel, a warp a trajectory
//                                              (bench/model_a_grid.cu)
//   FLUXION_LOG_DENSITY_MIN_BLOCKS_PER_SM   -  the log-density kernel, a thread a trajectory; when
//                                              undefined, the compiler chooses
//                                              (bash bench/run_inference.sh OUT measures it)
//   FLUXION_COLUMNS_MIN_BLOCKS_PER_SM       1  the log-density kernel, a lane a sensitivity column
//                                              (bench/seir_log_density.cu)
//   FLUXION_ADJOINT_FORWARD_MIN_BLOCKS      1  the discrete adjoint's forward, terms and backward
//   FLUXION_ADJOINT_TERMS_MIN_BLOCKS        6  kernels (bench/seir_log_density.cu); the terms
//   FLUXION_ADJOINT_BACKWARD_MIN_BLOCKS     1  kernel's time is the latency of the censored terms'
//                                              continued fractions, which more resident warps hide
//
// The discrete adjoint (host and GPU)
//
//   FLUXION_ADJOINT_SAVE_GROUP              8  save times whose density terms are summed together
//                                              before the groups are (infer/log_density_adjoint.hpp)
//
// Jacobian walks (compile/jacobian.hpp)
//
//   FLUXION_UNROLL_JACOBIAN_VISITS        256  a Jacobian whose walk visits at most this many (row,
//                                              candidate column) pairs in all is walked at compile
//                                              time: its rows and non-zero entries become constant
//                                              positions and indices (straight-line code, as a model
//                                              written out state by state gives); larger ones keep
//                                              the run-time walk, so compile time stays flat in the
//                                              extents and in the number of equations
//                                              (bench/stage_jacobian.cpp)
//
// Rosenbrock iteration matrices (solve/iteration_matrix.hpp)
//
//   FLUXION_SPARSE_LU_MAX_ORDER            64  models of 9 to this many states whose state Jacobian,
//                                              filled in, holds at most half of the N x N entries
//                                              factor W = diag - J by its compile-time pattern
//                                              (solve/sparse_lu.hpp); 0 keeps every W dense
//
// Host batches (exec/detail/soa.hpp, exec/detail/streaming.hpp)
//
//   FLUXION_TILE_FROM_STRIDE_BYTES       4096  structure-of-arrays batches go through tiles when
//                                              their element streams are at least this far apart
//   FLUXION_STREAM_FROM_BATCH_BYTES     8 MiB  tiles write their outputs with streaming stores in
//                                              ranges of at least this many bytes
#include <cstddef>

#ifndef FLUXION_CUDA_BLOCK_THREADS
#  define FLUXION_CUDA_BLOCK_THREADS 128
#endif
#ifndef FLUXION_CUDA_MIN_BLOCKS_PER_SM
#  define FLUXION_CUDA_MIN_BLOCKS_PER_SM 4
#endif
#ifndef FLUXION_SOLVE_MIN_BLOCKS_PER_SM
#  define FLUXION_SOLVE_MIN_BLOCKS_PER_SM 1
#endif
#ifndef FLUXION_WARP_MIN_BLOCKS_PER_SM
#  define FLUXION_WARP_MIN_BLOCKS_PER_SM 1
#endif
#ifndef FLUXION_COLUMNS_MIN_BLOCKS_PER_SM
#  define FLUXION_COLUMNS_MIN_BLOCKS_PER_SM 1
#endif
#ifndef FLUXION_ADJOINT_FORWARD_MIN_BLOCKS
#  define FLUXION_ADJOINT_FORWARD_MIN_BLOCKS 1
#endif
#ifndef FLUXION_ADJOINT_TERMS_MIN_BLOCKS
#  define FLUXION_ADJOINT_TERMS_MIN_BLOCKS 6
#endif
#ifndef FLUXION_ADJOINT_BACKWARD_MIN_BLOCKS
#  define FLUXION_ADJOINT_BACKWARD_MIN_BLOCKS 1
#endif
#ifndef FLUXION_ADJOINT_SAVE_GROUP
#  define FLUXION_ADJOINT_SAVE_GROUP 8
#endif
#ifndef FLUXION_TILE_FROM_STRIDE_BYTES
#  define FLUXION_TILE_FROM_STRIDE_BYTES 4096
#endif
#ifndef FLUXION_STREAM_FROM_BATCH_BYTES
#  define FLUXION_STREAM_FROM_BATCH_BYTES (std::size_t(8) << 20)
#endif
#ifndef FLUXION_UNROLL_JACOBIAN_VISITS
#  define FLUXION_UNROLL_JACOBIAN_VISITS 256
#endif
#ifndef FLUXION_SPARSE_LU_MAX_ORDER
#  define FLUXION_SPARSE_LU_MAX_ORDER 64
#endif
