#pragma once
// Batch launchers over device buffers: one thread evaluates one instance.
// Every buffer is validated on the host before the launch (size, strides,
// null, alignment, overlap, and that it is device memory, not a host
// pointer); a wrong buffer raises fluxion::layout_error, a failing CUDA call
// fluxion::cuda_error, and in both cases nothing is launched or written.
// Launches are asynchronous on the given stream.
//
//   fx::cuda::rhs(M{}, t, B, fx::soa(x_dev), fx::soa(p_dev), fx::soa(dx_dev), stream);
//   fx::cuda::rhs(M{}, t, B, x_span, p_span, dx_span);     // spans: structure-of-arrays
//
// Every launcher (rhs, observe, jvp_x, jvp_p, jacobian_dense, jacobian_values)
// takes either batches (fx::soa, fx::soa(span, pitch), fx::aos, fx::strided,
// fx::broadcast for inputs) or plain spans of device memory, which are
// structure-of-arrays batches (element j of instance b at data[j * count + b]).
#include <cstddef>
#include <span>
#include <string>

#include <cuda_runtime.h>

#include <fluxion/config/macros.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/exec/check.hpp>
#include <fluxion/exec/cuda/error.hpp>
#include <fluxion/exec/host.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>

namespace fluxion::cuda {

namespace detail {

// Element and instance strides of one buffer.
struct strides {
  std::ptrdiff_t element, instance;
};

// A checked buffer's strides (layout/check.hpp), as kernels take them.
template <class T>
strides strides_of(const checked_buffer<T>& b) {
  return {b.element_stride, b.instance_stride};
}

// What each thread evaluates.
struct rhs_op {
  template <class M, class T>
  __device__ static void run(const M& m, T t, const T* x, std::ptrdiff_t xe, const T* p, std::ptrdiff_t pe, const T*,
                             std::ptrdiff_t, T* out, std::ptrdiff_t oe) {
    m.rhs(t, x, xe, p, pe, out, oe);
  }
};
struct observe_op {
  template <class M, class T>
  __device__ static void run(const M& m, T t, const T* x, std::ptrdiff_t xe, const T* p, std::ptrdiff_t pe, const T*,
                             std::ptrdiff_t, T* out, std::ptrdiff_t oe) {
    m.observe(t, x, xe, p, pe, out, oe);
  }
};
struct jvp_x_op {
  template <class M, class T>
  __device__ static void run(const M& m, T t, const T* x, std::ptrdiff_t xe, const T* p, std::ptrdiff_t pe, const T* v,
                             std::ptrdiff_t ve, T* out, std::ptrdiff_t oe) {
    m.jvp_x(t, x, xe, p, pe, v, ve, out, oe);
  }
};
struct jvp_p_op {
  template <class M, class T>
  __device__ static void run(const M& m, T t, const T* x, std::ptrdiff_t xe, const T* p, std::ptrdiff_t pe, const T* v,
                             std::ptrdiff_t ve, T* out, std::ptrdiff_t oe) {
    m.jvp_p(t, x, xe, p, pe, v, ve, out, oe);
  }
};
template <auto J>
struct jacobian_values_op {
  template <class M, class T>
  __device__ static void run(const M& m, T t, const T* x, std::ptrdiff_t xe, const T* p, std::ptrdiff_t pe, const T*,
                             std::ptrdiff_t, T* out, std::ptrdiff_t oe) {
    m.template jacobian_values<J>(t, x, xe, p, pe, out, oe);
  }
};

// Threads per block, and the blocks per SM the register allocation must
// allow (launch bounds): generated evaluators are long straight-line code
// that the compiler would otherwise give as many registers as it likes,
// starving a memory-bound kernel of the warps that hide memory latency.
// (FLUXION_CUDA_BLOCK_THREADS and FLUXION_CUDA_MIN_BLOCKS_PER_SM are set in
// config/tuning.hpp; config/macros.hpp checks the first.)
inline constexpr unsigned block_threads = FLUXION_CUDA_BLOCK_THREADS;

// The grid of a kernel that loops over `work` items (blocks of `threads`):
// enough blocks for all of them, at most `capacity` (the grid-stride loop
// covers the rest).
inline unsigned grid_for(std::size_t capacity, unsigned threads, std::size_t work) {
  const std::size_t needed = (work + threads - 1) / threads;
  return unsigned(needed < capacity ? needed : capacity);
}

// Blocks of block_threads for `count` instances of a grid-stride loop, at
// most 65535 x 32 (the loop covers the rest).
inline unsigned grid_blocks(std::size_t count) { return grid_for(65535u * 32u, block_threads, count); }

// The buffers arrive as __restrict__ kernel parameters: NVVM keeps restrict
// there (it drops it on inlined device-function parameters), and without it
// every store to the output would force the inputs to be read again.
template <class Op, class M, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_CUDA_MIN_BLOCKS_PER_SM)
    batch_kernel(M m, T t, std::size_t count, const T* __restrict__ x, strides xs, const T* __restrict__ p,
                 strides ps, const T* __restrict__ v, strides vs, T* __restrict__ out, strides os) {
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    const auto i = std::ptrdiff_t(b);
    Op::run(m, t, x + i * xs.instance, xs.element, p + i * ps.instance, ps.element,
            v ? v + i * vs.instance : nullptr, vs.element, out + i * os.instance, os.element);
  }
}

