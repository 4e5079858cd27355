#pragma once
// The instances of a host batch in its checked buffers (exec/check.hpp):
// where instance b starts in each, and the path that serves any strides,
// one instance at a time with the strides read at run time. The faster
// paths (exec/detail/soa.hpp, exec/detail/aos.hpp) stand on these.
#include <cstddef>

#include <fluxion/config/macros.hpp>
#include <fluxion/exec/check.hpp>
#include <fluxion/layout/check.hpp>

namespace fluxion::host {
FLUXION_HOST_ABI_BEGIN
namespace detail {

using fluxion::detail::check_call;  // exec/check.hpp, shared with the CUDA launchers
using fluxion::detail::check_pattern_nnz;
using fluxion::detail::checked_call;

// Instance b's pointers into a validated buffer.
template <class T>
auto at_instance(const checked_buffer<T>& c, std::size_t b) {
  return c.data + std::ptrdiff_t(b) * c.instance_stride;
}

// Instances [from, to), one at a time, any strides. Observables when Observe.
template <bool Observe, class M>
void evaluate_one_at_a_time(const M& m, typename M::scalar t, const checked_call<typename M::scalar>& c,
                            std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    if constexpr (Observe)
      m.observe(t, at_instance(c.x, i), c.x.element_stride, at_instance(c.p, i), c.p.element_stride,
                at_instance(c.out, i), c.out.element_stride);
    else
      m.rhs(t, at_instance(c.x, i), c.x.element_stride, at_instance(c.p, i), c.p.element_stride,
            at_instance(c.out, i), c.out.element_stride);
  }
}

}  // namespace detail
FLUXION_HOST_ABI_END
}  // namespace fluxion::host
