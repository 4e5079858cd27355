#pragma once
// Structural non-zeros: whether a lowered expression can be non-zero at the
// element bound in an environment, judged from its structure alone (numeric
// zeros, Kronecker deltas, shifts outside their space, stage boundaries),
// never from state or parameter values. For a derivative expression this is
// the exact structural dependence of one output element on one input element.
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/node.hpp>

namespace fluxion {

template <class E>
struct structure;

// f(0) = 0 for these: zero in, zero out (structure<unary> and
// detail::always_nonzero<unary> both read this one list).
template <class Op>
inline constexpr bool keeps_zero = std::is_same_v<Op, op::neg> || std::is_same_v<Op, op::abs> ||
                                   std::is_same_v<Op, op::sign> || std::is_same_v<Op, op::sqrt> ||
                                   std::is_same_v<Op, op::sin> || std::is_same_v<Op, op::tanh>;

namespace detail {
// Whether structure<E>::nonzero is true at every element where E's own
// shifted indices lie in their spaces, judged from the type alone (false
// when unsure). Structure checks skip such subexpressions instead of
// instantiating a check for each of their nodes: the answer is the same, and
// a Jacobian's pattern code shrinks to the deltas, shifts and conditions that
// decide it.
template <class E>
struct always_nonzero : std::true_type {};  // time, named constants, conditions: as structure<E>
template <std::uint64_t B>
struct always_nonzero<lit_bits<B>> : std::bool_constant<lit_bits<B>::value != 0.0> {};
template <class I, class J>
struct always_nonzero<kdelta<I, J>> : std::false_type {};
// A read is non-zero where its shifted indices are in range (never judged
// here: a shifted read is not always non-zero); an alias read also where its
// body is, known here for scalar aliases (their body is read as it is).
template <class Sym, class... I>
struct always_nonzero<ref<Sym, I...>> : std::bool_constant<!(is_ishift<I>::value || ...)> {};
template <class Sym>
  requires symbol_expansion<Sym>::is_alias
struct always_nonzero<ref<Sym>> : always_nonzero<typename symbol_expansion<Sym>::body> {};
template <class Sym, class I, class... Is>
  requires symbol_expansion<Sym>::is_alias
struct always_nonzero<ref<Sym, I, Is...>> : std::false_type {};
template <class Op, class A>
struct always_nonzero<unary<Op, A>> : std::bool_constant<!keeps_zero<Op> || always_nonzero<A>::value> {};
template <class Op, class A, class B>
struct always_nonzero<binary<Op, A, B>>
    : std::bool_constant<std::is_same_v<Op, op::mul>   ? always_nonzero<A>::value && always_nonzero<B>::value
                         : std::is_same_v<Op, op::div> ? always_nonzero<A>::value
                         : (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
                            std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>)
                             ? always_nonzero<A>::value || always_nonzero<B>::value
                             : true> {};
template <class A, int N>
struct always_nonzero<powi<A, N>> : std::bool_constant<(N <= 0) || always_nonzero<A>::value> {};
template <class C, class A, class B>
struct always_nonzero<where_node<C, A, B>> : std::bool_constant<always_nonzero<A>::value && always_nonzero<B>::value> {};
template <class Op, class V, class A>
struct always_nonzero<reduce<Op, V, A>> : always_nonzero<A> {};
template <class V, class A>
struct always_nonzero<at_previous<V, A>> : std::false_type {};
template <class V, class A>
struct always_nonzero<if_next<V, A>> : std::false_type {};

template <class E>
concept always_nonzero_v = always_nonzero<E>::value;
}  // namespace detail

template <class E>
struct structure {
  // Time, named constants and anything not listed: may be non-zero.
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env&) {
    return true;
  }
};

template <std::uint64_t B>
struct structure<lit_bits<B>> {
  static constexpr double V = lit_bits<B>::value;
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env&) {
    return V != 0.0;
  }
};

template <class I, class J>
struct structure<kdelta<I, J>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    return I::value(e) == J::value(e);
  }
};

// A state or parameter read: non-zero where its indices lie in their spaces.
// An alias read: there, and where its body, read at those indices, is (an
// alias X(k - 1) read at k = 0 is zero, and so is every product it is a
// factor of: the pattern stays what the equations with the body written in
// place would give).
template <class Sym, class... I>
struct structure<ref<Sym, I...>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if (!(index_in_range<I>(e) && ...)) return false;
    if constexpr (symbol_expansion<Sym>::is_alias) {
      using X = symbol_expansion<Sym>;
      using B = detail::read_at_t<typename X::body, typename X::vars, I...>;
      if constexpr (detail::always_nonzero_v<B>) return true;
      else return structure<B>::nonzero(e);
    } else {
      return true;
    }
  }
};

