#pragma once
// Everything the binding unit of a Python module compiles: the module's
// calls (module.hpp), its layout (module_layout.hpp) and its ensembles
// (module_solvers.hpp). Binding unit only (pybind11).
#include <pybind11/pybind11.h>

#include <fluxion/python/module.hpp>
#include <fluxion/python/module_layout.hpp>
#include <fluxion/python/module_solvers.hpp>
