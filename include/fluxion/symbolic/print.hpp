#pragma once
// Printing lowered expressions as readable text, for diagnostics, docs and
// tests: `to_string<E>()`. Host only.
#include <charconv>
#include <string>
#include <type_traits>

#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/lower.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

namespace detail {

inline std::string number_text(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// A variable's printed name; variables renamed to avoid capture (id raised by
// 2^20 per renaming) get one prime per renaming.
template <class V>
std::string var_text() {
  constexpr int renamings = V::id >= 0 ? V::id >> 20 : 0;
  constexpr int id = V::id >= 0 ? V::id & ((1 << 20) - 1) : V::id;
  std::string s;
  if constexpr (V::name.size() > 0) {
    s = std::string(fluxion::text<V::name>);
  } else if constexpr (id == 0) {
    s = std::string(fluxion::text<V::space::name>);
  } else if constexpr (id >= (1 << 16)) {
    s = std::string(fluxion::text<V::space::name>) + "_" + std::to_string(id - (1 << 16));
  } else {
    s = std::string(fluxion::text<V::space::name>) + std::to_string(id);
  }
  return s + std::string(std::size_t(renamings), '\'');
}

template <class I>
std::string index_text() {
  if constexpr (is_ifix<I>::value) {
    return std::to_string(I::element);
  } else if constexpr (is_ishift<I>::value) {
    return var_text<typename I::var>() + (I::offset < 0 ? "-" : "+") +
           std::to_string(I::offset < 0 ? -I::offset : I::offset);
  } else {
    return var_text<I>();
  }
}

template <class E>
struct printer;

// Text of E, parenthesized when it binds more loosely than `context`.
template <class E>
std::string text_in(int context) {
  std::string s = printer<E>::text();
  return printer<E>::prec < context ? "(" + s + ")" : s;
}

template <std::uint64_t B>
struct printer<lit_bits<B>> {
  static constexpr double V = lit_bits<B>::value;
  static constexpr int prec = V < 0 ? op::prec_unary : op::prec_atom;
  static std::string text() { return number_text(V); }
};
template <class C>
  requires requires { typename C::fluxion_named_constant; }
struct printer<C> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return std::string(fluxion::text<C::name>); }
};
template <>
struct printer<time_node> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "t"; }
};
template <class Sym, class... I>
struct printer<ref<Sym, I...>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() {
    std::string s(fluxion::text<Sym::name>);
    if constexpr (sizeof...(I) > 0) {
      s += "[";
      bool first = true;
      ((s += (first ? "" : ","), s += index_text<I>(), first = false), ...);
      s += "]";
    }
    return s;
  }
};
template <class Sym, class... I>
struct printer<ref<tangent<Sym>, I...>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "d" + printer<ref<Sym, I...>>::text(); }
};
template <class Op, class A>
struct printer<unary<Op, A>> {
  static constexpr bool prefix = std::is_same_v<Op, op::neg> || std::is_same_v<Op, op::lnot>;
  static constexpr int prec = prefix ? op::prec_unary : op::prec_atom;
  static std::string text() {
    if constexpr (prefix) {
      return std::string(Op::text) + text_in<A>(op::prec_unary + 1);
    } else {
      return std::string(Op::text) + "(" + printer<A>::text() + ")";
    }
  }
};
template <class Op, class A, class B>
struct printer<binary<Op, A, B>> {
  static constexpr int prec = Op::prec;
  static std::string text() {
    if constexpr (Op::infix) {
      // Left-associative: the right operand of - and / needs parentheses at equal precedence.
      constexpr bool strict_right = std::is_same_v<Op, op::sub> || std::is_same_v<Op, op::div>;
      return text_in<A>(Op::prec) + " " + Op::text + " " + text_in<B>(Op::prec + (strict_right ? 1 : 0));
    } else {
      return std::string(Op::text) + "(" + printer<A>::text() + ", " + printer<B>::text() + ")";
    }
  }
};
template <class A, int N>
struct printer<powi<A, N>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "pow(" + printer<A>::text() + ", " + std::to_string(N) + ")"; }
};
template <class C, class A, class B>
struct printer<where_node<C, A, B>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() {
    return "where(" + printer<C>::text() + ", " + printer<A>::text() + ", " + printer<B>::text() + ")";
  }
};
template <class Op, class V, class A>
struct printer<reduce<Op, V, A>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return std::string(Op::text) + "(" + var_text<V>() + ", " + printer<A>::text() + ")"; }
};
template <class V, class A>
struct printer<at_previous<V, A>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "at(" + var_text<V>() + "-1, " + printer<A>::text() + ")"; }
};
template <class V, class A>
struct printer<if_next<V, A>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "unless_last(" + var_text<V>() + ", " + printer<A>::text() + ")"; }
};
template <bool B>
struct printer<index_truth<B>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return B ? "true" : "false"; }
};
template <class Op, class I, class J>
struct printer<index_compare<Op, I, J>> {
  static constexpr int prec = Op::prec;
  static std::string text() { return index_text<I>() + " " + Op::text + " " + index_text<J>(); }
};
template <class S, class I>
struct printer<index_inside<S, I>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "inside(" + index_text<I>() + ")"; }
};
template <class I, class J>
struct printer<kdelta<I, J>> {
  static constexpr int prec = op::prec_atom;
  static std::string text() { return "delta(" + index_text<I>() + ", " + index_text<J>() + ")"; }
};

}  // namespace detail

// The expression type E as text, e.g. "-beta * S * I / N".
template <class E>
std::string to_string() {
  return detail::printer<E>::text();
}

// The lowered form of a value-level expression as text.
template <auto V>
std::string to_string() {
  return detail::printer<lowered<V>>::text();
}

}  // namespace fluxion
