#pragma once
// The Python module of one compiled model: its calls read NumPy arrays
// (host batches, on threads) or GPU arrays (CuPy, PyTorch, JAX: device
// launchers on the arrays' device and the package's current stream), decide
// the device from the arrays alone, and return results where the inputs
// live, in their dtype. Every argument is checked before anything is
// written: a wrong shape, dtype, device, kind of array, a read-only or
// overlapping out= raise ValueError or TypeError naming the argument;
// inputs are never written. No GPU array is ever computed on the host.
//
// Batches: an input of a block of n elements is (n,) (every instance reads
// it), or (B, n) with any strides that follow the flat layout (rows, a
// column slice of a wider record, the transpose of an (n, B) buffer), read
// in place; a B of 1 is read by every instance. Results are (B, n), or (n,)
// when no input is batched, laid out like the state (rows when its
// elements are adjacent, batch fastest otherwise), unless out= is given.
//
// Binding unit only (python/units/module.cpp).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fluxion/core.hpp>
#include <fluxion/infer/data_error.hpp>
#include <fluxion/python/detail/arrays.hpp>
#include <fluxion/python/entries.hpp>
#include <fluxion/python/spec.hpp>

// Hidden, as pybind11 is: the module's own symbols, never another module's.
#pragma GCC visibility push(hidden)

namespace fluxion::python {

namespace detail {

// "(3,)", "(B, 4)": Python's spelling of a shape.
inline std::string shape_text(const std::vector<std::ptrdiff_t>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}
inline std::string shape_of(const array_ref& a) {
  return shape_text(std::vector<std::ptrdiff_t>(a.shape.begin(), a.shape.begin() + a.ndim));
}

inline std::string where_text(const array_ref& a) {
  return std::string(family_name(a.family)) +
         (a.on_device() ? " on GPU " + std::to_string(a.device) : std::string(" in host memory"));
}

// The arguments of one call: one kind of array, one device, one dtype.
struct call_arrays {
  std::vector<array_ref> inputs;
  char dtype = 0;
  int device = -1;
  array_family family = array_family::numpy;
  std::size_t count = 1;
  bool batched = false;  // some input has a batch dimension
  void* stream = nullptr;

  const array_ref& first() const { return inputs.front(); }

  void add(const py::handle& o, const char* name) {
    array_ref a = read_array(o, name);
    if (inputs.empty()) {
      if (a.dtype == 0)
        throw py::type_error(std::string(name) + " has dtype " + a.dtype_text +
                             "; fluxion evaluates float32 or float64 arrays");
      dtype = a.dtype;
      device = a.device;
      family = a.family;
    } else {
      const array_ref& f = inputs.front();
      if (a.family != family || a.device != device)
        throw py::type_error(std::string(name) + " is a " + where_text(a) + " but " + f.argument + " is a " +
                             where_text(f) + ": the arrays of one call are of one kind, on one device");
      if (a.dtype != dtype)
        throw py::type_error(std::string(name) + " has dtype " + a.dtype_text + " but " + f.argument + " has " +
                             f.dtype_text + ": the arrays of one call have one dtype (no conversion is made)");
    }
    inputs.push_back(std::move(a));
  }

