// Model A (tests/support/model_a.hpp) as a Python module, for
// bench/python_bench.py.
#pragma once
#include <fluxion/python.hpp>

#include "support/model_a.hpp"

FLUXION_PYTHON_MODULE(model_a_py, fluxion::python::module_spec<model_a::model>);
