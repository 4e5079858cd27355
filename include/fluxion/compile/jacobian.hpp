#pragma once
// Walking a Jacobian: for every output element (row) and every input element
// (column) whose derivative is structurally non-zero, hand the derivative
// expression to a sink, rows in flat order and, within a row, columns in flat
// order (the CSR order). The derivative of one output block with respect to
// one input block is one expression type with index deltas, whatever the
// extents; blocks whose derivative is identically zero are skipped at compile
// time. Within a row, only the columns that the derivative's deltas leave
// possible are visited (symbolic/candidates.hpp), so a banded block costs a
// few visits a row whatever its width. Sinks write dense values, CSR values,
// or record the pattern.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/config/fixed_string.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/candidates.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/structure.hpp>

namespace fluxion {

namespace detail {

// Printed names of the "with respect to" variables, by position.
inline constexpr fixed_string<2> wrt_names[] = {"j", "m", "n", "r", "u", "v", "w", "z"};

template <class Space, int Position>
using wrt_var = ivar<Space, (1 << 19) + Position, wrt_names[Position]>;

template <class Spaces, class Seq>
struct wrt_vars_of;
template <class... S, std::size_t... R>
struct wrt_vars_of<type_list<S...>, std::index_sequence<R...>> {
  using type = type_list<wrt_var<S, int(R)>...>;
};

// The input element Y[j, m, ...] differentiated with respect to.
template <class Y>
struct wrt {
  using vars = typename wrt_vars_of<typename Y::spaces, std::make_index_sequence<Y::rank>>::type;
  template <class Vars>
  struct ref_of;
  template <class... W>
  struct ref_of<type_list<W...>> {
    using type = ref<Y, W...>;
  };
  using type = typename ref_of<vars>::type;
};

// d(rhs of Eq)/d(Y[j, m, ...]).
template <class Eq, class Y>
using block_derivative = derivative_t<typename Eq::rhs, typename wrt<Y>::type>;

template <class Block, class Sym, class Vars>
struct block_offset;
template <class Block, class Sym, class... V>
struct block_offset<Block, Sym, type_list<V...>> {
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr std::size_t at(const Env& e) {
    return Block::template offset<Sym>(V::value(e)...);
  }
};

// Visits entry (row, column) where derivative D of block (equation Row, input
// Y) is structurally non-zero: sink.entry<Row, Y>(row, column, env). The
// sink is an argument, not a parameter of the visitor (nor of the row
// visitor and the walk): the classes of a walk are instantiated once and
// serve every sink, so a translation unit that counts a pattern on the host
// and evaluates the values on the device instantiates them once (with
// nvcc, the host count and the device values otherwise doubled the walk).
template <class ColBlock, std::size_t Row, class Y, class D>
struct column_visitor {
  std::size_t row;
  template <class Env, class Sink>
  FLUXION_HOST_DEVICE constexpr void operator()(const Env& e, Sink& sink) const {
    if constexpr (!always_nonzero_v<D>)
      if (!structure<D>::nonzero(e)) return;
    sink.template entry<Row, Y>(row, block_offset<ColBlock, Y, typename wrt<Y>::vars>::at(e), e);
  }
};

// Calls f(env, args...) for every element of the spaces of Vars, last
// variable fastest (evaluation, Jacobian walks and constexpr pattern counts
// share it).
template <class Vars>
struct for_each_element;
template <>
struct for_each_element<type_list<>> {
  template <class Env, class F, class... A>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f, A&... a) {
    f(e, a...);
  }
};
template <class V, class... Vs>
struct for_each_element<type_list<V, Vs...>> {
  template <class Env, class F, class... A>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f, A&... a) {
    for (int i = 0; i < V::space::extent; ++i) for_each_element<type_list<Vs...>>::run(e.template bind<V>(i), f, a...);
  }
};

// One input block Y of a row and D, its derivative (structure and candidates).
template <class Y, class D>
struct column_block {
  using input = Y;
  using derivative = D;
};

// The input blocks of output block Eq whose derivative is not identically
// zero, as column_blocks (no code is instantiated for the others).
// One class a row, not one an (equation, input) pair: a class named after
// the equation, instantiated for each of the model's inputs, was a large
// share of a Jacobian's compile time with nvcc.
template <class Eq, class Ys>
struct nonzero_blocks;
template <class Eq, class... Y>
struct nonzero_blocks<Eq, type_list<Y...>> {
  using kept = kept_positions<!simplify::is_zero<block_derivative<Eq, Y>>...>;
  using type = typename select_positions<type_list<column_block<Y, block_derivative<Eq, Y>>...>, kept,
                                         std::make_index_sequence<kept::count>>::type;
};

