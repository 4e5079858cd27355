#pragma once
// Sparsity of a compiled model's Jacobians: the exact structural pattern as
// CSR (row_ptr, col_idx), at run time for any model, or as constexpr arrays
// for models small enough to hold them; which input block each output block
// depends on (compile time); and derivative expressions as text.
//
//   using J = M::jacobian;
//   auto pattern = fx::jacobian_pattern<M, J::x>();           // run time, any size
//   constexpr auto small = fx::static_jacobian_pattern<M, J::x>();  // constexpr arrays
//   fx::jacobian_text<M>(S, I)   // "d(S[p,k])/d(I[j,m]) = ..."
//
// Each also takes the model as an argument, the Jacobian alone as a template
// argument: fx::jacobian_pattern<J::x>(m), fx::jacobian_text(m, S, I). Those
// are the forms for a .cu file's non-template functions, where nvcc's
// generated host code cannot spell a model type written as a template
// argument ("'__T8' was not declared"; see fluxion::jacobian_kind).
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/compile/jacobian.hpp>
#include <fluxion/symbolic/print.hpp>

namespace fluxion {

// A CSR sparsity pattern: the columns of row r are col_idx[row_ptr[r] .. row_ptr[r+1]).
struct csr_pattern {
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::vector<int> row_ptr;
  std::vector<int> col_idx;
  std::size_t nnz() const { return col_idx.size(); }
};

// The number of structurally non-zero entries of Jacobian J, walked at run
// time (no compile-time cost).
template <class M, typename M::jacobian J>
std::size_t jacobian_nnz_at_run_time() {
  detail::count_sink sink;
  M::template jacobian_shape<J>::walk::run(sink);
  return sink.nnz;
}
template <jacobian_kind J, class M>
std::size_t jacobian_nnz_at_run_time(const M&) {
  return jacobian_nnz_at_run_time<M, J>();
}

// Number of structurally non-zero entries (a constant expression; its
// evaluation walks rows x columns, so keep it to small models).
template <class M, typename M::jacobian J>
constexpr std::size_t jacobian_nnz() {
  static_assert(std::is_same_v<typename M::layout::policy, symbol_major>,
                "fluxion::jacobian_nnz: Jacobians are laid out over the symbol-major layout.");
  detail::count_sink sink;
  M::template jacobian_shape<J>::walk::run(sink);
  return sink.nnz;
}
template <jacobian_kind J, class M>
constexpr std::size_t jacobian_nnz(const M&) {
  return jacobian_nnz<M, J>();
}

// The pattern, computed at run time: compile cost independent of nnz.
template <class M, typename M::jacobian J>
csr_pattern jacobian_pattern() {
  using shape = typename M::template jacobian_shape<J>;
  static_assert(std::is_same_v<typename M::layout::policy, symbol_major>,
                "fluxion::jacobian_pattern: Jacobians are laid out over the symbol-major layout; take the pattern "
                "from the model compiled with fluxion::symbol_major.");
  csr_pattern out;
  out.rows = shape::rows;
  out.columns = shape::columns;
  out.row_ptr.assign(shape::rows + 1, 0);
  out.col_idx.assign(jacobian_nnz_at_run_time<M, J>(), 0);
  detail::pattern_sink<int> sink{out.row_ptr.data(), out.col_idx.data(), shape::rows};
  shape::walk::run(sink);
  sink.finish();
  return out;
}

// The same with the model deduced, fluxion::jacobian_pattern<M::jacobian::x>(m):
// the form that compiles in non-template functions of .cu files (see
// fluxion::jacobian_kind).
template <jacobian_kind J, class M>
csr_pattern jacobian_pattern(const M&) {
  return jacobian_pattern<M, J>();
}

template <std::size_t Rows, std::size_t Nnz>
struct static_csr_pattern {
  std::array<int, Rows + 1> row_ptr{};
  std::array<int, (Nnz > 0 ? Nnz : 1)> col_idx{};
  static constexpr std::size_t rows = Rows;
  static constexpr std::size_t nnz = Nnz;
};

// The pattern as constexpr arrays, for models small enough to hold them.
template <class M, typename M::jacobian J>
constexpr auto static_jacobian_pattern() {
  using shape = typename M::template jacobian_shape<J>;
  static_assert(shape::rows * shape::columns <= (1u << 16),
                "fluxion::static_jacobian_pattern: the Jacobian has more than 65536 entries; use "
                "fluxion::jacobian_pattern (computed at run time) for models this large.");
  constexpr std::size_t nnz = jacobian_nnz<M, J>();
  static_csr_pattern<shape::rows, nnz> out;
  detail::pattern_sink<int> sink{out.row_ptr.data(), out.col_idx.data(), shape::rows};
  shape::walk::run(sink);
  sink.finish();
  return out;
}
template <jacobian_kind J, class M>
constexpr auto static_jacobian_pattern(const M&) {
  return static_jacobian_pattern<M, J>();
}

namespace detail {
template <class Eqs, class X>
struct equation_of;
template <class X>
struct equation_of<type_list<>, X> {
  using type = void;
};
template <class E, class... Es, class X>
struct equation_of<type_list<E, Es...>, X> {
  using type = if_t<std::is_same_v<typename E::symbol, X>, E, typename equation_of<type_list<Es...>, X>::type>;
};
template <class Eq>
struct lhs_ref;
template <class Eq>
  requires requires { typename Eq::vars; }
struct lhs_ref<Eq> {
  template <class Vars>
  struct of;
  template <class... V>
  struct of<type_list<V...>> {
    using type = ref<typename Eq::symbol, V...>;
  };
  using type = typename of<typename Eq::vars>::type;
};
}  // namespace detail

template <class M, class Eqs, class X, class Y>
std::string jacobian_text_of() {
  using Eq = typename detail::equation_of<Eqs, X>::type;
  static_assert(!std::is_void_v<Eq>, "fluxion::jacobian_text: the first symbol has no equation in this model.");
  using D = detail::block_derivative<Eq, Y>;
  return "d(" + to_string<typename detail::lhs_ref<Eq>::type>() + ")/d(" + to_string<typename detail::wrt<Y>::type>() +
         ") = " + to_string<D>();
}

// d(X[vars])/d(Y[j, m, ...]) of the model's equation for X (a state or an
// observable) as text, e.g. "d(S[p,k])/d(I[j,m]) = ...". Host only.
template <class M, class X, class Y>
std::string jacobian_text(X, Y) {
  using XS = std::remove_cvref_t<X>;
  using YS = std::remove_cvref_t<Y>;
  using eqs = detail::if_t<is_state<XS>, typename M::traits::state_equations, typename M::traits::observables>;
  return jacobian_text_of<M, eqs, XS, YS>();
}
// The same with the model deduced: fx::jacobian_text(m, S, I).
template <class M, class X, class Y>
std::string jacobian_text(const M&, X x, Y y) {
  return jacobian_text<M>(x, y);
}

}  // namespace fluxion