  // The batch size from input `a` of a block of n elements: (n,) or (B, n).
  void size_batch(const array_ref& a, std::size_t n) {
    const std::string expected = "expected (" + std::to_string(n) + ",) or (B, " + std::to_string(n) + ")";
    if (a.ndim == 1 && a.shape[0] == std::ptrdiff_t(n)) return;
    if (a.ndim != 2 || a.shape[1] != std::ptrdiff_t(n))
      throw py::value_error(a.argument + " has shape " + shape_of(a) + ", " + expected);
    const std::size_t b = std::size_t(a.shape[0]);
    if (b == 1) {
      if (!batched) count = 1;
      batched = true;
      return;
    }
    if (batched && count != 1 && count != b)
      throw py::value_error(a.argument + " has a batch of " + std::to_string(b) + " but an earlier argument has " +
                            std::to_string(count) + " (shape " + shape_of(a) + ")");
    count = b;
    batched = true;
  }
};

inline void check_strides(const array_ref& a) {
  for (int d = 0; d < a.ndim; ++d)
    if (a.strides[std::size_t(d)] < 0)
      throw py::value_error(a.argument + " has a negative stride in dimension " + std::to_string(d) +
                            "; fluxion reads batches in increasing address order (pass a copy)");
}

inline void check_alignment(const array_ref& a, std::size_t itemsize) {
  if (a.address % itemsize != 0)
    throw py::value_error(a.argument + " is not aligned to its " + std::to_string(itemsize) + "-byte elements (address " +
                          std::to_string(a.address) + ")");
}

// A read-only batch of `count` instances of n elements from a (n,) or (B, n)
// array (B of 1: every instance reads it).
// A zero stride between the elements of an instance (a broadcast value,
// numpy.broadcast_to) is refused: elements are distinct values of the layout.
inline std::ptrdiff_t element_stride(const array_ref& a, std::ptrdiff_t es, std::size_t n) {
  if (es == 0 && n > 1)
    throw py::value_error(a.argument + " repeats one value across its elements (stride 0 in its last dimension); "
                          "pass numpy.ascontiguousarray (or cupy's) of it");
  return es > 0 ? es : 1;
}

template <class T>
batch<const T> input_batch(const array_ref& a, std::size_t n, std::size_t count) {
  check_strides(a);
  check_alignment(a, sizeof(T));
  const std::ptrdiff_t es = element_stride(a, a.ndim == 1 ? a.strides[0] : a.strides[1], n);
  const std::ptrdiff_t is = (a.ndim == 1 || a.shape[0] == 1) ? 0 : a.strides[0];
  const std::size_t extent =
      n == 0 || count == 0 ? 0 : std::size_t(std::ptrdiff_t(count - 1) * is + std::ptrdiff_t(n - 1) * es + 1);
  return fluxion::strided(std::span<const T>(reinterpret_cast<const T*>(a.address), extent), es, is);
}

// Whether the elements of a state-like input lie batch-fastest (a transposed
// (n, B) buffer): results then take the same order.
inline bool batch_fastest(const array_ref& a) {
  return a.ndim == 2 && a.shape[0] > 1 && a.shape[1] > 1 && a.strides[0] == 1 && a.strides[1] != 1;
}

// An output of `count` instances, each `inner` (a shape of one or two
// dimensions) elements: given (out=) or made. Checked: kind, device, dtype,
// shape, writable, apart from every input.
struct output_array {
  py::object object;  // what the call returns (out=, or a result made before the launch)
  array_ref ref;
  // A CuPy result: its memory taken before the launch, its array (a view,
  // axes permuted) made after it, while the GPU works (result()).
  std::optional<result_arrays> pending;
  std::vector<py::ssize_t> axes;

