// A Python module's device evaluators (rhs, observe, jvp_x, jvp_p), float and double, and
// the CUDA runtime calls of the binding unit (which does not include it).
// (The tables are built in function templates: nvcc's generated host code
// cannot spell a model's type in a non-template function.)
#include <fluxion/python/cuda_entries.hpp>
#include <fluxion/python/detail/module_header.hpp>

namespace fluxion::python {
// Internal linkage: every module has its own tables, and a template named
// only by T would otherwise be one symbol shared by every module of a process.
namespace {
template <class T>
const evaluator_entries<T>& cuda_evaluator_table() {
  static const auto t =
      detail::evaluator_table<detail::cuda_evaluation<typename ::fluxion_python_module_spec::template compiled<T>>>();
  return t;
}
}  // namespace
const evaluator_entries<float>& cuda_evaluators(scalar_tag<float>) { return cuda_evaluator_table<float>(); }
const evaluator_entries<double>& cuda_evaluators(scalar_tag<double>) { return cuda_evaluator_table<double>(); }

int cuda_device_of(const void* pointer) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, pointer) != cudaSuccess) {
    cudaGetLastError();  // clear it: not a pointer the runtime knows
    return -1;
  }
  return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) ? a.device : -1;
}

int cuda_use_device(int device) {
  int current = -1;
  fluxion::detail::check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) fluxion::detail::check_cuda(cudaSetDevice(device), "cudaSetDevice to the arrays' device");
  return current;
}
}  // namespace fluxion::python
