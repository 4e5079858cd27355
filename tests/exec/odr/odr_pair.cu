// The nvcc unit of the ODR pair (odr_pair_test.cpp): fluxion::host code as
// nvcc's host pass builds it (one instance at a time). Host code only, no
// kernel: it runs without a GPU.
#define ODR_PAIR_UNIT nvcc
#include "odr_model.hpp"