  py::object result() {
    if (!pending) return object;
    object = pending->array(0);
    if (!axes.empty()) object = permuted(ref, object, axes);
    pending.reset();
    return object;
  }
};

// The reference of a new row-major allocation of shape `alloc` at `address`,
// seen through its axes permuted by `axes` (none: as allocated).
inline array_ref new_result_ref(const array_ref& like, char dtype, const char* name, std::uintptr_t address,
                                const std::vector<py::ssize_t>& alloc, const std::vector<py::ssize_t>& axes) {
  array_ref a;
  a.argument = name;
  a.family = like.family;
  a.device = like.device;
  a.dtype = dtype;
  a.dtype_text = float_name(dtype);
  a.address = address;
  a.ndim = int(alloc.size());
  std::vector<std::ptrdiff_t> strides(alloc.size());
  std::ptrdiff_t run = 1;
  for (std::size_t d = alloc.size(); d-- > 0;) {
    strides[d] = run;
    run *= std::ptrdiff_t(alloc[d]);
  }
  for (std::size_t d = 0; d < alloc.size(); ++d) {
    const std::size_t from = axes.empty() ? d : std::size_t(axes[d]);
    a.shape[d] = std::ptrdiff_t(alloc[from]);
    a.strides[d] = strides[from];
  }
  return a;
}

template <class T>
output_array make_output(const call_arrays& in, const py::object& out, const std::vector<std::ptrdiff_t>& inner,
                         bool batch_first_fastest, const char* name = "out") {
  std::vector<py::ssize_t> shape;
  if (in.batched) shape.push_back(py::ssize_t(in.count));
  for (auto e : inner) shape.push_back(py::ssize_t(e));
  output_array o;
  if (out.is_none()) {
    const char* dt = float_name(in.dtype);
    std::vector<py::ssize_t> alloc = shape, axes;
    if (in.batched && batch_first_fastest && shape.size() > 1) {
      alloc.assign(shape.begin() + 1, shape.end());
      alloc.push_back(shape[0]);
      axes.push_back(py::ssize_t(alloc.size() - 1));
      for (std::size_t d = 0; d + 1 < alloc.size(); ++d) axes.push_back(py::ssize_t(d));
    }
    if (results_from_cupy(in.first())) {
      o.pending.emplace(in.first());
      o.pending->add(dt, alloc);
      o.pending->make();
      o.axes = axes;
      o.ref = new_result_ref(in.first(), in.dtype, name, reinterpret_cast<std::uintptr_t>(o.pending->data<T>(0)), alloc,
                             axes);
      return o;
    }
    o.object = new_array(in.first(), dt, alloc);
    if (!axes.empty()) o.object = permuted(in.first(), o.object, axes);
    o.ref = read_array(o.object, name);
    return o;
  }
  o.object = out;
  o.ref = read_array(out, name);
  const array_ref& a = o.ref;
  const array_ref& f = in.first();
  if (a.family != f.family || a.device != f.device)
    throw py::type_error(std::string(name) + " is a " + where_text(a) + " but " + f.argument + " is a " + where_text(f) +
                         ": the arrays of one call are of one kind, on one device");
  if (a.dtype != in.dtype)
    throw py::type_error(std::string(name) + " has dtype " + a.dtype_text + " but " + f.argument + " has " +
                         f.dtype_text + ": the arrays of one call have one dtype (no conversion is made)");
  bool same = a.ndim == int(shape.size());
  for (std::size_t d = 0; same && d < shape.size(); ++d) same = a.shape[d] == shape[d];
  if (!same)
    throw py::value_error(std::string(name) + " has shape " + shape_of(a) + ", expected " +
                          shape_text(std::vector<std::ptrdiff_t>(shape.begin(), shape.end())));
  if (f.family == array_family::jax)
    throw py::type_error(std::string(name) + " is a JAX array, which is immutable: leave out= out for JAX inputs");
  if (a.readonly) throw py::value_error(std::string(name) + " is read-only");
  check_strides(a);
  check_alignment(a, sizeof(T));
  const auto r = a.byte_range(sizeof(T));
  for (const auto& i : in.inputs) {
    const auto q = i.byte_range(sizeof(T));
    if (r.first < q.second && q.first < r.second && r.first != r.second && q.first != q.second)
      throw py::value_error(std::string(name) + " overlaps the memory of " + i.argument +
                            " (inputs are never written: pass a separate output)");
  }
  return o;
}

// The batch of an output made by make_output: the batch dimension first,
// then `inner` elements, which must be one strided run.
template <class T>
batch<T> output_batch(const output_array& o, bool batched, std::size_t count, std::size_t elements) {
  const array_ref& a = o.ref;
  const int first = batched ? 1 : 0;
  std::ptrdiff_t es = 1;
  if (a.ndim > first) {
    es = element_stride(a, a.strides[std::size_t(a.ndim - 1)], elements);
    // Inner dimensions must collapse into one run of stride es.
    std::ptrdiff_t run = es;
    for (int d = a.ndim - 1; d > first; --d) {
      run *= a.shape[std::size_t(d)];
      if (a.shape[std::size_t(d - 1)] > 1 && a.strides[std::size_t(d - 1)] != run)
        throw py::value_error(a.argument + "'s element dimensions do not form one strided run; pass a contiguous out=");
    }
  }
  const std::ptrdiff_t is = batched ? a.strides[0] : std::ptrdiff_t(elements);
  const std::size_t extent =
      elements == 0 || count == 0 ? 0 : std::size_t(std::ptrdiff_t(count - 1) * is + std::ptrdiff_t(elements - 1) * es + 1);
  return fluxion::strided(std::span<T>(reinterpret_cast<T*>(a.address), extent), es, is);
}

inline unsigned thread_count(const py::object& threads) {
  static const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  if (threads.is_none()) return hardware;
  if (!py::isinstance<py::int_>(threads))
    throw py::type_error("threads must be an int, got " + detail::type_text(threads));
  const long n = threads.cast<long>();
  if (n < 1) throw py::value_error("threads must be at least 1, got " + std::to_string(n));
  return unsigned(n);
}

// t: a Python float, a NumPy scalar or a 0-d array.
inline double time_value(const py::handle& t, const char* name = "t") {
  if (PyFloat_CheckExact(t.ptr())) return PyFloat_AS_DOUBLE(t.ptr());
  if (py::hasattr(t, "ndim") && py::getattr(t, "ndim").cast<long>() != 0)
    throw py::type_error(std::string(name) + " must be a scalar (a float or a 0-d array), got an array of " +
                         std::to_string(py::getattr(t, "ndim").cast<long>()) + " dimensions");
  try {
    return py::float_(py::reinterpret_borrow<py::object>(t)).cast<double>();
  } catch (py::error_already_set&) {
    throw py::type_error(std::string(name) + " must be a real number, got " + detail::type_text(t));
  }
}

// The stream and device of a GPU call: the package's current stream on the
// arrays' device, which must be the package's current device (CuPy), or the
// tensors' device (PyTorch). Decided before any output is made.
inline void choose_stream(call_arrays& c) {
  if (c.device < 0) return;
#if defined(FLUXION_PYTHON_WITH_CUDA)
  if (c.family == array_family::cupy) {
    const auto& cupy = cupy_api(c.family);
    const int current = cupy.get_device().cast<int>();
    if (current != c.device)
      throw py::value_error(c.first().argument + " is on GPU " + std::to_string(c.device) +
                            " but CuPy's current device is " + std::to_string(current) +
                            "; call inside `with cupy.cuda.Device(" + std::to_string(c.device) + "):`");
    c.stream = reinterpret_cast<void*>(cupy.get_current_stream().attr("ptr").cast<std::uintptr_t>());
  } else if (c.family == array_family::torch) {
    py::module_ torch = py::module_::import("torch");
    c.stream = reinterpret_cast<void*>(
        torch.attr("cuda").attr("current_stream")(c.first().object.attr("device")).attr("cuda_stream").cast<std::uintptr_t>());
  } else {
    // JAX and others name no stream: wait for the inputs, use the default stream.
    for (const auto& a : c.inputs)
      if (py::hasattr(a.object, "block_until_ready")) a.object.attr("block_until_ready")();
    c.stream = nullptr;
  }
#endif
}

// The arrays' device made the CUDA runtime's current one for a launch, and
// the one before put back after it (a PyTorch tensor may live on another
// device than the current one; the package's own state is left as it was).
class device_scope {
 public:
  explicit device_scope(int device) {
#if defined(FLUXION_PYTHON_WITH_CUDA)
    if (device >= 0) previous_ = cuda_use_device(device);
#else
    (void)device;
#endif
  }
  ~device_scope() {
#if defined(FLUXION_PYTHON_WITH_CUDA)
    if (previous_ >= 0) {
      try {
        cuda_use_device(previous_);
      } catch (...) {
      }
    }
#endif
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = -1;
};

// f(T{}) for the scalar type of dtype code 'f' (float32) or 'd' (float64).
template <class F>
py::object for_dtype(char dtype, F&& f) {
  if (dtype == 'f') return f(float{});
  return f(double{});
}

inline py::object simple_namespace(py::dict fields) {
  return py::module_::import("types").attr("SimpleNamespace")(**fields);
}

}  // namespace detail

// The Python calls of module Spec for scalar T on both devices.
template <class Spec>
class bound_model {
  template <class T>
  using M = typename Spec::template compiled<T>;
  using Md = M<double>;

