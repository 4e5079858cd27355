// A Python module's device integrations by Rosenbrock methods (rosenbrock23,
// rodas5p; a thread a trajectory), float and double. (Built in a function
// template: nvcc's generated host code cannot spell a model's type in a
// non-template function.)
#include <fluxion/python/cuda_entries.hpp>
#include <fluxion/python/detail/module_header.hpp>

namespace fluxion::python {
// Internal linkage: every module has its own tables, and a template named
// only by T would otherwise be one symbol shared by every module of a process.
namespace {
template <class T>
const solver_entries<T>& cuda_stiff_integrator_table() {
  using spec = ::fluxion_python_module_spec;
  static const solver_entries<T> t{
      nullptr, &detail::cuda_solving<spec, typename spec::template compiled<T>>::integrate_stiff, nullptr};
  return t;
}
}  // namespace
const solver_entries<float>& cuda_stiff_integrators(scalar_tag<float>) { return cuda_stiff_integrator_table<float>(); }
const solver_entries<double>& cuda_stiff_integrators(scalar_tag<double>) {
  return cuda_stiff_integrator_table<double>();
}
}  // namespace fluxion::python