// Moves each instance's Jacobian values, written in CSR order at the end of
// its dense block (slots entries - nnz ...), to their dense positions, and
// zeroes the rest. In place and in CSR order: value k's dense slot lies at
// or before its source slot, and every slot written before it is either no
// source or one already read.
template <class T>
struct expand_sink {
  T* out;
  std::ptrdiff_t stride;
  std::size_t columns;
  std::size_t source;     // the slot of the next value
  std::size_t first_unset = 0;
  __device__ void begin_row(std::size_t) {}
  template <class D, class Env>
  __device__ void entry(std::size_t row, std::size_t col, const Env&) {
    const std::size_t at = row * columns + col;
    const T value = out[std::ptrdiff_t(source++) * stride];
    for (; first_unset < at; ++first_unset) out[std::ptrdiff_t(first_unset) * stride] = T(0);
    out[std::ptrdiff_t(at) * stride] = value;
    first_unset = at + 1;
  }
  // Zeroes the slots after the last value, up to `entries`.
  __device__ void finish(std::size_t entries) {
    for (; first_unset < entries; ++first_unset) out[std::ptrdiff_t(first_unset) * stride] = T(0);
  }
};

// J is declared with its enum type, not as auto: nvcc's host stub would
// spell its type M::jacobian, which it cannot resolve.
template <class M, fluxion::jacobian_kind J, class T>
__global__ void __launch_bounds__(FLUXION_CUDA_BLOCK_THREADS, FLUXION_CUDA_MIN_BLOCKS_PER_SM)
    jacobian_expand_kernel(std::size_t count, T* __restrict__ out, strides os, std::size_t nnz) {
  using shape = typename M::template jacobian_shape<J>;
  constexpr std::size_t entries = shape::rows * shape::columns;
  for (std::size_t b = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += std::size_t(gridDim.x) * blockDim.x) {
    expand_sink<T> sink{out + std::ptrdiff_t(b) * os.instance, os.element, shape::columns, entries - nnz};
    shape::walk::run(sink);
    sink.finish(entries);
  }
}

