// A Python module's binding unit: the Python functions, argument checks and
// result arrays (pybind11), calling the tables of the other units.
#define FLUXION_PYTHON_BINDING_UNIT 1
#include <fluxion/python/binding.hpp>
#include <fluxion/python/detail/module_header.hpp>
