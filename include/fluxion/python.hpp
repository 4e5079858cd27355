#pragma once
// The one include of a Python module's header: the model language and
// FLUXION_PYTHON_MODULE(name, spec) (python/spec.hpp). docs/python.md says
// how to build the module.
#include <fluxion/core.hpp>
#include <fluxion/python/spec.hpp>