// A buffer must be device (or managed) memory.
template <class T>
void check_device_memory(const std::string& block, const checked_buffer<T>& b) {
  if (b.end_byte == b.first_byte) return;
  cudaPointerAttributes attr{};
  const cudaError_t code = cudaPointerGetAttributes(&attr, b.data);
  if (code != cudaSuccess) {
    cudaGetLastError();  // clear the sticky state of this query
    throw cuda_error("cudaPointerGetAttributes for block '" + block + "'", code);
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw layout_error(block, "a host pointer is passed where device memory is needed (cudaPointerGetAttributes type " +
                                  std::to_string(int(attr.type)) + ")",
                       std::size_t(cudaMemoryTypeDevice), std::size_t(attr.type));
}

// Every buffer of a checked bundle (exec/check.hpp, solve/buffers.hpp,
// infer/buffers.hpp) must be device (or managed) memory.
template <class Bundle>
void check_device_memory(const Bundle& c) {
  c.each([](const char* block, const auto& b) { check_device_memory(block, b); });
}

template <class Op, class M>
void launch(const M& m, typename M::scalar t, std::size_t count, const batch<const typename M::scalar>& x,
            const batch<const typename M::scalar>& p, const batch<const typename M::scalar>* v, std::size_t n_v,
            const char* v_block, const batch<typename M::scalar>& out, const char* out_block, std::size_t n_out,
            cudaStream_t stream) {
  using T = typename M::scalar;
  // The same checks as the host drivers, then the device-memory checks.
  const auto c = fluxion::detail::check_call<M>(count, x, p, out, out_block, n_out, v, n_v, v_block);
  check_device_memory(c);
  if (count == 0 || n_out == 0) return;  // nothing to write: no launch
  constexpr unsigned threads = block_threads;
  const unsigned blocks = grid_blocks(count);
  batch_kernel<Op, M, T><<<blocks, threads, 0, stream>>>(
      m, t, count, c.x.data, strides_of(c.x), c.p.data, strides_of(c.p), c.v.data, strides_of(c.v), c.out.data,
      strides_of(c.out));
  fluxion::detail::check_cuda(cudaGetLastError(), "launch of a fluxion batch kernel");
}

}  // namespace detail

// d(state)/dt for `count` instances.
template <class M>
void rhs(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
         batch<const typename M::scalar> p, batch<typename M::scalar> dx, cudaStream_t stream = nullptr) {
  detail::launch<detail::rhs_op>(m, t, count, x, p, nullptr, 0, "", dx, "state derivative", M::n_states, stream);
}
// Observables for `count` instances.
template <class M>
void observe(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
             batch<const typename M::scalar> p, batch<typename M::scalar> y, cudaStream_t stream = nullptr) {
  detail::launch<detail::observe_op>(m, t, count, x, p, nullptr, 0, "", y, "observable", M::n_observables, stream);
}
// (d rhs / d state) v and (d rhs / d parameters) v for `count` instances.
template <class M>
void jvp_x(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           cudaStream_t stream = nullptr) {
  detail::launch<detail::jvp_x_op>(m, t, count, x, p, &v, M::n_states, "direction", out, "state derivative",
                                   M::n_states, stream);
}
template <class M>
void jvp_p(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           cudaStream_t stream = nullptr) {
  detail::launch<detail::jvp_p_op>(m, t, count, x, p, &v, M::n_params, "direction", out, "state derivative",
                                   M::n_states, stream);
}
// Dense Jacobians (rows x columns per instance) for `count` instances. Its
// entries are the sparse values bit for bit: the values kernel writes them
// (at the end of each instance's block), and a second kernel moves them to
// their places. One kernel of each would be compiled apart, and nvcc may
// fuse a product and a sum into one rounding in one and not in the other.
template <class M, typename M::jacobian J>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, cudaStream_t stream = nullptr) {
  using T = typename M::scalar;
  using shape = typename M::template jacobian_shape<J>;
  constexpr std::size_t entries = shape::rows * shape::columns;
  const auto c = fluxion::detail::check_call<M>(count, x, p, out, "jacobian", entries, nullptr, 0, "");
  detail::check_device_memory(c);
  if (count == 0 || entries == 0) return;
  std::size_t nnz = 0;
#ifndef __CUDA_ARCH__
  // Counted once on the host (see jacobian_values).
  static const std::size_t counted = fluxion::jacobian_nnz_at_run_time<M, J>();
  nnz = counted;
#endif
  const unsigned blocks = detail::grid_blocks(count);
  const detail::strides os = detail::strides_of(c.out);
  detail::batch_kernel<detail::jacobian_values_op<J>, M, T><<<blocks, detail::block_threads, 0, stream>>>(
      m, t, count, c.x.data, detail::strides_of(c.x), c.p.data, detail::strides_of(c.p), nullptr, detail::strides{},
      c.out.data + std::ptrdiff_t(entries - nnz) * os.element, os);
  fluxion::detail::check_cuda(cudaGetLastError(), "launch of fluxion's Jacobian values kernel");
  detail::jacobian_expand_kernel<M, J, T><<<blocks, detail::block_threads, 0, stream>>>(count, c.out.data, os, nnz);
  fluxion::detail::check_cuda(cudaGetLastError(), "launch of fluxion's dense Jacobian kernel");
}
// Sparse Jacobian values (nnz per instance, CSR order of fluxion::jacobian_pattern<M, J>).
template <class M, typename M::jacobian J>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     cudaStream_t stream = nullptr) {
#ifndef __CUDA_ARCH__
  // Counted on the host by the pattern walk. Only nvcc's host pass sees the
  // count: its functions are __host__ __device__, and cicc would otherwise
  // compile all of them for the device too (seconds for a large model), for
  // a count no device code makes.
  fluxion::detail::check_pattern_nnz<M, J>(nnz);
#endif
  detail::launch<detail::jacobian_values_op<J>>(m, t, count, x, p, nullptr, 0, "", out, "jacobian values", nnz, stream);
}

