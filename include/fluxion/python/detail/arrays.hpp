#pragma once
// Python arrays as the binding layer reads them: where they live (host or
// GPU, and which GPU), their dtype, shape and strides, whether they may be
// written, and how to make a new array of the same kind (NumPy, CuPy,
// PyTorch or JAX) on the same device. The device is decided by the arrays
// alone: a NumPy array is host memory; anything that exports
// __cuda_array_interface__ is device memory, read in place (no copy). Nothing
// else is accepted, and nothing is converted: a list, a host tensor of
// another library or a read-only output is refused with the argument's name.
//
// Binding unit only (pybind11).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <fluxion/python/entries.hpp>

// Hidden, as pybind11 is: the module's own symbols, never another module's.
#pragma GCC visibility push(hidden)

namespace fluxion::python {

namespace py = pybind11;

// Where an array's memory lives and which package made it.
enum class array_family { numpy, cupy, torch, jax, other_gpu };

inline const char* family_name(array_family f) {
  switch (f) {
    case array_family::numpy: return "NumPy array";
    case array_family::cupy: return "CuPy array";
    case array_family::torch: return "PyTorch tensor";
    case array_family::jax: return "JAX array";
    case array_family::other_gpu: return "GPU array";
  }
  return "array";
}

// One array argument, read but not copied. Strides are in elements.
struct array_ref {
  py::object object;  // keeps the memory alive for the call
  std::string argument;
  array_family family = array_family::numpy;
  int device = -1;  // the CUDA device; -1 on the host
  char dtype = 0;   // 'f' float32, 'd' float64, 0 anything else
  std::string dtype_text;
  std::uintptr_t address = 0;
  int ndim = 0;
  std::array<std::ptrdiff_t, 3> shape{};
  std::array<std::ptrdiff_t, 3> strides{};  // elements
  bool readonly = false;

