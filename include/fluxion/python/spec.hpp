#pragma once
// What a Python module holds: one model, compiled for float and double,
// and optionally a likelihood and priors for log_density.
//
//   // seir_module.hpp
//   #include <fluxion/python.hpp>
//   #include "seir_model.hpp"
//   struct seir_spec : fluxion::python::module_spec<seir::model> {
//     static constexpr auto likelihood = fluxion::likelihood(seir::reported);   // optional
//     template <class T> static auto priors() { return seir::priors<T>(); }    // with a likelihood
//   };
//   FLUXION_PYTHON_MODULE(seir_py, seir_spec)
//
// The module's units (python/units/) each include this header, named by
// -DFLUXION_PYTHON_MODULE_HEADER=seir_module.hpp, and build their part of it.
#include <fluxion/compile/compiled.hpp>

namespace fluxion::python {

template <auto Model>
struct module_spec {
  template <class T>
  using compiled = fluxion::compiled<Model, T>;
};

// A spec with a likelihood offers log_density, and must then give priors<T>()
// (fluxion::priors<>{} for none; the host unit says so in one sentence when
// it is missing). Only the likelihood is looked for: the plainest
// requirement, read alike by every compiler of a module's units.
template <class Spec>
concept has_log_density = requires { Spec::likelihood; };

}  // namespace fluxion::python

// Declares the module `name` (a Python identifier, the file name of the
// extension) built from `spec`. Only the binding unit defines the Python
// module; the other units read the spec.
#define FLUXION_PYTHON_MODULE(name, spec)     \
  using fluxion_python_module_spec = spec;    \
  FLUXION_PYTHON_DETAIL_DEFINE_MODULE(name)

#if defined(FLUXION_PYTHON_BINDING_UNIT)
#  define FLUXION_PYTHON_DETAIL_DEFINE_MODULE(name)                                   \
    PYBIND11_MODULE(name, fluxion_python_module) {                                    \
      ::fluxion::python::define_module<fluxion_python_module_spec>(fluxion_python_module, #name); \
    }
#else
#  define FLUXION_PYTHON_DETAIL_DEFINE_MODULE(name) static_assert(true, "")
#endif
