#pragma once
// Host/device annotations and compiler checks. Everything reachable from
// device code is annotated with FLUXION_HOST_DEVICE; under a plain host
// compiler the annotations vanish.

#if !defined(__cplusplus) || __cplusplus < 202002L
#  if !defined(_MSVC_LANG) || _MSVC_LANG < 202002L
#    error "fluxion needs C++20: compile with -std=c++20 (or nvcc -std=c++20)."
#  endif
#endif

#if defined(__CUDACC__)
#  define FLUXION_HOST_DEVICE __host__ __device__ __forceinline__
#  define FLUXION_HD __host__ __device__
#  define FLUXION_CUDA_COMPILER 1
#else
#  define FLUXION_HOST_DEVICE inline
#  define FLUXION_HD
#  define FLUXION_CUDA_COMPILER 0
#endif

#if defined(__CUDA_ARCH__)
#  define FLUXION_DEVICE_PASS 1
#else
#  define FLUXION_DEVICE_PASS 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define FLUXION_RESTRICT __restrict__
#else
#  define FLUXION_RESTRICT
#endif
