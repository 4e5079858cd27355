// Reproducer for issue 14, section 3, kept as a regression check of nvcc's
// compile time against expression depth (bench/compile_scaling.sh compiles
// it at EDG_N = 4 and 16). One state, one parameter, d(x) = chain<EDG_N>()
// with chain<N> = chain<N-1> * a + x (2N nested binary nodes).
//
// The cause, found on 2026-12-04: cudafe++ (nvcc 13.0) spends time
// exponential in expression depth in its *back end* on class templates
// NESTED in a class template instantiated over a whole model (model_traits
// kept roots_aliases, rhs_of, equation_for, check_transport, ... as member
// templates, and every model_traits<lowered<m>> instantiation paid for
// them). The same templates at namespace scope cost nothing. cudafe++
// back-end CPU seconds, -DEDG_TST=none (model_traits alone), 2 cores:
//   nested members:  N = 8: 4.6   N = 9: 16-20   N = 10: 97 (x1.9 a node)
//   hoisted:         N = 9: 0.47  N = 10: 0.47   N = 16: 0.47 (rhs too)
// Bisected by cutting model_traits at each member: everything up to the
// first nested template instantiation (roots_aliases) cost 0.34 s, adding
// it 16 s; the same instantiations written at namespace scope 0.35 s.
// Earlier suspects were not the cause: lowering through make_binary /
// decltype "sugar" (a recursion over the lowered right-hand side alone is
// flat), NTTP values, and the size of the generated host code (linear).
// Keep templates that take model-sized arguments at namespace scope.
//
// nvcc -std=c++20 -arch=sm_90 -Iinclude -DEDG_N=8 -Xcudafe --timing -c bench/compile_scaling/edg_chain.cu
#include <fluxion/fluxion.hpp>

#ifndef EDG_N
#define EDG_N 8
#endif
#define EDG_TST_none 0
#define EDG_TST_rhs 2
#ifndef EDG_TST
#define EDG_TST rhs
#endif
#define EDG_TST_ID2(e) EDG_TST_##e
#define EDG_TST_ID(e) EDG_TST_ID2(e)

namespace edg_chain {
namespace fx = fluxion;
constexpr fx::state<"x"> x;
constexpr fx::param<"a"> a;
template <int K>
constexpr auto chain() {
  if constexpr (K == 0) return x;
  else return chain<K - 1>() * a + x;
}
constexpr auto m = fx::model(fx::states(x), fx::params(a), fx::d(x) = chain<EDG_N>());
using M = fx::compiled<m, double>;
#if EDG_TST_ID(EDG_TST) == EDG_TST_none
// model_traits alone; for cudafe++ --timing only: nvcc's generated host code
// for these aliases does not compile ("'__T8' was not declared").
using Eq = fx::detail::at_t<typename fx::model_traits<fx::lowered<m>>::equations, 0>;
using R = std::remove_cv_t<decltype(Eq::rhs)>;
#endif
}  // namespace edg_chain

#if EDG_TST_ID(EDG_TST) == EDG_TST_none
int edg_chain_size() { return sizeof(edg_chain::R); }
#else
__global__ void edg_chain_rhs(double t, const double* x, const double* p, double* dx, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) edg_chain::M{}.rhs(t, x + i, B, p + i, B, dx + i, B);
}
#endif
