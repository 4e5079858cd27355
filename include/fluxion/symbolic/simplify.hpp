#pragma once
// Simplifying constructors for lowered nodes: constant folding and the
// algebraic identities that keep derivatives small (0*x, 1*x, x+0, x-x, x/1,
// pow(x, 1), sums and products of constants). Every transformation of a
// lowered expression (lowering itself, differentiation, substitution) builds
// nodes through these, so identities are applied everywhere alike.
//
// Note: 0*x -> 0 is the usual symbolic convention; it differs from IEEE
// arithmetic only where x is infinite or NaN.
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/math/elementary.hpp>
#include <fluxion/symbolic/node.hpp>

namespace fluxion::simplify {

template <class T>
struct is_lit : std::false_type {};
template <std::uint64_t B>
struct is_lit<lit_bits<B>> : std::true_type {};
// Concepts rather than variable templates, as detail::contains_v.
template <class T>
concept is_lit_v = is_lit<T>::value;

// A condition on indices known at compile time (condition.hpp).
template <class T>
struct is_truth : std::false_type {};
template <bool B>
struct is_truth<index_truth<B>> : std::true_type {};

template <class T>
concept is_zero = std::is_same_v<T, zero>;
template <class T>
concept is_one = std::is_same_v<T, one>;
template <class T>
concept is_minus_one = std::is_same_v<T, lit<-1.0>>;

template <class T>
struct is_neg : std::false_type {};
template <class A>
struct is_neg<unary<op::neg, A>> : std::true_type {};

template <class T>
using id = detail::type_identity<T>;

// A folded constant; -0.0 becomes 0.0 so that every zero is `zero`.
template <double V>
using norm_lit = lit<(V == 0.0 ? 0.0 : V)>;

// A term written with a leading negative constant (-2 * x, -0.5 * x / y),
// and its negation, so that a + (-2 * x) prints and evaluates as a - 2 * x.
template <class T>
struct negative_term : std::false_type {};
template <std::uint64_t B>
  requires(lit_bits<B>::value < 0)
struct negative_term<lit_bits<B>> : std::true_type {
  using negated = lit<-lit_bits<B>::value>;
};
template <class X, class Y>
  requires negative_term<X>::value
struct negative_term<binary<op::mul, X, Y>> : std::true_type {
  using negated = detail::if_t<std::is_same_v<X, lit<-1.0>>, Y,
                               binary<op::mul, typename negative_term<X>::negated, Y>>;
};
template <class N, class D>
  requires negative_term<N>::value
struct negative_term<binary<op::div, N, D>> : std::true_type {
  using negated = binary<op::div, typename negative_term<N>::negated, D>;
};

template <class Op, class A>
constexpr auto unary_impl();
template <class Op, class A, class B>
constexpr auto binary_impl();
template <class A, int N>
constexpr auto powi_impl();

template <class Op, class A>
using make_unary = typename decltype(unary_impl<Op, A>())::type;
template <class Op, class A, class B>
using make_binary = typename decltype(binary_impl<Op, A, B>())::type;
template <class A, int N>
using make_powi = typename decltype(powi_impl<A, N>())::type;

template <class A>
using neg = make_unary<op::neg, A>;
template <class A, class B>
using add = make_binary<op::add, A, B>;
template <class A, class B>
using sub = make_binary<op::sub, A, B>;
template <class A, class B>
using mul = make_binary<op::mul, A, B>;
template <class A, class B>
using div = make_binary<op::div, A, B>;

template <class Op, class A>
constexpr auto unary_impl() {
  if constexpr (std::is_same_v<Op, op::neg>) {
    if constexpr (is_lit_v<A>) {
      return id<norm_lit<-A::value>>{};
    } else if constexpr (is_neg<A>::value) {
      return id<decltype(A::a)>{};
    } else {
      return id<unary<Op, A>>{};
    }
  } else if constexpr (std::is_same_v<Op, op::lnot> && is_truth<A>::value) {
    return id<index_truth<!A::value>>{};
  } else if constexpr (std::is_same_v<Op, op::abs> && is_lit_v<A>) {
    return id<lit<(A::value < 0 ? -A::value : A::value)>>{};
  } else if constexpr (std::is_same_v<Op, op::sign> && is_lit_v<A>) {
    return id<lit<math::sign(A::value)>>{};
  } else {
    return id<unary<Op, A>>{};
  }
}

// An integer-valued real exponent becomes an integer power (exact and with
// a small derivative).
template <double V>
inline constexpr bool is_small_integer = V == static_cast<double>(static_cast<int>(V)) && V >= -64 && V <= 64;

template <class Op, class A, class B>
constexpr auto binary_impl() {
  constexpr bool lits = is_lit_v<A> && is_lit_v<B>;
  constexpr bool logic = std::is_same_v<Op, op::land> || std::is_same_v<Op, op::lor>;
  if constexpr (logic && (is_truth<A>::value || is_truth<B>::value)) {
    // A known truth decides (false && b, true || b) or drops out (true && b).
    constexpr bool decides = std::is_same_v<Op, op::lor>;
    if constexpr (is_truth<A>::value) return id<detail::if_t<A::value == decides, A, B>>{};
    else return id<detail::if_t<B::value == decides, B, A>>{};
  } else if constexpr (std::is_same_v<Op, op::add>) {
    if constexpr (is_zero<A>) return id<B>{};
    else if constexpr (is_zero<B>) return id<A>{};
    else if constexpr (lits) return id<norm_lit<A::value + B::value>>{};
    else if constexpr (is_neg<B>::value) return id<sub<A, decltype(B::a)>>{};
    else if constexpr (is_neg<A>::value) return id<sub<B, decltype(A::a)>>{};
    else if constexpr (negative_term<B>::value) return id<sub<A, typename negative_term<B>::negated>>{};
    else return id<binary<Op, A, B>>{};
  } else if constexpr (std::is_same_v<Op, op::sub>) {
    if constexpr (is_zero<B>) return id<A>{};
    else if constexpr (is_zero<A>) return id<neg<B>>{};
    else if constexpr (detail::same_type<A, B>) return id<zero>{};
    else if constexpr (lits) return id<norm_lit<A::value - B::value>>{};
    else if constexpr (is_neg<B>::value) return id<add<A, decltype(B::a)>>{};
    else if constexpr (negative_term<B>::value) return id<add<A, typename negative_term<B>::negated>>{};
    else return id<binary<Op, A, B>>{};
  } else if constexpr (std::is_same_v<Op, op::mul>) {
    if constexpr (is_zero<A> || is_zero<B>) return id<zero>{};
    else if constexpr (is_one<A>) return id<B>{};
    else if constexpr (is_one<B>) return id<A>{};
    else if constexpr (lits) return id<norm_lit<A::value * B::value>>{};
    else if constexpr (is_minus_one<A>) return id<neg<B>>{};
    else if constexpr (is_minus_one<B>) return id<neg<A>>{};
    else if constexpr (is_neg<A>::value && is_neg<B>::value) return id<mul<decltype(A::a), decltype(B::a)>>{};
    else if constexpr (is_neg<A>::value) return id<neg<mul<decltype(A::a), B>>>{};
    else if constexpr (is_neg<B>::value) return id<neg<mul<A, decltype(B::a)>>>{};
    else if constexpr (is_lit_v<B>) return id<mul<B, A>>{};  // constants first
    else return id<binary<Op, A, B>>{};
  } else if constexpr (std::is_same_v<Op, op::div>) {
    if constexpr (is_zero<A>) return id<zero>{};
    else if constexpr (is_one<B>) return id<A>{};
    else if constexpr (detail::same_type<A, B>) return id<one>{};
    else if constexpr (lits) {
      if constexpr (B::value != 0.0) return id<norm_lit<A::value / B::value>>{};
      else return id<binary<Op, A, B>>{};
    }
    else if constexpr (is_neg<A>::value) return id<neg<div<decltype(A::a), B>>>{};
    else return id<binary<Op, A, B>>{};
  } else if constexpr (std::is_same_v<Op, op::pow>) {
    if constexpr (is_lit_v<B>) {
      if constexpr (is_small_integer<B::value>) return id<make_powi<A, static_cast<int>(B::value)>>{};
      else return id<binary<Op, A, B>>{};
    } else {
      return id<binary<Op, A, B>>{};
    }
  } else if constexpr ((std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) && detail::same_type<A, B>) {
    return id<A>{};
  } else if constexpr (std::is_same_v<Op, op::min> && lits) {
    // math::min's rule: the first operand at a tie, NaN from either.
    return id<lit<(B::value < A::value || B::value != B::value ? B::value : A::value)>>{};
  } else if constexpr (std::is_same_v<Op, op::max> && lits) {
    return id<lit<(A::value < B::value || B::value != B::value ? B::value : A::value)>>{};
  } else {
    return id<binary<Op, A, B>>{};
  }
}

template <class T>
struct is_powi : std::false_type {};
template <class A, int N>
struct is_powi<powi<A, N>> : std::true_type {
  using base = A;
  static constexpr int n = N;
};

template <class A, int N>
constexpr auto powi_impl() {
  if constexpr (N == 0) return id<one>{};
  else if constexpr (N == 1) return id<A>{};
  else if constexpr (is_lit_v<A>) {
    if constexpr (A::value == 0.0 && N < 0) return id<powi<A, N>>{};  // 1/0: left to run time
    else return id<norm_lit<math::ipow<N>(A::value)>>{};
  }
  else if constexpr (is_powi<A>::value) return id<make_powi<typename is_powi<A>::base, is_powi<A>::n * N>>{};
  else return id<powi<A, N>>{};
}

// A condition on indices known to hold (or fail) picks its branch now.
template <class Cond, class A, class B>
constexpr auto where_impl() {
  if constexpr (detail::same_type<A, B>) return id<A>{};
  else if constexpr (is_truth<Cond>::value) return id<detail::if_t<Cond::value, A, B>>{};
  else return id<where_node<Cond, A, B>>{};
}
template <class Cond, class A, class B>
using make_where = typename decltype(where_impl<Cond, A, B>())::type;

// --- conditions on indices ------------------------------------------------------------

// An index expression as a variable (void for a fixed element) plus an offset,
// and the range of values it takes while its variable runs over its space.
template <class I>
struct index_parts {  // a plain index variable
  using var = I;
  static constexpr int offset = 0;
  static constexpr int low = 0, high = I::space::extent - 1;
};
template <class V, int O>
struct index_parts<ishift<V, O>> {
  using var = V;
  static constexpr int offset = O;
  static constexpr int low = O, high = V::space::extent - 1 + O;
};
template <int N>
struct index_parts<ifix<N>> {
  using var = void;
  static constexpr int offset = N;
  static constexpr int low = N, high = N;
};

// Whether `d Op 0` holds for every d in [low, high] (1), for none (0), or
// depends on d (-1).
template <class Op>
constexpr int compare_over_range(int low, int high) {
  bool all = true, none = true;
  if constexpr (std::is_same_v<Op, op::lt>) all = high < 0, none = low >= 0;
  else if constexpr (std::is_same_v<Op, op::le>) all = high <= 0, none = low > 0;
  else if constexpr (std::is_same_v<Op, op::gt>) all = low > 0, none = high <= 0;
  else if constexpr (std::is_same_v<Op, op::ge>) all = low >= 0, none = high < 0;
  else if constexpr (std::is_same_v<Op, op::eq>) all = low == 0 && high == 0, none = low > 0 || high < 0;
  else all = low > 0 || high < 0, none = low == 0 && high == 0;  // op::ne
  return all ? 1 : (none ? 0 : -1);
}

// I Op J, folded to a truth where it holds (or fails) at every element:
// two fixed elements, one variable against itself, or a variable against a
// bound its whole space meets (k >= 0).
template <class Op, class I, class J>
constexpr auto index_compare_impl() {
  using PI = index_parts<I>;
  using PJ = index_parts<J>;
  constexpr int known = std::is_same_v<typename PI::var, typename PJ::var>
                            ? compare_over_range<Op>(PI::offset - PJ::offset, PI::offset - PJ::offset)
                            : compare_over_range<Op>(PI::low - PJ::high, PI::high - PJ::low);
  if constexpr (known >= 0) return id<index_truth<known == 1>>{};
  else return id<index_compare<Op, I, J>>{};
}
template <class Op, class I, class J>
using make_index_compare = typename decltype(index_compare_impl<Op, I, J>())::type;

// Whether I lies in Space, folded where it always or never does.
template <class Space, class I>
constexpr auto inside_impl() {
  using P = index_parts<I>;
  if constexpr (P::low >= 0 && P::high < Space::extent) return id<index_truth<true>>{};
  else if constexpr (P::high < 0 || P::low >= Space::extent) return id<index_truth<false>>{};
  else return id<index_inside<Space, I>>{};
}
template <class Space, class I>
using make_inside = typename decltype(inside_impl<Space, I>())::type;

// A where guarded by "I lies in Space": A there, zero elsewhere.
template <class Space, class I, class A>
using make_guard = make_where<make_inside<Space, I>, A, zero>;

// A delta of two index expressions known equal is 1; of two different fixed
// elements, 0.
template <class I, class J>
using make_kdelta = detail::if_t<
    detail::same_type<I, J>, one,
    detail::if_t<is_ifix<I>::value && is_ifix<J>::value, zero, kdelta<I, J>>>;

template <class Op, class V, class A>
using make_reduce = detail::if_t<std::is_same_v<Op, op::sum> && is_zero<A>, zero, reduce<Op, V, A>>;

template <class V, class A>
using make_at_previous = detail::if_t<is_zero<A>, zero, at_previous<V, A>>;
template <class V, class A>
using make_if_next = detail::if_t<is_zero<A>, zero, if_next<V, A>>;

}  // namespace fluxion::simplify
