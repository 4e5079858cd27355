// Host translation unit for bench/compile_scaling.sh: Model A's rhs and
// observe in non-inlined functions, P from -DFLUXION_P.
#include <cstddef>

#include <fluxion/fluxion.hpp>  // as a host user includes it

#include "model_a.hpp"

__attribute__((noinline)) void model_a_rhs(double t, const double* x, const double* p, double* dx) {
  bench_a::M{}.rhs(t, x, p, dx);
}
__attribute__((noinline)) void model_a_observe(double t, const double* x, const double* p, double* y) {
  bench_a::M{}.observe(t, x, p, y);
}
std::size_t model_a_sizes() { return bench_a::M::n_states + bench_a::M::n_params; }

// Derivatives (issue: exact symbolic derivatives): their compile cost must
// stay flat in P too.
__attribute__((noinline)) void model_a_jac_x_values(double t, const double* x, const double* p, double* v) {
  bench_a::M{}.jac_x_values(t, x, p, v);
}
__attribute__((noinline)) void model_a_jac_p_values(double t, const double* x, const double* p, double* v) {
  bench_a::M{}.jac_p_values(t, x, p, v);
}
__attribute__((noinline)) void model_a_jvp_x(double t, const double* x, const double* p, const double* v, double* out) {
  bench_a::M{}.jvp_x(t, x, p, v, out);
}
__attribute__((noinline)) void model_a_obs_jac_x_values(double t, const double* x, const double* p, double* v) {
  bench_a::M{}.obs_jac_x_values(t, x, p, v);
}
