#pragma once
// Host batch drivers. Every buffer is validated against the layout before the
// first output element is written; inputs are read through const pointers and
// never modified.
//
//   M m;
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx));
//   fx::host::observe(m, t, B, fx::aos(x), fx::broadcast(p), fx::aos(y));
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx), fx::host::threads(8));
//
// Batches whose instances are consecutive in every buffer (structure-of-
// arrays) are evaluated several instances at once with the host's SIMD units
// (fluxion::lanes; exec/detail/soa.hpp), and so are the right-hand sides of
// batches whose elements are consecutive (array-of-structures records,
// transposed into lanes and back; exec/detail/aos.hpp); the rest one
// instance at a time (exec/detail/instances.hpp). fx::host::threads(n)
// (exec/threads.hpp) spreads a batch over up to n threads, each on a
// contiguous range of instances (exec/detail/for_ranges.hpp). A batch with
// nothing to write (no instances, or an output block of no elements)
// returns once its buffers are checked.
//
// The threads themselves are defined by <fluxion/exec/host_threads.hpp>, which
// <fluxion/fluxion.hpp> includes and <fluxion/cuda.hpp> does not: <thread>
// costs an nvcc translation unit about a second in its three front ends, and
// a unit that only launches kernels never starts one.
#include <cstddef>
#include <span>
#include <type_traits>

#include <fluxion/compile/concepts.hpp>
#include <fluxion/compile/sparsity.hpp>
#include <fluxion/exec/check.hpp>
#include <fluxion/exec/detail/aos.hpp>
#include <fluxion/exec/detail/for_ranges.hpp>
#include <fluxion/exec/detail/instances.hpp>
#include <fluxion/exec/detail/soa.hpp>
#include <fluxion/exec/threads.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#if !defined(__CUDACC__)
#  include <fluxion/exec/lanes.hpp>
#  include <fluxion/exec/detail/transpose.hpp>
#endif

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN

// The SIMD width, in bytes, that the batch drivers' lanes use here (0 when
// compiled by nvcc, whose host pass evaluates one instance at a time).
#if defined(__CUDACC__)
inline constexpr std::size_t simd_bytes_used = 0;
#else
inline constexpr std::size_t simd_bytes_used = simd_bytes;
#endif

namespace detail {

// Instances a range of a batch evaluation holds a multiple of (so that
// groups of SIMD lanes do not straddle threads).
inline constexpr std::size_t range_grain = 64;

// Evaluates instances [begin, end) by the fastest path their buffers allow:
// SIMD lanes across instances for structure-of-arrays batches, and for the
// right-hand sides of array-of-structures batches; unit element strides at
// compile time for other array-of-structures calls; any strides otherwise.
// Observables when Observe.
template <bool Observe, class M>
void evaluate_range(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c, std::size_t begin,
                    std::size_t end) {
  using T = typename M::scalar;
  const bool unit_elements = c.x.element_stride == 1 && c.p.element_stride == 1 && c.out.element_stride == 1;
#if !defined(__CUDACC__)
  if constexpr (std::is_floating_point_v<T>) {
    using L = lanes<T>;
    if (end - begin >= L::width) {
      if (c.x.instance_stride == 1 && c.p.instance_stride == 1 && c.out.instance_stride == 1)
        return evaluate_soa_lanes<Observe, L>(m, t, c, begin, end);
      // Observables usually read a few of the states; transposing all of
      // them would cost more than it saves.
      if constexpr (!Observe && register_transpose)
        if (unit_elements) return rhs_aos_lanes<L>(m, t, c, begin, end);
    }
  }
#endif
  if (unit_elements) return evaluate_aos<Observe>(m, t, c, begin, end);
  evaluate_one_at_a_time<Observe>(m, t, c, begin, end);
}
}  // namespace detail

// d(state)/dt for `count` instances.
template <compiled_model M>
void rhs(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
         batch<const typename M::scalar> p, batch<typename M::scalar> dx, threads exec = threads{}) {
  const auto c = detail::check_call<M>(count, x, p, dx, "state derivative", M::n_states);
  if (count == 0 || M::n_states == 0) return;  // nothing to write
  detail::for_ranges(count, exec, detail::range_grain, 2 * M::n_states + M::n_params,
                     [&](std::size_t b, std::size_t e) { detail::evaluate_range<false>(m, t, c, b, e); });
}

// Observables for `count` instances.
template <compiled_model M>
void observe(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
             batch<const typename M::scalar> p, batch<typename M::scalar> y, threads exec = threads{}) {
  const auto c = detail::check_call<M>(count, x, p, y, "observable", M::n_observables);
  if (count == 0 || M::n_observables == 0) return;  // nothing to write
  detail::for_ranges(count, exec, detail::range_grain, M::n_states + M::n_params + M::n_observables,
                     [&](std::size_t b, std::size_t e) { detail::evaluate_range<true>(m, t, c, b, e); });
}

