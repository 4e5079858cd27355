// A Python module's host ensembles: integrate (every method) and, when the
// spec has a likelihood, log_density; float and double.
#include <fluxion/python/detail/module_header.hpp>
#include <fluxion/python/host_entries.hpp>

namespace fluxion::python {
using spec = ::fluxion_python_module_spec;
const solver_entries<float>& host_solvers(scalar_tag<float>) {
  static const auto t = detail::make_host_solvers<spec, spec::compiled<float>>();
  return t;
}
const solver_entries<double>& host_solvers(scalar_tag<double>) {
  static const auto t = detail::make_host_solvers<spec, spec::compiled<double>>();
  return t;
}
}  // namespace fluxion::python
