#pragma once
// Expression nodes. Every node is a structural aggregate, so a whole model
// can be a template argument; literals keep their value in the node until the
// model is lowered (symbolic/lower.hpp), after which every number and index is
// part of the type: members carry no information and evaluation is a static
// function of the node type alone.
//
// An evaluation context `C` provides `C::scalar`, `time()` and
// `read<Sym>(i...)`; an environment binds index variables (index.hpp).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <fluxion/config/fixed_string.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/condition.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/ops.hpp>

namespace fluxion {

template <class T>
concept expression = requires { typename std::remove_cvref_t<T>::fluxion_node; };

template <class T>
concept arithmetic = std::is_arithmetic_v<std::remove_cvref_t<T>> && !std::is_same_v<std::remove_cvref_t<T>, bool>;

// --- leaves ----------------------------------------------------------------

// A number written in an expression (`0.5 * x`), before lowering.
struct literal {
  using fluxion_node = void;
  double value;
};

// A number after lowering: the value is part of the type, as the bits of the
// double. (An integer template argument is mangled alike by every compiler;
// nvcc's host and device compilers disagree on some double arguments, which
// breaks kernels templated on a model with such literals.)
template <std::uint64_t Bits>
struct lit_bits {
  using fluxion_node = void;
  static constexpr double value = std::bit_cast<double>(Bits);
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C&, const E&) {
    return static_cast<typename C::scalar>(value);
  }
};
template <double V>
using lit = lit_bits<std::bit_cast<std::uint64_t>(V)>;

using zero = lit<0.0>;
using one = lit<1.0>;

// A named compile-time constant: `constexpr fx::constant<"N0", 1000.0> N0;`
// (the value kept as its bits, as in lit).
template <fixed_string Name, std::uint64_t Bits>
struct named_constant {
  using fluxion_node = void;
  using fluxion_named_constant = void;
  static constexpr auto name = Name;
  static constexpr double value = std::bit_cast<double>(Bits);
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C&, const E&) {
    return static_cast<typename C::scalar>(value);
  }
};
template <fixed_string Name, double V>
using constant = named_constant<Name, std::bit_cast<std::uint64_t>(V)>;

// Time, a native scalar of the evaluation's type.
struct time_node {
  using fluxion_node = void;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E&) {
    return c.time();
  }
};
inline constexpr time_node t{};

// --- operations --------------------------------------------------------------

template <class Op, class A>
struct unary {
  using fluxion_node = void;
  A a;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr auto eval(const C& c, const E& e) {
    return Op::apply(A::eval(c, e));
  }
};

namespace detail {
// A truth value as a lane mask like `like` (all lanes true or all false), for
// an index condition combined with a comparison of values in SIMD lanes.
template <class Mask>
FLUXION_HOST_DEVICE constexpr Mask broadcast_truth(bool b, const Mask&) {
  return Mask::all(b);
}
}  // namespace detail

template <class Op, class A, class B>
struct binary {
  using fluxion_node = void;
  A a;
  B b;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr auto eval(const C& c, const E& e) {
    const auto x = A::eval(c, e);
    const auto y = B::eval(c, e);
    using X = std::remove_cv_t<decltype(x)>;
    using Y = std::remove_cv_t<decltype(y)>;
    if constexpr (std::is_same_v<X, bool> && requires { typename Y::fluxion_lane_mask; }) {
      return Op::apply(detail::broadcast_truth(x, y), y);
    } else if constexpr (std::is_same_v<Y, bool> && requires { typename X::fluxion_lane_mask; }) {
      return Op::apply(x, detail::broadcast_truth(y, x));
    } else {
      using V = std::common_type_t<X, Y>;
      return Op::apply(static_cast<V>(x), static_cast<V>(y));
    }
  }
};

// pow with an integer exponent, as written (exponent not yet in the type).
template <class A>
struct pow_int_written {
  using fluxion_node = void;
  A a;
  int n;
};

// pow with an integer exponent, lowered.
template <class A, int N>
struct powi {
  using fluxion_node = void;
  A a;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr auto eval(const C& c, const E& e) {
    return math::ipow<N>(A::eval(c, e));
  }
};