// Visits one row (an element of output block Sym[Vars...], equation Row of
// the walk) and, in it, the columns of each non-zero input block.
// Parameterized by what it needs only (the row's symbol and variables, the
// blocks), so that its functions' names stay short.
template <class RowBlock, class ColBlock, std::size_t Row, class Sym, class Vars, class Blocks>
struct row_visitor;
template <class RowBlock, class ColBlock, std::size_t Row, class Sym, class Vars, class... B>
struct row_visitor<RowBlock, ColBlock, Row, Sym, Vars, type_list<B...>> {
  // Every row of the block.
  template <class Sink>
  FLUXION_HOST_DEVICE static constexpr void run(Sink& s) {
    if constexpr (sizeof...(B) > 0) for_each_element<Vars>::run(env<>{}, row_visitor{}, s);
  }
  template <class Env, class Sink>
  FLUXION_HOST_DEVICE constexpr void operator()(const Env& e, Sink& sink) const {
    const std::size_t row = block_offset<RowBlock, Sym, Vars>::at(e);
    sink.begin_row(row);
    (for_each_candidate<typename B::derivative, typename wrt<typename B::input>::vars>::run(
         e, column_visitor<ColBlock, Row, typename B::input, typename B::derivative>{row}, sink),
     ...);
  }
};

// Visits the structurally non-zero entries of d(rows)/d(columns) in CSR order.
// Rows of an output block with no non-zero input block are skipped (sinks
// see no begin_row for them; the pattern sink fills them in at the next row).
// Sinks that evaluate entries take a Values policy whose value<Row, Y> is
// the expression of block (equation Row, input Y): the block derivative or
// an equal one that reads precomputed scratch (compiled.hpp, plan.hpp).
template <class RowBlock, class ColBlock, class Eqs, class Ys, class Seq = std::make_index_sequence<Eqs::size>>
struct jacobian_walk;
template <class RowBlock, class ColBlock, class... Eq, class Ys, std::size_t... Row>
struct jacobian_walk<RowBlock, ColBlock, type_list<Eq...>, Ys, std::index_sequence<Row...>> {
  template <class Sink>
  FLUXION_HOST_DEVICE static constexpr void run(Sink& sink) {
    (row_visitor<RowBlock, ColBlock, Row, typename Eq::symbol, typename Eq::vars,
                 typename nonzero_blocks<Eq, Ys>::type>::run(sink),
     ...);
  }
  // Whether output block Eq depends on input block Y at all (compile time).
  template <class E, class Y>
  static constexpr bool depends = !simplify::is_zero<block_derivative<E, Y>>;
};

// --- sinks ------------------------------------------------------------------------------

// Sinks that evaluate take the Values policy whose value<Row, Y> they
// evaluate at the entries of block (Row, Y).
template <class Ctx, class Values>
struct dense_sink {
  using T = typename Ctx::scalar;
  const Ctx* ctx;
  T* out;
  std::size_t columns;
  std::ptrdiff_t stride;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <std::size_t Row, class Y, class Env>
  FLUXION_HOST_DEVICE void entry(std::size_t row, std::size_t col, const Env& e) {
    using V = typename Values::template value<Row, Y>;
    out[std::ptrdiff_t(row * columns + col) * stride] = static_cast<T>(V::eval(*ctx, e));
  }
};

// Dense values of several instances at once (Ctx::scalar is fluxion::lanes):
// entry (row, col) of instance w at out[(row * columns + col) * width + w].
template <class Ctx, class Values>
struct dense_lanes_sink {
  using V = typename Ctx::scalar;
  const Ctx* ctx;
  typename V::value_type* out;
  std::size_t columns;
  constexpr void begin_row(std::size_t) {}
  template <std::size_t Row, class Y, class Env>
  void entry(std::size_t row, std::size_t col, const Env& e) {
    using D = typename Values::template value<Row, Y>;
    V(D::eval(*ctx, e)).store(out + (row * columns + col) * V::width);
  }
};

template <class Ctx, class Values>
struct values_sink {
  using T = typename Ctx::scalar;
  const Ctx* ctx;
  T* out;
  std::ptrdiff_t stride;
  std::ptrdiff_t next = 0;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <std::size_t Row, class Y, class Env>
  FLUXION_HOST_DEVICE void entry(std::size_t, std::size_t, const Env& e) {
    using V = typename Values::template value<Row, Y>;
    out[next++ * stride] = static_cast<T>(V::eval(*ctx, e));
  }
};

struct count_sink {
  std::size_t nnz = 0;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <std::size_t Row, class Y, class Env>
  FLUXION_HOST_DEVICE constexpr void entry(std::size_t, std::size_t, const Env&) {
    ++nnz;
  }
};

// Records CSR: row_ptr (rows + 1 entries) and col_idx (nnz entries) into
// caller-provided storage with room for them.
template <class Index>
struct pattern_sink {
  Index* row_ptr;
  Index* col_idx;
  std::size_t rows;
  std::size_t nnz = 0;
  std::size_t next_row = 0;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t row) {
    while (next_row <= row) row_ptr[next_row++] = Index(nnz);
  }
  template <std::size_t Row, class Y, class Env>
  FLUXION_HOST_DEVICE constexpr void entry(std::size_t, std::size_t col, const Env&) {
    col_idx[nnz++] = Index(col);
  }
  FLUXION_HOST_DEVICE constexpr void finish() {
    while (next_row <= rows) row_ptr[next_row++] = Index(nnz);
  }
};

}  // namespace detail

}  // namespace fluxion
