// The host compiler's unit of the ODR pair (odr_pair_test.cpp):
// fluxion::host code as the host compiler builds it (SIMD lanes).
#define ODR_PAIR_UNIT native
#include "odr_model.hpp"
