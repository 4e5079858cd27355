// A Python module's host evaluators (rhs, observe, jvp_x, jvp_p), float and
// double. Built with -DFLUXION_PYTHON_MODULE_HEADER=<the module's header>.
#include <fluxion/python/detail/module_header.hpp>
#include <fluxion/python/host_entries.hpp>

namespace fluxion::python {
using spec = ::fluxion_python_module_spec;
const evaluator_entries<float>& host_evaluators(scalar_tag<float>) {
  static const auto t = detail::evaluator_table<detail::host_evaluation<spec::compiled<float>>>();
  return t;
}
const evaluator_entries<double>& host_evaluators(scalar_tag<double>) {
  static const auto t = detail::evaluator_table<detail::host_evaluation<spec::compiled<double>>>();
  return t;
}
}  // namespace fluxion::python