  bool on_device() const { return device >= 0; }
  // Lowest and one past the highest byte the array can touch.
  std::pair<std::uintptr_t, std::uintptr_t> byte_range(std::size_t itemsize) const {
    std::intptr_t lo = 0, hi = 0;
    for (int d = 0; d < ndim; ++d) {
      if (shape[std::size_t(d)] == 0) return {address, address};
      const std::intptr_t reach = std::intptr_t(shape[std::size_t(d)] - 1) * strides[std::size_t(d)];
      (reach < 0 ? lo : hi) += reach;
    }
    return {address + std::uintptr_t(lo * std::intptr_t(itemsize)),
            address + std::uintptr_t((hi + 1) * std::intptr_t(itemsize))};
  }
};

namespace detail {

inline std::string type_text(const py::handle& o) {
  const py::handle t = py::type::handle_of(o);
  return t.attr("__module__").cast<std::string>() + "." + t.attr("__qualname__").cast<std::string>();
}

inline array_family family_of_module(const std::string& module) {
  const std::string top = module.substr(0, module.find('.'));
  if (top == "cupy") return array_family::cupy;
  if (top == "torch") return array_family::torch;
  if (top == "jax" || top == "jaxlib") return array_family::jax;
  return array_family::other_gpu;
}

inline char dtype_code(char kind, std::size_t itemsize) {
  if (kind == 'f' && itemsize == 4) return 'f';
  if (kind == 'f' && itemsize == 8) return 'd';
  return 0;
}

// The NumPy name of dtype code 'f' or 'd'.
inline const char* float_name(char code) { return code == 'f' ? "float32" : "float64"; }

// An array's dtype from a NumPy dtype (NumPy's and CuPy's arrays both give
// one): its code, its name; returns its item size.
inline std::size_t read_dtype(array_ref& a, const py::dtype& dt) {
  const std::size_t item = std::size_t(dt.itemsize());
  a.dtype = dtype_code(dt.kind(), item);
  a.dtype_text = a.dtype ? float_name(a.dtype) : py::str(dt.attr("name")).cast<std::string>();
  return item;
}

inline void set_shape_and_strides(array_ref& a, std::size_t ndim, const auto& shape_at, const auto& byte_stride_at,
                                   std::size_t itemsize) {
  if (ndim > 3)
    throw py::value_error(a.argument + " must have at most 3 dimensions, got " + std::to_string(ndim));
  a.ndim = int(ndim);
  for (std::size_t d = 0; d < ndim; ++d) {
    a.shape[d] = std::ptrdiff_t(shape_at(d));
    const std::ptrdiff_t bytes = std::ptrdiff_t(byte_stride_at(d));
    if (bytes % std::ptrdiff_t(itemsize) != 0)
      throw py::value_error(a.argument + " has a stride of " + std::to_string(bytes) +
                            " bytes in dimension " + std::to_string(d) + ", not a multiple of its " +
                            std::to_string(itemsize) + "-byte elements");
    a.strides[d] = bytes / std::ptrdiff_t(itemsize);
  }
}

// CuPy's functions that calls use, looked up once (CuPy is imported by then:
// its arrays are the call's). Kept for the process, never released: a
// static py::object would be released after the interpreter is gone.
struct cupy_functions {
  py::object empty, alloc, ndarray, asnumpy, get_device, get_current_stream;
};
inline const cupy_functions& cupy_api(array_family family) {
  static cupy_functions* f = nullptr;  // set under the GIL
  if (!f) {
    py::module_ cupy;
    try {
      cupy = py::module_::import("cupy");
    } catch (py::error_already_set&) {
      throw py::type_error(std::string("results for a ") + family_name(family) +
                           " are allocated with CuPy, which is not installed");
    }
    f = new cupy_functions{cupy.attr("empty"),
                           cupy.attr("cuda").attr("alloc"),
                           cupy.attr("ndarray"),
                           cupy.attr("asnumpy"),
                           cupy.attr("cuda").attr("runtime").attr("getDevice"),
                           cupy.attr("cuda").attr("get_current_stream")};
  }
  return *f;
}

// CuPy's ndarray type, once an array of it has been read through its
// __cuda_array_interface__ (a subclass keeps that path).
inline PyTypeObject*& cupy_ndarray_type() {
  static PyTypeObject* type = nullptr;
  return type;
}

// A CuPy ndarray read from its attributes (data.ptr, data.device.id, shape,
// strides, dtype): the same facts as its __cuda_array_interface__, which
// CuPy builds as a new dictionary at each read, for a fraction of the cost.
inline void read_cupy_attributes(const py::handle& o, array_ref& a) {
  a.family = array_family::cupy;
  const py::object data = o.attr("data");
  a.address = data.attr("ptr").cast<std::uintptr_t>();
  a.device = data.attr("device").attr("id").cast<int>();
  const std::size_t item = read_dtype(a, py::reinterpret_borrow<py::object>(o.attr("dtype")));
  const py::tuple shape = o.attr("shape"), strides = o.attr("strides");
  set_shape_and_strides(
      a, shape.size(), [&](std::size_t d) { return shape[d].cast<std::ptrdiff_t>(); },
      [&](std::size_t d) { return strides[d].cast<std::ptrdiff_t>(); }, item > 0 ? item : 1);
}

}  // namespace detail

// Reads argument `name`. GPU arrays need a module built with CUDA.
inline array_ref read_array(const py::handle& o, const std::string& name) {
  array_ref a;
  a.argument = name;
  a.object = py::reinterpret_borrow<py::object>(o);
  if (py::isinstance<py::array>(o)) {
    const auto arr = py::reinterpret_borrow<py::array>(o);
    a.family = array_family::numpy;
    const std::size_t item = detail::read_dtype(a, arr.dtype());
    a.address = reinterpret_cast<std::uintptr_t>(arr.data());
    a.readonly = !arr.writeable();
    detail::set_shape_and_strides(
        a, std::size_t(arr.ndim()),
        [&](std::size_t d) { return arr.shape(py::ssize_t(d)); }, [&](std::size_t d) { return arr.strides(py::ssize_t(d)); },
        item);
    return a;
  }
  if (Py_TYPE(o.ptr()) == detail::cupy_ndarray_type()) {
    detail::read_cupy_attributes(o, a);
    return a;
  }
  // One read of the interface (a property that may build it anew each time);
  // an object without one raises, and that is not an error here.
  PyObject* interface = PyObject_GetAttrString(o.ptr(), "__cuda_array_interface__");
  if (!interface) PyErr_Clear();
  if (interface) {
    const py::dict cai = py::reinterpret_steal<py::object>(interface);
    const py::handle type = py::type::handle_of(o);
    const std::string module = type.attr("__module__").cast<std::string>();
    a.family = detail::family_of_module(module);
    if (a.family == array_family::cupy && module == "cupy._core.core" &&
        type.attr("__qualname__").cast<std::string>() == "ndarray")
      detail::cupy_ndarray_type() = reinterpret_cast<PyTypeObject*>(type.ptr());
    const std::string typestr = cai["typestr"].cast<std::string>();
    a.dtype_text = typestr;
    const char kind = typestr.size() >= 3 ? typestr[1] : 0;
    const std::size_t item = typestr.size() >= 3 ? std::size_t(std::stoul(typestr.substr(2))) : 0;
    if (typestr.size() >= 3 && typestr[0] == '>')
      throw py::type_error(name + " is big-endian (" + typestr + "); fluxion reads native float32 or float64");
    a.dtype = detail::dtype_code(kind, item);
    if (a.dtype) a.dtype_text = detail::float_name(a.dtype);
    if (a.dtype == 0) a.dtype_text = py::str(py::module_::import("numpy").attr("dtype")(typestr).attr("name"));
    const py::tuple data = cai["data"];
    a.address = data[0].cast<std::uintptr_t>();
    a.readonly = data[1].cast<bool>();
    const py::tuple shape = cai["shape"];
    const std::size_t nd = shape.size();
    std::array<std::ptrdiff_t, 3> contiguous{};
    if (item > 0 && nd <= 3) {
      std::ptrdiff_t run = std::ptrdiff_t(item);
      for (std::size_t d = nd; d-- > 0;) {
        contiguous[d] = run;
        run *= shape[d].cast<std::ptrdiff_t>();
      }
    }
    const py::object strides = cai.contains("strides") ? py::object(cai["strides"]) : py::object(py::none());
    detail::set_shape_and_strides(
        a, nd, [&](std::size_t d) { return shape[d].cast<std::ptrdiff_t>(); },
        [&](std::size_t d) {
          return strides.is_none() ? contiguous[d] : py::tuple(strides)[d].cast<std::ptrdiff_t>();
        },
        item > 0 ? item : 1);
#if defined(FLUXION_PYTHON_WITH_CUDA)
    a.device = a.address == 0 ? -2 : cuda_device_of(reinterpret_cast<const void*>(a.address));
    if (a.device == -1)
      throw py::value_error(name + " exports __cuda_array_interface__ but its memory is not device memory");
    if (a.device == -2) a.device = 0;  // an empty array: no memory to ask about
#else
    throw py::type_error(name + " is a " + std::string(family_name(a.family)) +
                         " (GPU memory), but this module was built without CUDA; pass a NumPy array, or build "
                         "the module where nvcc is found");
#endif
    return a;
  }
  std::string hint;
  const std::string module = py::type::handle_of(o).attr("__module__").cast<std::string>();
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o) || py::isinstance<py::float_>(o) ||
      py::isinstance<py::int_>(o))
    hint = " (wrap it with numpy.asarray(..., dtype=numpy.float64) or float32)";
  else if (module.rfind("torch", 0) == 0 && py::hasattr(o, "is_cuda") && o.attr("is_cuda").cast<bool>())
    hint = " (a CUDA tensor that requires grad exports no memory: pass " + name + ".detach())";
  else if (module.rfind("torch", 0) == 0)
    hint = " (a PyTorch tensor on the CPU: pass " + name + ".numpy(), read in place)";
  else if (py::hasattr(o, "__dlpack__") || py::hasattr(o, "__array__"))
    hint = " (a host array of another library: pass numpy.asarray(...) of it; a GPU array must export "
           "__cuda_array_interface__)";
  throw py::type_error(name + " must be a NumPy array or a GPU array (CuPy, PyTorch, JAX), got " +
                       detail::type_text(o) + hint);
}

