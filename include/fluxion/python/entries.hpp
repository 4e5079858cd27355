#pragma once
// The entry points a Python module calls, as plain C++ (no Python, no
// pybind11): each operation of a compiled model on one device and scalar
// type is a function taking one call record. The binding unit
// (python/detail/module.hpp) checks the arrays and fills the records; the host and
// CUDA units (python/host_entries.hpp, python/cuda_entries.hpp) define the
// functions, each in its own translation unit, so that a module's units
// compile in parallel and nvcc never reads pybind11.
//
// A module is described by a spec (python/spec.hpp); its tables are the
// functions declared at the end, one a part, scalar type and device, each
// defined by the unit that builds that part (python/units/).
#include <cstddef>
#include <span>

#include <fluxion/infer/buffers.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/solve/buffers.hpp>
#include <fluxion/solve/problem.hpp>

namespace fluxion::python {

// The integration methods a module offers, by name.
enum class method : int { tsit5, vern7, rosenbrock23, rodas5p };
inline constexpr int method_count = 4;
inline constexpr const char* method_names[method_count] = {"tsit5", "vern7", "rosenbrock23", "rodas5p"};

// The four Jacobians, in the order of fluxion::jacobian_kind.
inline constexpr int jacobian_count = 4;
inline constexpr const char* jacobian_names[jacobian_count] = {"x", "p", "obs_x", "obs_p"};

// How a GPU integration or log-density maps trajectories onto threads.
enum class gpu_policy : int {
  thread,     // one thread a trajectory
  warp,       // a warp a trajectory (integrate, explicit methods)
  lanes,      // a lane a sensitivity column (log_density with the gradient)
  adjoint,    // the discrete adjoint (log_density with the gradient)
};

// An evaluation over a batch: t, `count` instances of x and p (and v for a
// Jacobian-vector product), into `out`. `stream` is a cudaStream_t on the
// device, `threads` the host threads.
template <class T>
struct eval_call {
  T t = 0;
  std::size_t count = 0;
  batch<const T> x, p, v;
  batch<T> out;
  std::size_t nnz = 0;       // sparse Jacobian values: nnz an instance
  void* stream = nullptr;
  unsigned threads = 1;
};
template <class T>
using eval_fn = void (*)(const eval_call<T>&);

template <class T>
struct evaluator_entries {
  eval_fn<T> rhs = nullptr, observe = nullptr, jvp_x = nullptr, jvp_p = nullptr;
  eval_fn<T> jacobian_dense[jacobian_count] = {};
  eval_fn<T> jacobian_values[jacobian_count] = {};
};

// An ensemble integration, into caller-owned outputs.
template <class T>
struct integrate_call {
  method how = method::tsit5;
  gpu_policy policy = gpu_policy::thread;
  ode_problem<T> problem;
  std::size_t count = 0;
  batch<const T> x0, p;
  ensemble_buffers<T> out;
  void* stream = nullptr;
  unsigned threads = 1;
};

// A log-density of an ensemble given data (host memory, one value per save
// time a series), into caller-owned outputs.
template <class T>
struct log_density_call {
  method how = method::tsit5;
  gpu_policy policy = gpu_policy::thread;
  ode_problem<T> problem;
  std::span<const series_data<T>> data;
  std::size_t count = 0;
  batch<const T> x0, p;
  log_density_buffers<T> out;
  void* stream = nullptr;
  unsigned threads = 1;
};

// Explicit and Rosenbrock integrations apart, so that the device can build
// them in two units at once.
template <class T>
struct solver_entries {
  void (*integrate)(const integrate_call<T>&) = nullptr;        // tsit5, vern7
  void (*integrate_stiff)(const integrate_call<T>&) = nullptr;  // rosenbrock23, rodas5p
  void (*log_density)(const log_density_call<T>&) = nullptr;    // null: the module has no likelihood
};

inline constexpr bool is_stiff(method how) { return how == method::rosenbrock23 || how == method::rodas5p; }

// The tables of the module being built, each defined by the unit that
// builds it (python/units/): host evaluators, host Jacobians, host solvers,
// and the same on the device. One module is one shared library, so the
// names are fixed; they are hidden, so that two modules in one process
// never bind to each other's tables.
template <class T>
struct scalar_tag {};
#define FLUXION_PYTHON_TABLE __attribute__((visibility("hidden")))
FLUXION_PYTHON_TABLE const evaluator_entries<float>& host_evaluators(scalar_tag<float>);
FLUXION_PYTHON_TABLE const evaluator_entries<double>& host_evaluators(scalar_tag<double>);
FLUXION_PYTHON_TABLE const evaluator_entries<float>& host_jacobians(scalar_tag<float>);
FLUXION_PYTHON_TABLE const evaluator_entries<double>& host_jacobians(scalar_tag<double>);
FLUXION_PYTHON_TABLE const solver_entries<float>& host_solvers(scalar_tag<float>);
FLUXION_PYTHON_TABLE const solver_entries<double>& host_solvers(scalar_tag<double>);
FLUXION_PYTHON_TABLE const evaluator_entries<float>& cuda_evaluators(scalar_tag<float>);
FLUXION_PYTHON_TABLE const evaluator_entries<double>& cuda_evaluators(scalar_tag<double>);
FLUXION_PYTHON_TABLE const evaluator_entries<float>& cuda_jacobians(scalar_tag<float>);
FLUXION_PYTHON_TABLE const evaluator_entries<double>& cuda_jacobians(scalar_tag<double>);
// The device solvers come from three units (explicit and Rosenbrock
// integrations, log-densities), each filling its part of a solver_entries.
FLUXION_PYTHON_TABLE const solver_entries<float>& cuda_integrators(scalar_tag<float>);
FLUXION_PYTHON_TABLE const solver_entries<double>& cuda_integrators(scalar_tag<double>);
FLUXION_PYTHON_TABLE const solver_entries<float>& cuda_stiff_integrators(scalar_tag<float>);
FLUXION_PYTHON_TABLE const solver_entries<double>& cuda_stiff_integrators(scalar_tag<double>);
FLUXION_PYTHON_TABLE const solver_entries<float>& cuda_log_densities(scalar_tag<float>);
FLUXION_PYTHON_TABLE const solver_entries<double>& cuda_log_densities(scalar_tag<double>);
// The CUDA runtime seen from the module unit (which does not include it):
// the device of a pointer (-1: not device memory), and making a device the
// current one (returns the one that was, for putting it back).
FLUXION_PYTHON_TABLE int cuda_device_of(const void* pointer);
FLUXION_PYTHON_TABLE int cuda_use_device(int device);

}  // namespace fluxion::python