 public:
  static constexpr std::size_t n_states = Md::n_states, n_params = Md::n_params, n_observables = Md::n_observables;

  template <class T>
  static const evaluator_entries<T>& evaluators(bool device, bool jacobian) {
#if defined(FLUXION_PYTHON_WITH_CUDA)
    if (device) return jacobian ? cuda_jacobians(scalar_tag<T>{}) : cuda_evaluators(scalar_tag<T>{});
#else
    (void)device;
#endif
    return jacobian ? host_jacobians(scalar_tag<T>{}) : host_evaluators(scalar_tag<T>{});
  }
  template <class T>
  static const solver_entries<T>& solvers(bool device) {
#if defined(FLUXION_PYTHON_WITH_CUDA)
    if (device) {
      static const solver_entries<T> all{cuda_integrators(scalar_tag<T>{}).integrate,
                                         cuda_stiff_integrators(scalar_tag<T>{}).integrate_stiff,
                                         cuda_log_densities(scalar_tag<T>{}).log_density};
      return all;
    }
#else
    (void)device;
#endif
    return host_solvers(scalar_tag<T>{});
  }

  // rhs, observe, jvp_x, jvp_p and the Jacobians: `what` names the entry.
  enum class op { rhs, observe, jvp_x, jvp_p, dense, values };