// Piecewise: cond ? a : b (only the chosen branch is evaluated).
template <class Cond, class A, class B>
struct where_node {
  using fluxion_node = void;
  Cond cond;
  A a;
  B b;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    using T = typename C::scalar;
    if constexpr (requires { Cond::holds(e); }) {
      // A condition on indices alone (the derivative of a product's
      // reduction): one answer for every lane, so only its branch is evaluated.
      return Cond::holds(e) ? static_cast<T>(A::eval(c, e)) : static_cast<T>(B::eval(c, e));
    } else {
      return eval_on_values(c, e);
    }
  }

 private:
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval_on_values(const C& c, const E& e) {
    using T = typename C::scalar;
    const auto cond = Cond::eval(c, e);
    if constexpr (requires { typename decltype(cond)::fluxion_lane_mask; }) {
      // Several instances at once (host SIMD lanes): both branches, chosen lane by lane.
      return lane_select(cond, static_cast<T>(A::eval(c, e)), static_cast<T>(B::eval(c, e)));
    } else {
      return cond ? static_cast<T>(A::eval(c, e)) : static_cast<T>(B::eval(c, e));
    }
  }
};

// A reduction of A over every element of Var's space.
template <class Op, index_variable Var, class A>
struct reduce {
  using fluxion_node = void;
  A a;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    using T = typename C::scalar;
    T acc = static_cast<T>(A::eval(c, e.template bind<Var>(0)));
    for (int i = 1; i < Var::space::extent; ++i)
      acc = Op::template combine<T>(acc, static_cast<T>(A::eval(c, e.template bind<Var>(i))));
    return acc;
  }
};

// Stage transport building blocks. at_previous evaluates A one stage back
// (zero at the first stage); if_next evaluates A only where a next stage
// exists (zero at the last), so outflow from stage k is inflow to k+1.
template <index_variable Var, class A>
struct at_previous {
  using fluxion_node = void;
  A a;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    const int k = Var::value(e);
    if (k == 0) return typename C::scalar(0);
    return A::eval(c, e.template rebind<Var>(k - 1));
  }
};

template <index_variable Var, class A>
struct if_next {
  using fluxion_node = void;
  A a;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    if (Var::value(e) + 1 >= Var::space::extent) return typename C::scalar(0);
    return A::eval(c, e);
  }
};

// Kronecker delta of two index expressions: 1 where both name one element.
template <class I, class J>
struct kdelta {
  using fluxion_node = void;
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C&, const E& e) {
    return I::value(e) == J::value(e) ? typename C::scalar(1) : typename C::scalar(0);
  }
  // As a condition (fx::where's): whether the two indices are equal.
  template <class E>
  FLUXION_HOST_DEVICE static constexpr bool holds(const E& e) {
    return I::value(e) == J::value(e);
  }
};

// --- symbols and references --------------------------------------------------

template <class Sym, class... I>
struct ref;

// The offsets of a reference's indices as written (k - 1 is -1, a fixed
// element its number). Scalars, not an array: nvcc's generated host code can
// spell a template argument made of scalars but not one holding an array, and
// models, references included, are template arguments of kernels.
struct index_offsets {
  int o0 = 0, o1 = 0, o2 = 0, o3 = 0, o4 = 0, o5 = 0, o6 = 0, o7 = 0;
  constexpr index_offsets() = default;
  constexpr index_offsets(int a0, int a1 = 0, int a2 = 0, int a3 = 0, int a4 = 0, int a5 = 0, int a6 = 0, int a7 = 0)
      : o0(a0), o1(a1), o2(a2), o3(a3), o4(a4), o5(a5), o6(a6), o7(a7) {}
  constexpr int operator[](std::size_t k) const {
    const int o[] = {o0, o1, o2, o3, o4, o5, o6, o7};
    return o[k];
  }
};

namespace detail {
template <class I>
struct slot_of;
template <index_variable V>
struct slot_of<V> {
  using type = index_slot<V>;
  static constexpr int offset(V) { return 0; }
};
template <class V>
struct slot_of<shifted_ivar<V>> {
  using type = index_slot<V>;
  static constexpr int offset(shifted_ivar<V> s) { return s.offset; }
};
template <>
struct slot_of<int> {
  using type = index_slot<void>;
  static constexpr int offset(int n) { return n; }
};

// Checks, at the point of indexing, the number of indices and the space of
// each index variable against the symbol's declaration.
template <class Sym, class... I>
struct shape_check;
}  // namespace detail