// A new uninitialized row-major array of `shape` and dtype `dtype_name`
// ("float32", "float64", "int32"), made by the package of `like` on its
// device.
inline py::object new_array(const array_ref& like, const char* dtype_name, const std::vector<py::ssize_t>& shape) {
  if (like.family == array_family::numpy) {
    const std::string_view name = dtype_name;
    if (name == "float64") return py::array_t<double>(shape);
    if (name == "float32") return py::array_t<float>(shape);
    return py::array_t<std::int32_t>(shape);
  }
  if (like.family == array_family::torch) {
    py::module_ torch = py::module_::import("torch");
    return torch.attr("empty")(py::tuple(py::cast(shape)), py::arg("dtype") = torch.attr(dtype_name),
                               py::arg("device") = like.object.attr("device"));
  }
  // CuPy arrays, and the memory of JAX and other GPU results (JAX arrays
  // are immutable: a JAX result is CuPy memory handed over by DLPack).
  // The caller has checked that CuPy's current device is the arrays'.
  return detail::cupy_api(like.family).empty(py::tuple(py::cast(shape)), py::arg("dtype") = dtype_name);
}

// Whether the results of a call on `like` are CuPy memory (CuPy, JAX and
// other GPU inputs), not NumPy arrays or PyTorch tensors.
inline bool results_from_cupy(const array_ref& like) {
  return like.family != array_family::numpy && like.family != array_family::torch;
}