  static py::object evaluate(op what, int jacobian, const py::object& t, const py::object& x, const py::object& p,
                             const py::object& v, const py::object& out, const py::object& threads) {
    detail::call_arrays c;
    c.add(x, "x");
    c.add(p, "p");
    const bool with_v = what == op::jvp_x || what == op::jvp_p;
    if (with_v) c.add(v, "v");
    c.size_batch(c.inputs[0], n_states);
    c.size_batch(c.inputs[1], n_params);
    if (with_v) c.size_batch(c.inputs[2], what == op::jvp_x ? n_states : n_params);
    const double tv = detail::time_value(t);
    return detail::for_dtype(c.dtype, [&](auto zero) { return run<decltype(zero)>(c, what, jacobian, tv, out, threads); });
  }

  template <class T>
  static py::object run(detail::call_arrays& c, op what, int jacobian, double t, const py::object& out,
                        const py::object& threads) {
    const bool device = c.device >= 0;
    eval_call<T> call;
    call.t = T(t);
    call.count = c.count;
    call.x = detail::input_batch<T>(c.inputs[0], n_states, c.count);
    call.p = detail::input_batch<T>(c.inputs[1], n_params, c.count);
    if (c.inputs.size() > 2)
      call.v = detail::input_batch<T>(c.inputs[2], what == op::jvp_x ? n_states : n_params, c.count);
    std::vector<std::ptrdiff_t> inner;
    std::size_t elements = 0;
    eval_fn<T> fn = nullptr;
    const auto& table = evaluators<T>(device, what == op::dense || what == op::values);
    switch (what) {
      case op::rhs: fn = table.rhs; elements = n_states; break;
      case op::jvp_x: fn = table.jvp_x; elements = n_states; break;
      case op::jvp_p: fn = table.jvp_p; elements = n_states; break;
      case op::observe: fn = table.observe; elements = n_observables; break;
      case op::dense:
        fn = table.jacobian_dense[jacobian];
        inner = {std::ptrdiff_t(jacobian_rows(jacobian)), std::ptrdiff_t(jacobian_columns(jacobian))};
        elements = jacobian_rows(jacobian) * jacobian_columns(jacobian);
        break;
      case op::values:
        fn = table.jacobian_values[jacobian];
        call.nnz = jacobian_nnz(jacobian);
        elements = call.nnz;
        break;
    }
    if (inner.empty()) inner = {std::ptrdiff_t(elements)};
    call.threads = detail::thread_count(threads);
    detail::choose_stream(c);
    call.stream = c.stream;
    auto o = detail::make_output<T>(c, out, inner, detail::batch_fastest(c.inputs[0]));
    call.out = detail::output_batch<T>(o, c.batched, c.count, elements);
    if (device) {
      detail::device_scope on(c.device);
      fn(call);
    } else {
      py::gil_scoped_release unlocked;
      fn(call);
    }
    return out.is_none() ? as_result(c.first(), o.result()) : o.object;
  }

