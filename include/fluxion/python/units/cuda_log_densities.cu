// A Python module's device log-densities and gradients, when its spec has a
// likelihood; float and double. (Built in a function template: nvcc's
// generated host code cannot spell a model's type in a non-template function.)
#include <fluxion/python/cuda_entries.hpp>
#include <fluxion/python/detail/module_header.hpp>

namespace fluxion::python {
// Internal linkage: every module has its own tables, and a template named
// only by T would otherwise be one symbol shared by every module of a process.
namespace {
template <class T>
const solver_entries<T>& cuda_log_density_table() {
  using spec = ::fluxion_python_module_spec;
  static const solver_entries<T> t = [] {
    solver_entries<T> e;
    if constexpr (has_log_density<spec>)
      e.log_density = &detail::cuda_solving<spec, typename spec::template compiled<T>>::log_density_by_method;
    return e;
  }();
  return t;
}
}  // namespace
const solver_entries<float>& cuda_log_densities(scalar_tag<float>) { return cuda_log_density_table<float>(); }
const solver_entries<double>& cuda_log_densities(scalar_tag<double>) { return cuda_log_density_table<double>(); }
}  // namespace fluxion::python
