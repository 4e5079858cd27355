// A Python module's device Jacobians (dense and sparse values of jac_x,
// jac_p, obs_jac_x, obs_jac_p), float and double. (Built in a function
// template: nvcc's generated host code cannot spell a model's type in a
// non-template function.)
#include <fluxion/python/cuda_entries.hpp>
#include <fluxion/python/detail/module_header.hpp>

namespace fluxion::python {
// Internal linkage: every module has its own tables, and a template named
// only by T would otherwise be one symbol shared by every module of a process.
namespace {
template <class T>
const evaluator_entries<T>& cuda_jacobian_table() {
  static const auto t = detail::jacobian_table<detail::cuda_evaluation<typename ::fluxion_python_module_spec::template compiled<T>>>();
  return t;
}
}  // namespace
const evaluator_entries<float>& cuda_jacobians(scalar_tag<float>) { return cuda_jacobian_table<float>(); }
const evaluator_entries<double>& cuda_jacobians(scalar_tag<double>) { return cuda_jacobian_table<double>(); }
}  // namespace fluxion::python
