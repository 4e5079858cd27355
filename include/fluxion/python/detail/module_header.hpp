// Includes the header of the module being built, named by the macro
// FLUXION_PYTHON_MODULE_HEADER (-DFLUXION_PYTHON_MODULE_HEADER=seir_module.hpp): the
// header that declares it with FLUXION_PYTHON_MODULE(name, spec). No include
// guard: each unit includes it once.
#if !defined(FLUXION_PYTHON_MODULE_HEADER)
#  error "fluxion: build a Python module's units with -DFLUXION_PYTHON_MODULE_HEADER=<the header that declares the module>"
#endif
#define FLUXION_PYTHON_DETAIL_STRING(x) #x
#define FLUXION_PYTHON_DETAIL_HEADER(x) FLUXION_PYTHON_DETAIL_STRING(x)
#include FLUXION_PYTHON_DETAIL_HEADER(FLUXION_PYTHON_MODULE_HEADER)