// A named symbol of a given kind shaped over index spaces. Kinds (state,
// parameter, alias, observable) are defined by the model layer.
template <class Kind, fixed_string Name, class... Spaces>
struct symbol {
  using fluxion_node = void;
  using fluxion_symbol = void;
  using kind = Kind;
  using spaces = detail::type_list<Spaces...>;
  static constexpr auto name = Name;
  static constexpr std::size_t rank = sizeof...(Spaces);
  static constexpr std::size_t size = (std::size_t{1} * ... * std::size_t(Spaces::extent));
  static_assert((index_space<Spaces> && ...),
                "fluxion::symbol: a symbol is shaped by index spaces (fluxion::index<\"name\", extent>).");

  template <class... I>
  constexpr auto operator()(I... i) const {
    (void)detail::shape_check<symbol, std::remove_cvref_t<I>...>::ok;
    return ref<symbol, typename detail::slot_of<std::remove_cvref_t<I>>::type...>{
        *this, {detail::slot_of<std::remove_cvref_t<I>>::offset(i)...}};
  }
};

// A declared symbol (state, parameter, observable), as opposed to an alias.
template <class T>
concept plain_symbol = requires { typename T::fluxion_symbol; };

// A reference to one element of a symbol. Before lowering, each index is a
// slot (a variable or a fixed element) with its offset in `offsets`; after
// lowering each index is ivar, ishift or ifix and `offsets` is unused.
template <class Sym, class... I>
struct ref {
  using fluxion_node = void;
  using symbol_type = Sym;
  using indices = detail::type_list<I...>;
  static_assert(sizeof...(I) <= 8, "fluxion: a symbol is indexed by at most 8 index spaces.");
  Sym sym;
  index_offsets offsets;

  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr typename C::scalar eval(const C& c, const E& e) {
    // A shifted index outside its space reads zero (e.g. stage k - 1 at k = 0).
    if constexpr ((is_ishift<I>::value || ...)) {
      if (!(index_in_range<I>(e) && ...)) return typename C::scalar(0);
    }
    return c.template read<Sym>(I::value(e)...);
  }
};

// --- building expressions ------------------------------------------------------

namespace detail {
template <class A>
constexpr auto as_node(A a) {
  if constexpr (expression<A>) {
    return a;
  } else {
    return literal{static_cast<double>(a)};
  }
}
template <class A>
using node_t = decltype(as_node(std::declval<A>()));
}  // namespace detail

template <class A, class B>
concept operands = (expression<A> && (expression<B> || arithmetic<B>)) || (arithmetic<A> && expression<B>);

#define FLUXION_BINARY_OPERATOR(OPERATOR, TAG)                                           \
  template <class A, class B>                                                            \
    requires operands<A, B>                                                              \
  constexpr auto operator OPERATOR(A a, B b) {                                           \
    return binary<op::TAG, detail::node_t<A>, detail::node_t<B>>{detail::as_node(a),    \
                                                                  detail::as_node(b)};  \
  }
FLUXION_BINARY_OPERATOR(+, add)
FLUXION_BINARY_OPERATOR(-, sub)
FLUXION_BINARY_OPERATOR(*, mul)
FLUXION_BINARY_OPERATOR(/, div)
FLUXION_BINARY_OPERATOR(<, lt)
FLUXION_BINARY_OPERATOR(<=, le)
FLUXION_BINARY_OPERATOR(>, gt)
FLUXION_BINARY_OPERATOR(>=, ge)
FLUXION_BINARY_OPERATOR(&&, land)
FLUXION_BINARY_OPERATOR(||, lor)
#undef FLUXION_BINARY_OPERATOR

#define FLUXION_BINARY_FUNCTION(NAME, TAG)                                               \
  template <class A, class B>                                                            \
    requires operands<A, B>                                                              \
  constexpr auto NAME(A a, B b) {                                                        \
    return binary<op::TAG, detail::node_t<A>, detail::node_t<B>>{detail::as_node(a),    \
                                                                  detail::as_node(b)};  \
  }
FLUXION_BINARY_FUNCTION(equal, eq)
FLUXION_BINARY_FUNCTION(not_equal, ne)
FLUXION_BINARY_FUNCTION(min, min)
FLUXION_BINARY_FUNCTION(max, max)
#undef FLUXION_BINARY_FUNCTION

