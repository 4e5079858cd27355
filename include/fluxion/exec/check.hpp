#pragma once
// The checked buffers of one launcher call, the same for the host and the
// GPU: every buffer checked against the layout (layout/check.hpp) and the
// outputs apart from the inputs and from each other, before anything is
// written. Each bundle names its buffers through each(f), f(name, buffer)
// for every buffer present, so that a CUDA launcher checks that they lie in
// device memory in one loop (exec/cuda/launch.hpp). The bundles of an
// integration and of a log-density are beside their buffers
// (solve/buffers.hpp, infer/buffers.hpp).
#include <cstddef>

#include <fluxion/compile/sparsity.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/layout/error.hpp>

namespace fluxion::detail {

// An evaluation's buffers: states, parameters, the output, and the
// direction v of a Jacobian-vector product (no bytes when there is none).
template <class T>
struct checked_call {
  checked_buffer<const T> x, p;
  checked_buffer<T> out;
  checked_buffer<const T> v;
  const char* out_block;
  const char* v_block;  // null: no direction

  template <class F>
  void each(F&& f) const {
    if (v_block) f(v_block, v);
    f("state", x);
    f("parameter", p);
    f(out_block, out);
  }
};

// The buffers of one call, checked in order (state, parameters, output, then
// the direction v when given), and the output apart from every input.
template <class M>
checked_call<typename M::scalar> check_call(std::size_t count, const batch<const typename M::scalar>& x,
                                            const batch<const typename M::scalar>& p,
                                            const batch<typename M::scalar>& out, const char* out_block,
                                            std::size_t n_out, const batch<const typename M::scalar>* v = nullptr,
                                            std::size_t n_v = 0, const char* v_block = "direction") {
  checked_call<typename M::scalar> c{check_buffer("state", x, M::n_states, count, false),
                                     check_buffer("parameter", p, M::n_params, count, false),
                                     check_buffer(out_block, out, n_out, count, true),
                                     {nullptr, 1, 0, 0, 0},
                                     out_block,
                                     v ? v_block : nullptr};
  if (v) c.v = check_buffer(v_block, *v, n_v, count, false);
  check_outputs_apart({{"state", c.x}, {"parameter", c.p}, {v_block, c.v}}, {{out_block, c.out}});
  return c;
}

// The caller's nnz of Jacobian J must be the pattern's: it sizes every
// instance's block of values. Counted once, on the host.
template <class M, typename M::jacobian J>
void check_pattern_nnz(std::size_t nnz) {
  static const std::size_t expected = jacobian_nnz_at_run_time<M, J>();
  if (nnz != expected)
    throw layout_error("jacobian values", "nnz must be the pattern's number of non-zeros", expected, nnz);
}

}  // namespace fluxion::detail
