#pragma once
// Everything the binding unit of a Python module compiles: the module's
// calls (detail/module.hpp), its layout (detail/module_layout.hpp) and its
// ensembles (detail/module_solvers.hpp). Binding unit only (pybind11).
#include <pybind11/pybind11.h>

#include <fluxion/python/detail/module.hpp>
#include <fluxion/python/detail/module_layout.hpp>
#include <fluxion/python/detail/module_solvers.hpp>
