#pragma once
// Host batch drivers. Every buffer is validated against the layout before the
// first output element is written; inputs are read through const pointers and
// never modified.
//
//   M m;
//   fx::host::rhs(m, t, B, fx::soa(x), fx::soa(p), fx::soa(dx));
//   fx::host::observe(m, t, B, fx::aos(x), fx::broadcast(p), fx::aos(y));
#include <cstddef>
#include <span>

#include <fluxion/layout/batch.hpp>
#include <fluxion/compile/sparsity.hpp>
#include <fluxion/layout/check.hpp>

namespace fluxion::host {

namespace detail {
template <class T>
struct checked_call {
  checked_buffer<const T> x, p;
  checked_buffer<T> out;
};

template <class M>
checked_call<typename M::scalar> check_call(std::size_t count, const batch<const typename M::scalar>& x,
                                            const batch<const typename M::scalar>& p,
                                            const batch<typename M::scalar>& out, const char* out_block,
                                            std::size_t n_out) {
  checked_call<typename M::scalar> c{check_buffer("state", x, M::n_states, count, false),
                                     check_buffer("parameter", p, M::n_params, count, false),
                                     check_buffer(out_block, out, n_out, count, true)};
  check_no_overlap("state", c.x, out_block, c.out);
  check_no_overlap("parameter", c.p, out_block, c.out);
  return c;
}
}  // namespace detail

// d(state)/dt for `count` instances.
template <class M>
void rhs(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
         batch<const typename M::scalar> p, batch<typename M::scalar> dx) {
  const auto c = detail::check_call<M>(count, x, p, dx, "state derivative", M::n_states);
  for (std::size_t b = 0; b < count; ++b)
    m.rhs(t, c.x.data + std::ptrdiff_t(b) * c.x.instance_stride, c.x.element_stride,
          c.p.data + std::ptrdiff_t(b) * c.p.instance_stride, c.p.element_stride,
          c.out.data + std::ptrdiff_t(b) * c.out.instance_stride, c.out.element_stride);
}

// Observables for `count` instances.
template <class M>
void observe(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
             batch<const typename M::scalar> p, batch<typename M::scalar> y) {
  const auto c = detail::check_call<M>(count, x, p, y, "observable", M::n_observables);
  for (std::size_t b = 0; b < count; ++b)
    m.observe(t, c.x.data + std::ptrdiff_t(b) * c.x.instance_stride, c.x.element_stride,
              c.p.data + std::ptrdiff_t(b) * c.p.instance_stride, c.p.element_stride,
              c.out.data + std::ptrdiff_t(b) * c.out.instance_stride, c.out.element_stride);
}

// Dense Jacobians for `count` instances: each instance's rows x columns
// matrix, row-major, is one batch element block (J is M::jacobian::x, p,
// obs_x or obs_p).
template <class M, typename M::jacobian J>
void jacobian_dense(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                    batch<const typename M::scalar> p, batch<typename M::scalar> out) {
  using shape = typename M::template jacobian_shape<J>;
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian", shape::rows * shape::columns);
  for (std::size_t b = 0; b < count; ++b)
    m.template jacobian_dense<J>(t, c.x.data + std::ptrdiff_t(b) * c.x.instance_stride, c.x.element_stride,
                                 c.p.data + std::ptrdiff_t(b) * c.p.instance_stride, c.p.element_stride,
                                 c.out.data + std::ptrdiff_t(b) * c.out.instance_stride, c.out.element_stride);
}

// Sparse Jacobian values (CSR order of fluxion::jacobian_pattern<M, J>, nnz
// per instance) for `count` instances.
template <class M, typename M::jacobian J>
void jacobian_values(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
                     batch<const typename M::scalar> p, batch<typename M::scalar> out, std::size_t nnz) {
  // The caller's nnz must be the pattern's: it sizes every instance's block.
  static const std::size_t expected = jacobian_nnz_at_run_time<M, J>();
  if (nnz != expected)
    throw layout_error("jacobian values", "nnz must be the pattern's number of non-zeros", expected, nnz);
  const auto c = detail::check_call<M>(count, x, p, out, "jacobian values", nnz);
  for (std::size_t b = 0; b < count; ++b)
    m.template jacobian_values<J>(t, c.x.data + std::ptrdiff_t(b) * c.x.instance_stride, c.x.element_stride,
                                  c.p.data + std::ptrdiff_t(b) * c.p.instance_stride, c.p.element_stride,
                                  c.out.data + std::ptrdiff_t(b) * c.out.instance_stride, c.out.element_stride);
}

namespace detail {
// (d rhs / d state) v when States, else (d rhs / d parameters) v.
template <bool States, class M>
void jvp(const M& m, typename M::scalar t, std::size_t count, const batch<const typename M::scalar>& x,
         const batch<const typename M::scalar>& p, const batch<const typename M::scalar>& v,
         const batch<typename M::scalar>& out) {
  const auto c = check_call<M>(count, x, p, out, "state derivative", M::n_states);
  const auto cv = check_buffer("direction", v, States ? M::n_states : M::n_params, count, false);
  check_no_overlap("direction", cv, "state derivative", c.out);
  for (std::size_t b = 0; b < count; ++b) {
    const auto i = std::ptrdiff_t(b);
    const auto* xb = c.x.data + i * c.x.instance_stride;
    const auto* pb = c.p.data + i * c.p.instance_stride;
    const auto* vb = cv.data + i * cv.instance_stride;
    auto* ob = c.out.data + i * c.out.instance_stride;
    if constexpr (States)
      m.jvp_x(t, xb, c.x.element_stride, pb, c.p.element_stride, vb, cv.element_stride, ob, c.out.element_stride);
    else
      m.jvp_p(t, xb, c.x.element_stride, pb, c.p.element_stride, vb, cv.element_stride, ob, c.out.element_stride);
  }
}
}  // namespace detail

// Jacobian-vector products (d rhs/d state) v and (d rhs/d parameters) v for
// `count` instances; v is laid out like the states (jvp_x) or parameters (jvp_p).
template <class M>
void jvp_x(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out) {
  detail::jvp<true>(m, t, count, x, p, v, out);
}
template <class M>
void jvp_p(const M& m, typename M::scalar t, std::size_t count, batch<const typename M::scalar> x,
           batch<const typename M::scalar> p, batch<const typename M::scalar> v, batch<typename M::scalar> out) {
  detail::jvp<false>(m, t, count, x, p, v, out);
}

// One instance, contiguous buffers.
template <class M>
void rhs(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
         std::span<const typename M::scalar> p, std::span<typename M::scalar> dx) {
  rhs(m, t, 1, aos(x), aos(p), aos(dx));
}
template <class M>
void observe(const M& m, typename M::scalar t, std::span<const typename M::scalar> x,
             std::span<const typename M::scalar> p, std::span<typename M::scalar> y) {
  observe(m, t, 1, aos(x), aos(p), aos(y));
}

}  // namespace fluxion::host
