#pragma once
// fluxion with CUDA batch launchers (nvcc translation units only). It
// includes <fluxion/core.hpp>, not the host thread pool: a unit that also runs
// host batches includes <fluxion/fluxion.hpp> as well.
#if !defined(__CUDACC__)
#  error "<fluxion/cuda.hpp> declares CUDA kernels: include it from a .cu file compiled by nvcc."
#endif
#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/exec/cuda/scratch.hpp>
#include <fluxion/core.hpp>
#include <fluxion/solve/cuda.hpp>
#include <fluxion/infer/cuda.hpp>
