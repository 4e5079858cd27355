// Reproducer for issue 14, section 3: cudafe++ (nvcc 13.0) spends time
// EXPONENTIAL in expression depth in its *back end* (`-Xcudafe --timing`
// "Back end time"), not in parsing or instantiation, as soon as any class
// template is instantiated over the subexpression types of a lowered fluxion
// expression. g++ and cudafe++'s own front end are unaffected.
//
// One state, one parameter, d(x) = chain<EDG_N>() with chain<N> = chain<N-1> * a + x
// (2N nested binary nodes). cudafe++ back-end CPU seconds, 2 busy cores:
//   N = 2: 0.45   N = 6: 0.73   N = 7: 2.1   N = 8: 7.7   N = 10: 97
// (about x1.9 per binary node). Bisected in scratch copies of the headers:
// model_traits<lowered<m>> alone costs it (-DEDG_TST=none, which names
// model_traits<...>::equations: 5.4 s back end at EDG_N = 8 under nvcc; 4.4-6 s
// in the bisection), and within model_traits the alias analysis, i.e.
// refs_of / aliases_read over the right-hand side (3.4 s with everything
// after `aliases` stripped, 0.4 s with `roots` only); a 3-line
// count<binary<Op,A,B>> recursion over the lowered right-hand side costs the
// same 3.4 s. Validation (`valid`), state_equations, and the evaluation code
// (memberless bound nodes, explicit return types: 7.7 -> 5.9 s only) are not
// the cause. Hand-written look-alikes of binary/ref (data members,
// __host__ __device__ static eval templates, fixed_string NTTPs, types built
// through NTTP values as fluxion's lower_node does) do NOT reproduce it, so
// the trigger in fluxion's lowered types is still to be found.
//
// Later finding (-DEDG_TST=conv, cudafe++ back-end CPU s, 2 busy cores): with
// lower_node<binary>::type<V> = binary<Op, lowered<V.a>, lowered<V.b>>
// instead of simplify::make_binary<...> (= decltype(binary_impl<Op, A, B>())::type,
// a deduced-return-type constexpr function per node), N = 8 falls from 4.7-6.0
// to 1.6 and N = 10 from 97 to 14: types made as decltype of deduced-return-type
// function instantiations are one trigger. Still ~1.7x per node without them;
// naming lower_node<A>::type<V.a> instead of lowered<V.a> (no decltype(V))
// changes nothing (12.6 at N = 10) and makes cudafe++ emit invalid host code
// ("'__T8' was not declared"). A fast path that makes plain nodes without
// calling binary_impl, through `typename binary_made<Op, A, B, Plain>::type`,
// does NOT help (88 s at N = 10; 107 s with only the literal tests): neither
// the rule predicates nor the constexpr function are the cost, but passing a
// member typedef (`typename X<...>::type`, or decltype(...)::type) as the
// operand of the next level. The likely mechanism: each level's operand
// carries sugar (the typedef, naming A and B) beside its canonical type
// (naming A and B again), and the back end walks both: 2^N. Next: make the
// types that flow down canonical template-ids (alias templates that name the
// node directly, as lower_node<binary> without make_binary does), e.g.
// dispatch the simplification rules to alias templates of partial
// specializations whose results are spelled as node template-ids.
//
// Not the size of the host code cudafe++ writes: with --keep, edg_chain.cudafe1.cpp is
// 4,853,330 / 4,853,738 / 4,854,146 bytes at N = 6 / 7 / 8 (about 400 bytes a node, linear)
// while the back-end time grows about x1.9 a node: the cost is in the back end's own walk
// over the types, not in what it emits.
//
// nvcc -std=c++20 -arch=sm_90 -Iinclude -DEDG_N=8 -Xcudafe --timing -c bench/compile_scaling/edg_chain.cu
#include <fluxion/fluxion.hpp>

#ifndef EDG_N
#define EDG_N 8
#endif
#define EDG_TST_none 0
#define EDG_TST_conv 1
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
using Eq = fx::detail::at_t<typename fx::model_traits<fx::lowered<m>>::equations, 0>;
using R = std::remove_cv_t<decltype(Eq::rhs)>;

template <class Op, class A, class B>
struct mnode {};
template <class E>
struct conv {
  using type = E;
};
template <class Op, class A, class B>
struct conv<fx::binary<Op, A, B>> {
  using type = mnode<Op, typename conv<A>::type, typename conv<B>::type>;
};
}  // namespace edg_chain

#if EDG_TST_ID(EDG_TST) == EDG_TST_none
int edg_chain_size() { return sizeof(edg_chain::R); }
#elif EDG_TST_ID(EDG_TST) == EDG_TST_conv
int edg_chain_size() { return sizeof(typename edg_chain::conv<edg_chain::R>::type); }
#else
__global__ void edg_chain_rhs(double t, const double* x, const double* p, double* dx, long B) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < B) edg_chain::M{}.rhs(t, x + i, B, p + i, B, dx + i, B);
}
#endif
