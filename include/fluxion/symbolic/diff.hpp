#pragma once
// Exact symbolic differentiation of lowered expressions.
//
// `derivative_t<E, W>` is dE/dW where W is a reference `ref<Sym, J...>` to
// the element J... of a symbol; the J are index variables standing for "any
// element". Derivatives of indexed references are Kronecker deltas of their
// indices, so a structured Jacobian block stays a constant-size expression
// whatever the extents. Aliases are differentiated through by the chain rule.
#include <type_traits>

#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/delta_sum.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

// The tangent of a symbol: in a directional derivative (a Jacobian-vector
// product) every reference S[i...] to a selected symbol differentiates to
// the direction's element at the same place, read as tangent<S>[i...].
template <class Sym>
struct tangent {
  using fluxion_node = void;
  using base = Sym;
  using kind = typename Sym::kind;
  using spaces = typename Sym::spaces;
  static constexpr auto name = Sym::name;
  static constexpr std::size_t rank = Sym::rank;
  static constexpr std::size_t size = Sym::size;
};

// Differentiate along a direction in every symbol Sym with Selects<Sym>::value.
template <template <class> class Selects>
struct along {};

namespace detail {

template <class E, class W>
struct diff;

// Whether dE/dW can be non-zero: false only where diff<E, W> is zero for
// certain, because no node on which the rules below recurse reads W (a
// where's condition and a comparison are never differentiated). diff_t
// answers zero for those subexpressions without walking them: in a
// Jacobian most (equation, input) blocks and most subtrees of the rest are
// zero, and walking them dominated the compile time of models with many
// equations. It mirrors the rules below: a node depends on W where one of
// its operands does (node_traits' value children: none for numbers, deltas
// and index conditions); time and references are decided below, and a
// comparison is constant.
template <class W>
struct may_depend_on;
template <class E, class W>
inline constexpr bool may_depend = node_traits<E>::template fold_values<any_t, may_depend_on<W>>::value;
template <class W>
struct may_depend_on {
  template <class C>
  using fn = std::bool_constant<may_depend<C, W>>;
};

template <class E, class W>
using diff_t = typename if_t<may_depend<E, W>, diff<E, W>, type_identity<zero>>::type;

template <class... F>
struct product_of;
template <>
struct product_of<> {
  using type = one;
};
template <class F, class... Rest>
struct product_of<F, Rest...> {
  using type = simplify::mul<F, typename product_of<Rest...>::type>;
};

// Leaves: numbers, time and deltas are constant in every symbol.
template <class E, class W>
struct diff {
  using type = zero;
};

template <class Sym, class... I, class WSym, class... J>
struct diff<ref<Sym, I...>, ref<WSym, J...>> {
  static constexpr auto pick() {
    if constexpr (symbol_expansion<Sym>::is_alias) {
      using X = symbol_expansion<Sym>;
      using body_derivative = diff_t<typename X::body, ref<WSym, J...>>;
      return type_identity<read_at_t<body_derivative, typename X::vars, I...>>{};
    } else if constexpr (std::is_same_v<Sym, WSym>) {
      return type_identity<typename product_of<kdelta<I, J>...>::type>{};
    } else {
      return type_identity<zero>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// Along a direction, an alias differentiates to its own tangent, tangent<A>:
// evaluated once per element per call like the alias itself (its body is the
// body's directional derivative), so a Jacobian-vector product costs about
// what the right-hand side costs.
template <class Sym, class... I, template <class> class Selects>
struct diff<ref<Sym, I...>, along<Selects>> {
  static constexpr auto pick() {
    if constexpr (symbol_expansion<Sym>::is_alias) {
      return type_identity<ref<tangent<Sym>, I...>>{};
    } else if constexpr (Selects<Sym>::value) {
      return type_identity<ref<tangent<Sym>, I...>>{};
    } else {
      return type_identity<zero>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// Differentiation in time (the partial derivative of a right-hand side in t,
// which Rosenbrock methods need for non-autonomous models): t differentiates
// to 1, states and parameters to 0, and an alias to its own tangent along
// time, evaluated once per element per call like the alias, or to 0 where its
// body does not depend on t.
struct along_time {};

template <>
struct diff<time_node, along_time> {
  using type = one;
};
template <class Sym, class... I>
struct diff<ref<Sym, I...>, along_time> {
  static constexpr auto pick() {
    if constexpr (!symbol_expansion<Sym>::is_alias) {
      return type_identity<zero>{};
    } else if constexpr (simplify::is_zero<diff_t<typename symbol_expansion<Sym>::body, along_time>>) {
      return type_identity<zero>{};
    } else {
      return type_identity<ref<tangent<Sym>, I...>>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// may_depend of the nodes that are not decided by their operands.
template <class W>
inline constexpr bool may_depend<time_node, W> = std::is_same_v<W, along_time>;
// A reference: the symbol itself is W's, or selected along a direction; an
// alias depends on W where its body does (diff then reads the body's
// derivative, or the alias's tangent, which is zero where the body is).
template <class Sym, class W>
inline constexpr bool symbol_selected = false;  // in time: no symbol
template <class Sym, class WSym, class... J>
inline constexpr bool symbol_selected<Sym, ref<WSym, J...>> = std::is_same_v<Sym, WSym>;
template <class Sym, template <class> class Selects>
inline constexpr bool symbol_selected<Sym, along<Selects>> = bool(Selects<Sym>::value);
template <class Sym, class W>
constexpr bool ref_may_depend() {
  if constexpr (symbol_expansion<Sym>::is_alias) return may_depend<typename symbol_expansion<Sym>::body, W>;
  else return symbol_selected<Sym, W>;
}
template <class Sym, class... I, class W>
inline constexpr bool may_depend<ref<Sym, I...>, W> = ref_may_depend<Sym, W>();
template <class Op, class A, class B, class W>
  requires op::is_boolean_op<Op>
inline constexpr bool may_depend<binary<Op, A, B>, W> = false;

template <class A, class W>
struct diff<unary<op::neg, A>, W> {
  using type = simplify::neg<diff_t<A, W>>;
};
template <class A, class W>
struct diff<unary<op::exp, A>, W> {
  using type = simplify::mul<unary<op::exp, A>, diff_t<A, W>>;
};
template <class A, class W>
struct diff<unary<op::log, A>, W> {
  using type = simplify::div<diff_t<A, W>, A>;
};
template <class A, class W>
struct diff<unary<op::sqrt, A>, W> {
  using type = simplify::div<diff_t<A, W>, simplify::mul<lit<2.0>, unary<op::sqrt, A>>>;
};
template <class A, class W>
struct diff<unary<op::sin, A>, W> {
  using type = simplify::mul<unary<op::cos, A>, diff_t<A, W>>;
};
template <class A, class W>
struct diff<unary<op::cos, A>, W> {
  using type = simplify::neg<simplify::mul<unary<op::sin, A>, diff_t<A, W>>>;
};
template <class A, class W>
struct diff<unary<op::tanh, A>, W> {
  using type = simplify::mul<simplify::sub<one, simplify::make_powi<unary<op::tanh, A>, 2>>, diff_t<A, W>>;
};
template <class A, class W>
struct diff<unary<op::abs, A>, W> {
  using type = simplify::mul<simplify::make_unary<op::sign, A>, diff_t<A, W>>;
};

template <class A, class B, class W>
struct diff<binary<op::add, A, B>, W> {
  using type = simplify::add<diff_t<A, W>, diff_t<B, W>>;
};
template <class A, class B, class W>
struct diff<binary<op::sub, A, B>, W> {
  using type = simplify::sub<diff_t<A, W>, diff_t<B, W>>;
};
template <class A, class B, class W>
struct diff<binary<op::mul, A, B>, W> {
  using type = simplify::add<simplify::mul<diff_t<A, W>, B>, simplify::mul<A, diff_t<B, W>>>;
};
template <class A, class B, class W>
struct diff<binary<op::div, A, B>, W> {
  // d(a/b) = da/b - a db / b^2
  using type = simplify::sub<simplify::div<diff_t<A, W>, B>,
                             simplify::div<simplify::mul<A, diff_t<B, W>>, simplify::make_powi<B, 2>>>;
};
template <class A, class B, class W>
struct diff<binary<op::pow, A, B>, W> {
  using dA = diff_t<A, W>;
  using dB = diff_t<B, W>;
  static constexpr auto pick() {
    if constexpr (simplify::is_zero<dB>) {
      // b a^(b-1) da
      return type_identity<simplify::mul<simplify::mul<B, simplify::make_binary<op::pow, A, simplify::sub<B, one>>>, dA>>{};
    } else {
      // a^b (db log a + b da / a)
      return type_identity<simplify::mul<
          binary<op::pow, A, B>,
          simplify::add<simplify::mul<dB, unary<op::log, A>>, simplify::div<simplify::mul<B, dA>, A>>>>{};
    }
  }
  using type = typename decltype(pick())::type;
};
template <class A, class B, class W>
struct diff<binary<op::min, A, B>, W> {
  using type = simplify::make_where<binary<op::le, A, B>, diff_t<A, W>, diff_t<B, W>>;
};
template <class A, class B, class W>
struct diff<binary<op::max, A, B>, W> {
  using type = simplify::make_where<binary<op::ge, A, B>, diff_t<A, W>, diff_t<B, W>>;
};

template <class A, int N, class W>
struct diff<powi<A, N>, W> {
  using type = simplify::mul<simplify::mul<lit<double(N)>, simplify::make_powi<A, N - 1>>, diff_t<A, W>>;
};

template <class C, class A, class B, class W>
struct diff<where_node<C, A, B>, W> {
  using type = simplify::make_where<C, diff_t<A, W>, diff_t<B, W>>;
};

template <class V, class A, class W>
struct diff<reduce<op::sum, V, A>, W> {
  using type = delta_sum_t<V, diff_t<A, W>>;
};

// d prod_k a(k) = sum_j da(j) prod_k (k == j ? 1 : a(k)), exact where a(k) = 0.
template <class V, class A, class W>
struct diff<reduce<op::prod, V, A>, W> {
  using J = ivar<typename V::space, V::id + (1 << 16)>;
  using dA = diff_t<A, W>;
  using others = reduce<op::prod, V, where_node<kdelta<V, J>, one, A>>;
  using type = simplify::make_reduce<op::sum, J, simplify::mul<subst_t<dA, V, J>, others>>;
};

// d min_k a(k) = sum_k (a(k) == min and no earlier a(e) == min ? da(k) : 0):
// the derivative of the element the value takes, the first of tied ones
// (math::min folds from the first element and keeps it at ties), so that
// min_k p over copies of one p differentiates to 1, not to their count.
template <class Op, class V, class A, class W>
  requires(std::is_same_v<Op, op::minimum> || std::is_same_v<Op, op::maximum>)
struct diff<reduce<Op, V, A>, W> {
  using J = ivar<typename V::space, V::id + (1 << 16)>;
  using E = ivar<typename V::space, V::id + (3 << 16)>;
  using extremum = reduce<Op, J, subst_t<A, V, J>>;
  // 1 when no element before V attains the extremum, else 0.
  using first = simplify::make_reduce<
      op::prod, E,
      simplify::make_where<simplify::make_binary<op::land, simplify::make_index_compare<op::lt, E, V>,
                                                 binary<op::eq, subst_t<A, V, E>, extremum>>,
                           zero, one>>;
  using type = simplify::make_reduce<
      op::sum, V, simplify::make_where<binary<op::eq, A, extremum>, simplify::mul<diff_t<A, W>, first>, zero>>;
};

template <class V, class A, class W>
struct diff<at_previous<V, A>, W> {
  using type = simplify::make_at_previous<V, diff_t<A, W>>;
};
template <class V, class A, class W>
struct diff<if_next<V, A>, W> {
  using type = simplify::make_if_next<V, diff_t<A, W>>;
};

}  // namespace detail

template <class E, class W>
using derivative_t = detail::diff_t<E, W>;

// The direction of a partial derivative in time: derivative_t<E, fx::time_direction>.
using time_direction = detail::along_time;

}  // namespace fluxion
