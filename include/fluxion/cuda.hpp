#pragma once
// fluxion with CUDA batch launchers (nvcc translation units only).
#if !defined(__CUDACC__)
#  error "<fluxion/cuda.hpp> declares CUDA kernels: include it from a .cu file compiled by nvcc."
#endif
#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/fluxion.hpp>
#include <fluxion/solve/cuda.hpp>
#include <fluxion/infer/cuda.hpp>