  static std::size_t jacobian_rows(int j) { return j < 2 ? n_states : n_observables; }
  static std::size_t jacobian_columns(int j) { return (j == 0 || j == 2) ? n_states : n_params; }
  static std::size_t jacobian_nnz(int j) {
    static const std::size_t nnz[jacobian_count] = {
        fluxion::jacobian_nnz_at_run_time<Md, jacobian_kind::x>(),
        fluxion::jacobian_nnz_at_run_time<Md, jacobian_kind::p>(),
        fluxion::jacobian_nnz_at_run_time<Md, jacobian_kind::obs_x>(),
        fluxion::jacobian_nnz_at_run_time<Md, jacobian_kind::obs_p>()};
    return nnz[j];
  }
  static py::tuple jacobian_pattern(int j) {
    csr_pattern pat;
    switch (j) {
      case 0: pat = fluxion::jacobian_pattern<Md, jacobian_kind::x>(); break;
      case 1: pat = fluxion::jacobian_pattern<Md, jacobian_kind::p>(); break;
      case 2: pat = fluxion::jacobian_pattern<Md, jacobian_kind::obs_x>(); break;
      default: pat = fluxion::jacobian_pattern<Md, jacobian_kind::obs_p>(); break;
    }
    py::array_t<std::int64_t> indptr(py::ssize_t(pat.row_ptr.size())), indices(py::ssize_t(pat.col_idx.size()));
    std::copy(pat.row_ptr.begin(), pat.row_ptr.end(), indptr.mutable_data());
    std::copy(pat.col_idx.begin(), pat.col_idx.end(), indices.mutable_data());
    return py::make_tuple(indptr, indices, py::make_tuple(jacobian_rows(j), jacobian_columns(j)));
  }
};

namespace detail {

inline int jacobian_index(const std::string& name) {
  for (int j = 0; j < jacobian_count; ++j)
    if (name == jacobian_names[j]) return j;
  throw py::value_error("jacobian must be one of 'x', 'p', 'obs_x', 'obs_p', got '" + name + "'");
}

}  // namespace detail

template <class Spec>
void define_evaluators(py::module_& m) {
  using B = bound_model<Spec>;
  using op = typename B::op;
  m.def(
      "rhs",
      [](const py::object& t, const py::object& x, const py::object& p, const py::object& out, const py::object& threads) {
        return B::evaluate(op::rhs, 0, t, x, p, py::none(), out, threads);
      },
      py::arg("t"), py::arg("x"), py::arg("p"), py::kw_only(), py::arg("out") = py::none(),
      py::arg("threads") = py::none(),
      "d(state)/dt at time t for the states x, (n_states,) or (B, n_states), and parameters p, (n_params,) or "
      "(B, n_params): a new array where the inputs live (or out=).");
  m.def(
      "observe",
      [](const py::object& t, const py::object& x, const py::object& p, const py::object& out, const py::object& threads) {
        return B::evaluate(op::observe, 0, t, x, p, py::none(), out, threads);
      },
      py::arg("t"), py::arg("x"), py::arg("p"), py::kw_only(), py::arg("out") = py::none(),
      py::arg("threads") = py::none(), "The observables at time t, (B, n_observables) or (n_observables,).");
  m.def(
      "jvp_x",
      [](const py::object& t, const py::object& x, const py::object& p, const py::object& v, const py::object& out,
         const py::object& threads) { return B::evaluate(op::jvp_x, 0, t, x, p, v, out, threads); },
      py::arg("t"), py::arg("x"), py::arg("p"), py::arg("v"), py::kw_only(), py::arg("out") = py::none(),
      py::arg("threads") = py::none(), "(d rhs / d state) v, v laid out like the states.");
  m.def(
      "jvp_p",
      [](const py::object& t, const py::object& x, const py::object& p, const py::object& v, const py::object& out,
         const py::object& threads) { return B::evaluate(op::jvp_p, 0, t, x, p, v, out, threads); },
      py::arg("t"), py::arg("x"), py::arg("p"), py::arg("v"), py::kw_only(), py::arg("out") = py::none(),
      py::arg("threads") = py::none(), "(d rhs / d parameters) v, v laid out like the parameters.");
  for (int j = 0; j < jacobian_count; ++j) {
    static constexpr const char* names[jacobian_count] = {"jac_x", "jac_p", "obs_jac_x", "obs_jac_p"};
    m.def(
        names[j],
        [j](const py::object& t, const py::object& x, const py::object& p, bool sparse, const py::object& out,
            const py::object& threads) {
          return B::evaluate(sparse ? op::values : op::dense, j, t, x, p, py::none(), out, threads);
        },
        py::arg("t"), py::arg("x"), py::arg("p"), py::kw_only(), py::arg("sparse") = false, py::arg("out") = py::none(),
        py::arg("threads") = py::none(),
        "The Jacobian, dense (B, rows, columns), or with sparse=True the values of its structural non-zeros "
        "(B, nnz) in the CSR order of jacobian_pattern().");
  }
  m.def(
      "jacobian_pattern", [](const std::string& which) { return B::jacobian_pattern(detail::jacobian_index(which)); },
      py::arg("jacobian") = "x",
      "The compile-time sparsity pattern of a Jacobian ('x', 'p', 'obs_x', 'obs_p') as CSR index arrays "
      "(indptr, indices, (rows, columns)): scipy.sparse.csr_matrix((values[b], indices, indptr), shape).");
}

template <class Spec>
void define_solvers(py::module_& m);
template <class Spec>
void define_layout(py::module_& m);

template <class Spec>
void define_module(py::module_& m, const char* name) {
  m.doc() = std::string("fluxion model module '") + name + "': one compiled model for NumPy and GPU arrays";
  // fluxion's refusals as ValueErrors of their own kinds; cuda_error stays a
  // RuntimeError (pybind11 translates std::runtime_error).
  py::register_local_exception<layout_error>(m, "LayoutError", PyExc_ValueError);
  py::register_local_exception<problem_error>(m, "ProblemError", PyExc_ValueError);
  py::register_local_exception<data_error>(m, "DataError", PyExc_ValueError);
  using B = bound_model<Spec>;
  m.attr("n_states") = B::n_states;
  m.attr("n_params") = B::n_params;
  m.attr("n_observables") = B::n_observables;
#if defined(FLUXION_PYTHON_WITH_CUDA)
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
  m.attr("fluxion_version") = FLUXION_VERSION_STRING;
  m.attr("binding") = "pybind11 " + std::to_string(PYBIND11_VERSION_MAJOR) + "." +
                      std::to_string(PYBIND11_VERSION_MINOR) + "." + std::to_string(PYBIND11_VERSION_PATCH);
  define_evaluators<Spec>(m);
  define_solvers<Spec>(m);
  define_layout<Spec>(m);
}

}  // namespace fluxion::python

#pragma GCC visibility pop
