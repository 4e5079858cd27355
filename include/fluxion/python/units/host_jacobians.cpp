// A Python module's host Jacobians (dense and sparse values of jac_x, jac_p,
// obs_jac_x, obs_jac_p), float and double.
#include <fluxion/python/detail/module_header.hpp>
#include <fluxion/python/host_entries.hpp>

namespace fluxion::python {
using spec = ::fluxion_python_module_spec;
const evaluator_entries<float>& host_jacobians(scalar_tag<float>) {
  static const auto t = detail::jacobian_table<detail::host_evaluation<spec::compiled<float>>>();
  return t;
}
const evaluator_entries<double>& host_jacobians(scalar_tag<double>) {
  static const auto t = detail::jacobian_table<detail::host_evaluation<spec::compiled<double>>>();
  return t;
}
}  // namespace fluxion::python