// Spans of device memory: structure-of-arrays batches.
template <class M>
void rhs(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
         std::span<const typename M::scalar> p, std::span<typename M::scalar> dx, cudaStream_t stream = nullptr) {
  rhs(m, t, count, soa(x), soa(p), soa(dx), stream);
}
template <class M>
void observe(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
             std::span<const typename M::scalar> p, std::span<typename M::scalar> y, cudaStream_t stream = nullptr) {
  observe(m, t, count, soa(x), soa(p), soa(y), stream);
}
template <class M>
void jvp_x(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
           std::span<const typename M::scalar> p, std::span<const typename M::scalar> v,
           std::span<typename M::scalar> out, cudaStream_t stream = nullptr) {
  jvp_x(m, t, count, soa(x), soa(p), soa(v), soa(out), stream);
}
template <class M>
void jvp_p(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
           std::span<const typename M::scalar> p, std::span<const typename M::scalar> v,
           std::span<typename M::scalar> out, cudaStream_t stream = nullptr) {
  jvp_p(m, t, count, soa(x), soa(p), soa(v), soa(out), stream);
}
// Element (r, c) of instance b's dense Jacobian at out[(r * columns + c) * count + b].
template <class M, typename M::jacobian J>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
                    std::span<const typename M::scalar> p, std::span<typename M::scalar> out,
                    cudaStream_t stream = nullptr) {
  jacobian_dense<M, J>(m, t, count, soa(x), soa(p), soa(out), stream);
}
// Value k (CSR order) of instance b at out[k * count + b].
template <class M, typename M::jacobian J>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
                     std::span<const typename M::scalar> p, std::span<typename M::scalar> out, std::size_t nnz,
                     cudaStream_t stream = nullptr) {
  jacobian_values<M, J>(m, t, count, soa(x), soa(p), soa(out), nnz, stream);
}

// The same with the model deduced: fluxion::cuda::jacobian_values<M::jacobian::x>(m, ...).
// In a non-template function of a .cu file, only this form compiles: nvcc's
// generated host code cannot spell a model type written as a template
// argument (see fluxion::jacobian_kind).
template <jacobian_kind J, class M>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, cudaStream_t stream = nullptr) {
  jacobian_dense<M, J>(m, t, count, x, p, out, stream);
}
template <jacobian_kind J, class M>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     cudaStream_t stream = nullptr) {
  jacobian_values<M, J>(m, t, count, x, p, out, nnz, stream);
}
template <jacobian_kind J, class M>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
                    std::span<const typename M::scalar> p, std::span<typename M::scalar> out,
                    cudaStream_t stream = nullptr) {
  jacobian_dense<M, J>(m, t, count, soa(x), soa(p), soa(out), stream);
}
template <jacobian_kind J, class M>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, std::span<const typename M::scalar> x,
                     std::span<const typename M::scalar> p, std::span<typename M::scalar> out, std::size_t nnz,
                     cudaStream_t stream = nullptr) {
  jacobian_values<M, J>(m, t, count, soa(x), soa(p), soa(out), nnz, stream);
}

}  // namespace fluxion::cuda
