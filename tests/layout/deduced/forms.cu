// The nvcc unit of the deduced-form test (nvcc_test.cpp): the deduced forms
// as nvcc's generated host code builds them. Host code only, no kernel: it
// runs without a GPU.
#define DEDUCED_UNIT nvcc
#include "forms.hpp"