// The arrays a call returns, declared (add), made at once (make) before the
// launch, and handed out (array) after it. Results made by CuPy (for CuPy,
// JAX and other GPU inputs) share one allocation, each at a 256-byte
// boundary, and their arrays are views made after the launch: before it the
// GPU waits for the Python side, and four CuPy arrays made and read there
// cost the Lorenz ensemble about 60 µs a call. NumPy and PyTorch results
// are made one by one, as new_array makes them.
class result_arrays {
 public:
  explicit result_arrays(const array_ref& like) : like_(like) {}

  // Declares a result of dtype "float32", "float64" or "int32"; its index.
  std::size_t add(const char* dtype_name, std::vector<py::ssize_t> shape) {
    piece r{.dtype = dtype_name, .shape = std::move(shape), .offset = 0, .address = 0, .made = {}};
    const std::string_view name = dtype_name;
    const std::size_t item = name == "float64" ? 8 : 4;
    std::size_t elements = 1;
    for (const py::ssize_t e : r.shape) elements *= std::size_t(e);
    r.offset = (bytes_ + alignment - 1) / alignment * alignment;
    bytes_ = r.offset + elements * item;
    pieces_.push_back(std::move(r));
    return pieces_.size() - 1;
  }

  void make() {
    if (shared_allocation()) {
      memory_ = detail::cupy_api(like_.family).alloc(bytes_ > 0 ? bytes_ : 1);
      const std::uintptr_t base = memory_.attr("ptr").cast<std::uintptr_t>();
      for (piece& r : pieces_) r.address = base + r.offset;
      return;
    }
    for (piece& r : pieces_) {
      r.made = new_array(like_, r.dtype, r.shape);
      r.address = read_array(r.made, "result").address;
    }
  }

  template <class T>
  T* data(std::size_t i) const {
    return reinterpret_cast<T*>(pieces_[i].address);
  }

  py::object array(std::size_t i) {
    piece& r = pieces_[i];
    if (!r.made) {
      const py::object at = memory_.attr("__add__")(r.offset);
      r.made = detail::cupy_api(like_.family).ndarray(py::tuple(py::cast(r.shape)), py::arg("dtype") = r.dtype,
                                              py::arg("memptr") = at);
    }
    return r.made;
  }

 private:
  static constexpr std::size_t alignment = 256;
  struct piece {
    const char* dtype;
    std::vector<py::ssize_t> shape;
    std::size_t offset = 0;
    std::uintptr_t address = 0;
    py::object made;
  };
  bool shared_allocation() const { return results_from_cupy(like_); }
  const array_ref& like_;
  std::vector<piece> pieces_;
  std::size_t bytes_ = 0;
  py::object memory_;
};

// The array with its axes permuted (a view).
inline py::object permuted(const array_ref& like, const py::object& a, const std::vector<py::ssize_t>& axes) {
  const py::tuple order = py::cast(axes);
  if (like.family == array_family::torch) return a.attr("permute")(*order);
  return a.attr("transpose")(order);
}

// A result made by new_array, handed to the caller in the kind of `like`.
// JAX takes row-major buffers through DLPack: a strided result (a batch-
// fastest layout, a view of an ensemble's buffer) is made contiguous first.
inline py::object as_result(const array_ref& like, py::object made) {
  if (like.family != array_family::jax) return made;
  made = py::module_::import("cupy").attr("ascontiguousarray")(made);
  return py::module_::import("jax").attr("dlpack").attr("from_dlpack")(made);
}

}  // namespace fluxion::python

#pragma GCC visibility pop
