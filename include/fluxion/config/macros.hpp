#pragma once
// Host/device annotations and compiler checks. Everything reachable from
// device code is annotated with FLUXION_HOST_DEVICE; under a plain host
// compiler the annotations vanish.

#if !defined(__cplusplus) || __cplusplus < 202002L
#  if !defined(_MSVC_LANG) || _MSVC_LANG < 202002L
#    error "fluxion needs C++20: compile with -std=c++20 (or nvcc -std=c++20)."
#  endif
#endif

#include <fluxion/config/tuning.hpp>

// FLUXION_HOST_DEVICE_CALL: host and device, but a call rather than inlined
// on the device, for large bodies called from many places (a sensitivity
// system's right-hand side, called by every stage): inlining them everywhere
// multiplies the device compiler's time and the code's size for no gain.
#if defined(__CUDACC__)
#  define FLUXION_HOST_DEVICE __host__ __device__ __forceinline__
#  define FLUXION_HOST_DEVICE_CALL __host__ __device__ __noinline__
#else
#  define FLUXION_HOST_DEVICE inline
#  define FLUXION_HOST_DEVICE_CALL inline
#endif

// FLUXION_HOST_ABI_BEGIN / FLUXION_HOST_ABI_END open and close an inline
// namespace around everything in fluxion::host (the host batch drivers,
// integrations and log-densities): nvcc_host under nvcc, native_host under a
// host compiler. Their bodies differ by compiler (the host compiler's take
// SIMD lanes, nvcc's host pass does not), so a program that links .cu and
// .cpp units calling the same fluxion::host function would otherwise hold two
// definitions of one inline function (an ODR violation: the linker keeps one,
// and one unit runs the other compiler's body). With the inline namespace
// each compiler's functions have their own names (as CUB versions its
// namespace); fluxion::host::rhs still names them in both. Every opening of
// fluxion::host, its detail namespace included, is inside one, so that
// qualified names such as fluxion::host::detail stay unambiguous.
#if defined(__CUDACC__)
#  define FLUXION_HOST_ABI_BEGIN inline namespace nvcc_host {
#  define FLUXION_HOST_ABI_END }
#else
#  define FLUXION_HOST_ABI_BEGIN inline namespace native_host {
#  define FLUXION_HOST_ABI_END }
#endif

#if defined(__CUDA_ARCH__)
#  define FLUXION_DEVICE_PASS 1
#else
#  define FLUXION_DEVICE_PASS 0
#endif

// A loop the compiler should unroll (a loop over a small array's
// compile-time indices, which keeps the array in registers on a GPU).
#if defined(__CUDA_ARCH__)
#  define FLUXION_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#  define FLUXION_UNROLL  // nvcc's host pass: its front end knows no host compiler's unroll pragma
#elif defined(__clang__)
#  define FLUXION_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#  define FLUXION_UNROLL _Pragma("GCC unroll 16")
#else
#  define FLUXION_UNROLL
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define FLUXION_RESTRICT __restrict__
#else
#  define FLUXION_RESTRICT
#endif

// Threads per block of fluxion's kernels (config/tuning.hpp). Whole warps:
// the kernels' warp-wide operations name a warp's live lanes by their index.
static_assert(FLUXION_CUDA_BLOCK_THREADS >= 32 && FLUXION_CUDA_BLOCK_THREADS <= 1024 &&
                  FLUXION_CUDA_BLOCK_THREADS % 32 == 0,
              "fluxion: FLUXION_CUDA_BLOCK_THREADS must be a multiple of 32 from 32 to 1024: blocks of whole warps, "
              "since the kernels' warp-wide operations name a warp's live lanes by their index.");