template <class Op, class A>
struct structure<unary<Op, A>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if constexpr (keeps_zero<Op> && !detail::always_nonzero_v<A>) return structure<A>::nonzero(e);
    else return true;
  }
};

template <class Op, class A, class B>
struct structure<binary<Op, A, B>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if constexpr (std::is_same_v<Op, op::mul>) {
      if constexpr (detail::always_nonzero_v<A> && detail::always_nonzero_v<B>) return true;
      else if constexpr (detail::always_nonzero_v<A>) return structure<B>::nonzero(e);
      else if constexpr (detail::always_nonzero_v<B>) return structure<A>::nonzero(e);
      else return structure<A>::nonzero(e) && structure<B>::nonzero(e);
    } else if constexpr (std::is_same_v<Op, op::div>) {
      if constexpr (detail::always_nonzero_v<A>) return true;
      else return structure<A>::nonzero(e);
    } else if constexpr (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
                         std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) {
      if constexpr (detail::always_nonzero_v<A> || detail::always_nonzero_v<B>) return true;
      else return structure<A>::nonzero(e) || structure<B>::nonzero(e);
    } else {
      return true;
    }
  }
};

template <class A, int N>
struct structure<powi<A, N>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if constexpr (N > 0 && !detail::always_nonzero_v<A>) return structure<A>::nonzero(e);
    else return true;
  }
};

// Whether a condition holds at the element bound in an environment: 1 or 0
// where its conditions on indices decide, -1 where it reads values.
template <class C>
struct condition_truth {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int at(const Env&) {
    return -1;
  }
};
template <index_condition C>
struct condition_truth<C> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int at(const Env& e) {
    return C::holds(e) ? 1 : 0;
  }
};
template <class A, class B>
struct condition_truth<binary<op::land, A, B>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int at(const Env& e) {
    const int a = condition_truth<A>::at(e), b = condition_truth<B>::at(e);
    return (a == 0 || b == 0) ? 0 : (a == 1 && b == 1 ? 1 : -1);
  }
};
template <class A, class B>
struct condition_truth<binary<op::lor, A, B>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int at(const Env& e) {
    const int a = condition_truth<A>::at(e), b = condition_truth<B>::at(e);
    return (a == 1 || b == 1) ? 1 : (a == 0 && b == 0 ? 0 : -1);
  }
};
template <class A>
struct condition_truth<unary<op::lnot, A>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int at(const Env& e) {
    const int a = condition_truth<A>::at(e);
    return a < 0 ? -1 : 1 - a;
  }
};

// The branch a condition on indices picks is the only one that counts there;
// a condition on values may pick either.
template <class C, class A, class B>
struct structure<where_node<C, A, B>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if constexpr (detail::always_nonzero_v<A> && detail::always_nonzero_v<B>) {
      return true;
    } else {
      // As below with the branch known to be non-zero taken as true.
      const int truth = condition_truth<C>::at(e);
      if constexpr (detail::always_nonzero_v<A>) {
        return truth == 0 ? structure<B>::nonzero(e) : true;
      } else if constexpr (detail::always_nonzero_v<B>) {
        return truth == 1 ? structure<A>::nonzero(e) : true;
      } else {
        if (truth == 1) return structure<A>::nonzero(e);
        if (truth == 0) return structure<B>::nonzero(e);
        return structure<A>::nonzero(e) || structure<B>::nonzero(e);
      }
    }
  }
};

template <class Op, class V, class A>
struct structure<reduce<Op, V, A>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    constexpr bool all = std::is_same_v<Op, op::prod>;  // a product is zero when any factor is
    for (int i = 0; i < V::space::extent; ++i) {
      bool nz = true;
      if constexpr (!detail::always_nonzero_v<A>) nz = structure<A>::nonzero(e.template bind<V>(i));
      if (all && !nz) return false;
      if (!all && nz) return true;
    }
    return all;
  }
};

template <class V, class A>
struct structure<at_previous<V, A>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    const int k = V::value(e);
    if constexpr (detail::always_nonzero_v<A>) return k > 0;
    else return k > 0 && structure<A>::nonzero(e.template rebind<V>(k - 1));
  }
};

template <class V, class A>
struct structure<if_next<V, A>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr bool nonzero(const Env& e) {
    if constexpr (detail::always_nonzero_v<A>) return V::value(e) + 1 < V::space::extent;
    else return V::value(e) + 1 < V::space::extent && structure<A>::nonzero(e);
  }
};

}  // namespace fluxion
