// The SEIR example model (../seir_model.hpp) as the Python module seir_py:
// its rhs, observables, ensembles and, with the reported-cases likelihood
// and the priors, log_density with gradients. seir_example.py uses it;
// meson.build here builds it.
#pragma once
#include <fluxion/python.hpp>

#include "../seir_model.hpp"

struct seir_spec : fluxion::python::module_spec<seir::model> {
  static constexpr auto likelihood = fluxion::likelihood(seir::reported);
  template <class T>
  static auto priors() {
    return seir::priors<T>();
  }
};

FLUXION_PYTHON_MODULE(seir_py, seir_spec);
