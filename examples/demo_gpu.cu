// The Quick start demo built by nvcc: on the GPU when one is usable.
#include "demo.cpp"