// pow(x, 2) keeps an integer exponent (repeated multiplication, exact
// derivative n x^(n-1)); pow(x, 0.5) and pow(x, y) use the real power.
template <expression A>
constexpr auto pow(A a, int n) {
  return pow_int_written<A>{a, n};
}
template <class A, class B>
  requires operands<A, B> && (!(expression<A> && std::is_integral_v<B>))
constexpr auto pow(A a, B b) {
  return binary<op::pow, detail::node_t<A>, detail::node_t<B>>{detail::as_node(a), detail::as_node(b)};
}

template <expression A>
constexpr auto operator-(A a) {
  return unary<op::neg, A>{a};
}
template <expression A>
constexpr auto operator+(A a) {
  return a;
}
template <expression A>
constexpr auto operator!(A a) {
  return unary<op::lnot, A>{a};
}

#define FLUXION_UNARY_FUNCTION(NAME)                \
  template <expression A>                           \
  constexpr auto NAME(A a) {                        \
    return unary<op::NAME, A>{a};                   \
  }
FLUXION_UNARY_FUNCTION(exp)
FLUXION_UNARY_FUNCTION(log)
FLUXION_UNARY_FUNCTION(sqrt)
FLUXION_UNARY_FUNCTION(sin)
FLUXION_UNARY_FUNCTION(cos)
FLUXION_UNARY_FUNCTION(tanh)
FLUXION_UNARY_FUNCTION(abs)
#undef FLUXION_UNARY_FUNCTION

// where(cond, a, b): a where cond holds, else b.
template <expression Cond, class A, class B>
  requires(expression<A> || arithmetic<A>) && (expression<B> || arithmetic<B>)
constexpr auto where(Cond c, A a, B b) {
  return where_node<Cond, detail::node_t<A>, detail::node_t<B>>{c, detail::as_node(a), detail::as_node(b)};
}

// Reductions over the space of an index variable.
template <index_variable V, expression A>
constexpr auto sum(V, A a) {
  return reduce<op::sum, V, A>{a};
}
template <index_variable V, expression A>
constexpr auto prod(V, A a) {
  return reduce<op::prod, V, A>{a};
}
template <index_variable V, expression A>
constexpr auto min(V, A a) {
  return reduce<op::minimum, V, A>{a};
}
template <index_variable V, expression A>
constexpr auto max(V, A a) {
  return reduce<op::maximum, V, A>{a};
}

}  // namespace fluxion

#include <fluxion/symbolic/diagnostics.hpp>

namespace fluxion::detail {

template <class I>
struct space_of_written_index {
  using type = void;  // a fixed element fits any space
};
template <index_variable V>
struct space_of_written_index<V> {
  using type = typename V::space;
};
template <class V>
struct space_of_written_index<shifted_ivar<V>> {
  using type = typename V::space;
};

// No partial specialization on the name: nvcc cannot match class-type
// template parameters in patterns, so the symbol type is taken whole.
template <class Sym, class... I>
struct shape_check {
  static constexpr auto Name = Sym::name;
  template <int Pos, class Declared, class Given>
  static constexpr bool check_one() {
    using G = typename space_of_written_index<Given>::type;
    if constexpr (!std::is_void_v<G> && !std::is_same_v<G, Declared>) {
      (void)diagnostics::index_variable_over_wrong_space<Name, Pos, Declared::name, G::name>{};
      return false;
    }
    return true;
  }
  template <class... Spaces, std::size_t... P>
  static constexpr bool check_all(type_list<Spaces...>, std::index_sequence<P...>) {
    return (check_one<int(P), at_t<type_list<Spaces...>, P>, at_t<type_list<I...>, P>>() && ...);
  }
  static constexpr bool check() {
    if constexpr (sizeof...(I) != Sym::rank) {
      (void)diagnostics::symbol_used_with_wrong_number_of_indices<Name, int(Sym::rank), int(sizeof...(I))>{};
      return false;
    } else {
      return check_all(typename Sym::spaces{}, std::make_index_sequence<sizeof...(I)>{});
    }
  }
  static constexpr bool ok = check();
};

}  // namespace fluxion::detail
