#pragma once
// Conditions on indices: `k == 0`, `k > 0`, `i < N - 1`, `p != q`, combined
// with `&&`, `||`, `!` and used as the condition of `fx::where`. They read no
// state or parameter, so whether they hold at an element is known from the
// element alone: a term under `fx::where(k == 0, term, 0)` is evaluated only
// at stage 0, and the Jacobian pattern has no entry for it elsewhere.
//
// The same node guards an alias read at a shifted index: R(s + 3) reads zero
// where s + 3 lies outside the space, and so does its derivative
// (`index_inside<stage, ishift<s, 3>>`, printed `inside(s+3)`).
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/symbolic/diagnostics.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/ops.hpp>

namespace fluxion {

// Tag shared by the lowered conditions below: `holds(env)` says whether the
// condition holds at the element bound in the environment.
template <class T>
concept index_condition = requires { typename T::fluxion_index_condition; };

// A condition known at compile time (what a condition on two fixed elements,
// or on one variable against a bound it always meets, folds to).
template <bool B>
struct index_truth {
  using fluxion_node = void;
  using fluxion_index_condition = void;
  static constexpr bool value = B;
  template <class E>
  FLUXION_HOST_DEVICE static constexpr bool holds(const E&) {
    return B;
  }
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr bool eval(const C&, const E&) {
    return B;
  }
};

// I Op J for lowered index expressions I and J (ivar, ishift, ifix).
template <class Op, class I, class J>
struct index_compare {
  using fluxion_node = void;
  using fluxion_index_condition = void;
  template <class E>
  FLUXION_HOST_DEVICE static constexpr bool holds(const E& e) {
    return Op::apply(I::value(e), J::value(e));
  }
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr bool eval(const C&, const E& e) {
    return holds(e);
  }
};

// Whether the index expression I names an element of Space (I may become a
// fixed element by substitution, which has no space of its own).
template <class Space, class I>
struct index_inside {
  using fluxion_node = void;
  using fluxion_index_condition = void;
  template <class E>
  FLUXION_HOST_DEVICE static constexpr bool holds(const E& e) {
    const int v = I::value(e);
    return v >= 0 && v < Space::extent;
  }
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr bool eval(const C&, const E& e) {
    return holds(e);
  }
};

// --- as written ------------------------------------------------------------------------

// A comparison of two indices as written (`k - 1 >= 0`, `k == 3`): each side a
// slot (a variable, or `void` for a fixed element) and its offset.
template <class Op, class A, class B>
struct index_compare_written {
  using fluxion_node = void;
  int a_offset;
  int b_offset;
};

template <class T>
struct is_shifted_ivar : std::false_type {};
template <class V>
struct is_shifted_ivar<shifted_ivar<V>> : std::true_type {};

// What may stand on either side of an index comparison.
template <class T>
concept index_operand = index_variable<std::remove_cvref_t<T>> || is_shifted_ivar<std::remove_cvref_t<T>>::value;

namespace detail {
template <class T>
struct written_index;
template <index_variable V>
struct written_index<V> {
  using slot = index_slot<V>;
  using space = typename V::space;
  static constexpr int offset(V) { return 0; }
};
template <class V>
struct written_index<shifted_ivar<V>> {
  using slot = index_slot<V>;
  using space = typename V::space;
  static constexpr int offset(shifted_ivar<V> s) { return s.offset; }
};
template <>
struct written_index<int> {
  using slot = index_slot<void>;
  using space = void;
  static constexpr int offset(int n) { return n; }
};

template <class SpaceA, class SpaceB>
constexpr bool comparable_spaces() {
  if constexpr (std::is_void_v<SpaceA> || std::is_void_v<SpaceB> || std::is_same_v<SpaceA, SpaceB>) {
    return true;
  } else {
    (void)diagnostics::index_condition_compares_two_spaces<SpaceA::name, SpaceB::name>{};
    return false;
  }
}

template <class Op, class A, class B>
constexpr auto compare_indices(A a, B b) {
  using WA = written_index<A>;
  using WB = written_index<B>;
  static_assert(comparable_spaces<typename WA::space, typename WB::space>());
  return index_compare_written<Op, typename WA::slot, typename WB::slot>{WA::offset(a), WB::offset(b)};
}
}  // namespace detail

#define FLUXION_INDEX_COMPARISON(OPERATOR, TAG)                                            \
  template <index_operand A, index_operand B>                                              \
  constexpr auto operator OPERATOR(A a, B b) {                                             \
    return detail::compare_indices<op::TAG>(a, b);                                          \
  }                                                                                        \
  template <index_operand A>                                                               \
  constexpr auto operator OPERATOR(A a, int n) {                                           \
    return detail::compare_indices<op::TAG>(a, n);                                          \
  }                                                                                        \
  template <index_operand B>                                                               \
  constexpr auto operator OPERATOR(int n, B b) {                                           \
    return detail::compare_indices<op::TAG>(n, b);                                          \
  }
FLUXION_INDEX_COMPARISON(==, eq)
FLUXION_INDEX_COMPARISON(!=, ne)
FLUXION_INDEX_COMPARISON(<, lt)
FLUXION_INDEX_COMPARISON(<=, le)
FLUXION_INDEX_COMPARISON(>, gt)
FLUXION_INDEX_COMPARISON(>=, ge)
#undef FLUXION_INDEX_COMPARISON

}  // namespace fluxion