// Dense Jacobians for `count` instances: each instance's rows x columns
// matrix, row-major, is one batch element block (J is M::jacobian::x, p,
// obs_x or obs_p).
template <class M, typename M::jacobian J>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, threads exec = threads{}) {
  using shape = typename M::template jacobian_shape<J>;
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian", shape::rows * shape::columns);
  if (count == 0 || shape::rows * shape::columns == 0) return;  // nothing to write
  detail::for_ranges(count, exec, 1, M::n_states + M::n_params + shape::rows * shape::columns,
                     [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      m.template jacobian_dense<J>(t, detail::at_instance(c.x, b), c.x.element_stride, detail::at_instance(c.p, b),
                                   c.p.element_stride, detail::at_instance(c.out, b), c.out.element_stride);
  });
}

// Sparse Jacobian values (CSR order of fluxion::jacobian_pattern<M, J>, nnz
// per instance) for `count` instances.
template <class M, typename M::jacobian J>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     threads exec = threads{}) {
  detail::check_pattern_nnz<M, J>(nnz);
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian values", nnz);
  if (count == 0 || nnz == 0) return;  // nothing to write
  detail::for_ranges(count, exec, 1, M::n_states + M::n_params + nnz, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      m.template jacobian_values<J>(t, detail::at_instance(c.x, b), c.x.element_stride, detail::at_instance(c.p, b),
                                    c.p.element_stride, detail::at_instance(c.out, b), c.out.element_stride);
  });
}

// The same with the model deduced: fluxion::host::jacobian_values<M::jacobian::x>(m, ...).
// Prefer this form in .cu files (see fluxion::jacobian_kind).
template <jacobian_kind J, class M>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out, threads exec = threads{}) {
  jacobian_dense<M, J>(m, t, count, x, p, out, exec);
}
template <jacobian_kind J, class M>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz,
                     threads exec = threads{}) {
  jacobian_values<M, J>(m, t, count, x, p, out, nnz, exec);
}

namespace detail {
// (d rhs / d state) v when States, else (d rhs / d parameters) v.
template <bool States, class M>
void jvp(const M& m, typename M::scalar t, std::size_t count, const batch<const typename M::scalar>& x,
         const batch<const typename M::scalar>& p, const batch<const typename M::scalar>& v,
         const batch<typename M::scalar>& out, threads exec) {
  const auto c = check_call<M>(count, x, p, out, "state derivative", M::n_states, &v,
                               States ? M::n_states : M::n_params);
  const auto& cv = c.v;
  if (count == 0 || M::n_states == 0) return;  // nothing to write
  for_ranges(count, exec, range_grain, 3 * M::n_states + 2 * M::n_params, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      if constexpr (States)
        m.jvp_x(t, at_instance(c.x, b), c.x.element_stride, at_instance(c.p, b), c.p.element_stride,
                at_instance(cv, b), cv.element_stride, at_instance(c.out, b), c.out.element_stride);
      else
        m.jvp_p(t, at_instance(c.x, b), c.x.element_stride, at_instance(c.p, b), c.p.element_stride,
                at_instance(cv, b), cv.element_stride, at_instance(c.out, b), c.out.element_stride);
    }
  });
}
}  // namespace detail

// Jacobian-vector products (d rhs/d state) v and (d rhs/d parameters) v for
// `count` instances; v is laid out like the states (jvp_x) or parameters (jvp_p).
template <compiled_model M>
void jvp_x(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           threads exec = threads{}) {
  detail::jvp<true>(m, t, count, x, p, v, out, exec);
}
template <compiled_model M>
void jvp_p(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out,
           threads exec = threads{}) {
  detail::jvp<false>(m, t, count, x, p, v, out, exec);
}

// One instance, contiguous buffers.
template <compiled_model M>
void rhs(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
         std::span<const typename M::scalar> p, std::span<typename M::scalar> dx) {
  rhs(m, t, 1, aos(x), aos(p), aos(dx));
}
template <compiled_model M>
void observe(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
             std::span<const typename M::scalar> p, std::span<typename M::scalar> y) {
  observe(m, t, 1, aos(x), aos(p), aos(y));
}

// Something else than a compiled model: one sentence naming the concept
// (compile/concepts.hpp) instead of a list of candidates.
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto rhs(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto observe(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto jvp_x(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}
template <class M, class... Rest>
  requires(!compiled_model<M>)
auto jvp_p(const M&, Rest&&...) {
  return fluxion::detail::require_compiled_model<M>();
}

FLUXION_HOST_ABI_END
}  // namespace fluxion::host