// Host translation unit for bench/compile_scaling.sh: Model A's rhs and
// observe in non-inlined functions, P from -DFLUXION_P.
#include <cstddef>

#include "model_a.hpp"

__attribute__((noinline)) void model_a_rhs(double t, const double* x, const double* p, double* dx) {
  bench_a::M{}.rhs(t, x, p, dx);
}
__attribute__((noinline)) void model_a_observe(double t, const double* x, const double* p, double* y) {
  bench_a::M{}.observe(t, x, p, y);
}
std::size_t model_a_sizes() { return bench_a::M::n_states + bench_a::M::n_params; }
