#pragma once
// Walking a Jacobian: for every output element (row) and every input element
// (column) whose derivative is structurally non-zero, hand the derivative
// expression to a sink, rows in flat order and, within a row, columns in flat
// order (the CSR order). The derivative of one output block with respect to
// one input block is one expression type with index deltas, whatever the
// extents; blocks whose derivative is identically zero are skipped at compile
// time. Within a row, only the columns that the derivative's deltas leave
// possible are visited (symbolic/candidates.hpp), so a banded block costs a
// few visits a row whatever its width. A Jacobian whose walk is small
// (FLUXION_UNROLL_JACOBIAN_VISITS, config/tuning.hpp) is walked at compile
// time instead: its rows and entries become constant positions and indices,
// the code a model written out state by state gives. Sinks write dense
// values, CSR values, or record the pattern.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/compile/slot.hpp>
#include <fluxion/config/fixed_string.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/config/tuning.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/candidates.hpp>
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/structure.hpp>
#include <fluxion/symbolic/traverse.hpp>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#  define FLUXION_UNROLLED_WALK_FLATTEN [[gnu::flatten]]
#else
#  define FLUXION_UNROLLED_WALK_FLATTEN
#endif

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
  // Where the element lies among the columns of Block.
  template <class Block>
  using slot = typename element_slot<vars>::template in<Block, Y>;
};

// d(rhs of Eq)/d(Y[j, m, ...]).
template <class Eq, class Y>
using block_derivative = derivative_t<typename Eq::rhs, typename wrt<Y>::type>;

// What a walk evaluates for an entry of block (Eq, Y): by default the
// derivative itself; an evaluation plan may substitute an equal expression
// that reads precomputed scratch.
struct derivative_values {
  template <class Eq, class Y>
  using value = block_derivative<Eq, Y>;
};

// Visits entry (row, column) where derivative D is structurally non-zero and
// hands the sink V, the expression to evaluate there (D or an equal one).
template <class Column, class D, class V, class Sink>
struct column_visitor {
  Sink* sink;
  std::size_t row;
  template <class Env>
  FLUXION_HOST_DEVICE constexpr void operator()(const Env& e) const {
    if constexpr (!always_nonzero_v<D>)
      if (!structure<D>::nonzero(e)) return;
    sink->template entry<V>(row, Column::offset(e), e);
  }
};

// Calls f(env) for every element of the spaces of Vars, last variable fastest
// (evaluation, Jacobian walks and constexpr pattern counts share it).
template <class Vars>
struct for_each_element;
template <>
struct for_each_element<type_list<>> {
  template <class Env, class F>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f) {
    f(e);
  }
};
template <class V, class... Vs>
struct for_each_element<type_list<V, Vs...>> {
  template <class Env, class F>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f) {
    for (int i = 0; i < V::space::extent; ++i) for_each_element<type_list<Vs...>>::run(e.template bind<V>(i), f);
  }
};

// One input block of a row: Column, the slot of its entry among the
// columns; Vars, the variables it is differentiated along; D, the
// derivative (structure and candidates); V, what is evaluated at its
// entries.
template <class Column, class Vars, class D, class V>
struct column_block {
  using column = Column;
  using vars = Vars;
  using derivative = D;
  using value = V;
};

// Input block Y (an element of layout block ColBlock) of output block Eq.
template <class Eq, class Y, class ColBlock, class Values>
using column_block_of = column_block<typename wrt<Y>::template slot<ColBlock>, typename wrt<Y>::vars,
                                     block_derivative<Eq, Y>, typename Values::template value<Eq, Y>>;

// The input blocks of output block Eq whose derivative is not identically
// zero, as column_blocks (no code is instantiated for the others).
template <class Eq, class ColBlock, class Values, class Ys>
struct nonzero_blocks;
#ifdef __CUDA_ARCH__
// In nvcc's device pass, constexpr functions read in decltype: cicc emits,
// and mangles, every class it instantiates, each of these under the whole
// equation, column block and Values, and that costs it about a tenth of a
// Jacobian unit; it emits nothing for these functions. (Host compilers
// instantiate a function far more slowly than a class: g++ takes a quarter
// longer over the vector-host Jacobian with them. Both forms give the same
// types.)
template <class Eq, class Y, class ColBlock, class Values>
constexpr auto nonzero_block_of() {
  if constexpr (simplify::is_zero<block_derivative<Eq, Y>>)
    return type_list<>{};
  else
    return type_list<column_block_of<Eq, Y, ColBlock, Values>>{};
}
template <class Eq, class ColBlock, class Values, class... Y>
struct nonzero_blocks<Eq, ColBlock, Values, type_list<Y...>> {
  using type = concat_t<decltype(nonzero_block_of<Eq, Y, ColBlock, Values>())...>;
};
#else
template <class Eq, class Y, class ColBlock, class Values, bool Zero = simplify::is_zero<block_derivative<Eq, Y>>>
struct nonzero_block {
  using type = type_list<column_block_of<Eq, Y, ColBlock, Values>>;
};
template <class Eq, class Y, class ColBlock, class Values>
struct nonzero_block<Eq, Y, ColBlock, Values, true> {
  using type = type_list<>;
};
template <class Eq, class ColBlock, class Values, class... Y>
struct nonzero_blocks<Eq, ColBlock, Values, type_list<Y...>> {
  using type = concat_t<typename nonzero_block<Eq, Y, ColBlock, Values>::type...>;
};
#endif

// An output block's walk, run at compile time (small blocks): the begin_row
// calls and entries that the run-time walk below makes, in its order, each
// as a type walk_step<Block, Row, Col, I...> (Block < 0: begin_row; else an
// entry of the Block-th non-zero input block at (Row, Col), with the row's
// and the column's variables bound to I...). Replaying the steps evaluates
// each derivative with its indices substituted at a constant position: no
// candidate search, no structure test, no environment built at run time,
// and no term that is zero there.
template <int Block, std::size_t Row, std::size_t Col, int... I>
struct walk_step {};

// What an entry of the walk evaluates at constant indices: V with Vars
// replaced by the leading elements I... (symbolic/traverse.hpp's fixed_at),
// simplified. Deltas, index conditions and stage nodes are resolved and the
// terms they make zero are gone: the expression a model written out state
// by state has there. Formed only where a sink evaluates the entry.
template <class V, class Vars, int... I>
struct at_fixed_indices {
  template <class C, class E>
  FLUXION_HOST_DEVICE static constexpr auto eval(const C& c, const E& e) {
    return fixed_at_t<V, Vars, I...>::eval(c, e);
  }
};

template <std::size_t Rank>
struct walk_event {
  int block = -1;
  std::size_t row = 0;
  std::size_t col = 0;
  int index[Rank] = {};
};

// The largest number of variables an entry of the walk binds.
FLUXION_HOST_DEVICE constexpr std::size_t larger_of(std::size_t a, std::size_t b) { return a < b ? b : a; }
template <class Vars, class... B>
FLUXION_HOST_DEVICE constexpr std::size_t walk_rank_of(type_list<B...>) {
  std::size_t r = 1;
  ((r = larger_of(r, Vars::size + B::vars::size)), ...);
  return r;
}
template <class Vars, class Blocks>
inline constexpr std::size_t walk_rank = walk_rank_of<Vars>(Blocks{});

template <class Event, std::size_t N>
struct walk_table {
  Event e[N > 0 ? N : 1];
};

// Runs the walk of an output block at compile time, counting its events
// (out null) or writing them.
template <class Row, class Vars, class Blocks>
struct walk_recorder;
template <class Row, class Vars, class... B>
struct walk_recorder<Row, Vars, type_list<B...>> {
  using blocks = type_list<B...>;
  using event = walk_event<walk_rank<Vars, blocks>>;
  struct recorder {
    event* out;
    std::size_t n;
    FLUXION_HOST_DEVICE constexpr void add(const event& e) {
      if (out) out[n] = e;
      ++n;
    }
  };
  template <class... V, class Env>
  FLUXION_HOST_DEVICE static constexpr void record_indices(type_list<V...>, const Env& e, event& ev) {
    int at = 0;
    ((ev.index[at++] = e.template get<V>()), ...);
  }
  template <int Index>
  struct column_recorder {
    using blk = at_t<blocks, std::size_t(Index)>;
    recorder* r;
    std::size_t row;
    template <class Env>
    FLUXION_HOST_DEVICE constexpr void operator()(const Env& e) const {
      using D = typename blk::derivative;
      if constexpr (!always_nonzero_v<D>)
        if (!structure<D>::nonzero(e)) return;
      event ev{};
      ev.block = Index;
      ev.row = row;
      ev.col = blk::column::offset(e);
      record_indices(concat_t<Vars, typename blk::vars>{}, e, ev);
      r->add(ev);
    }
  };
  template <class Seq>
  struct row_recorder;
  template <std::size_t... Index>
  struct row_recorder<std::index_sequence<Index...>> {
    recorder* r;
    template <class Env>
    FLUXION_HOST_DEVICE constexpr void operator()(const Env& e) const {
      const std::size_t row = Row::offset(e);
      event ev{};
      ev.row = row;
      r->add(ev);
      (for_each_candidate<typename B::derivative, typename B::vars>::run(e, column_recorder<int(Index)>{r, row}),
       ...);
    }
  };
  FLUXION_HOST_DEVICE static constexpr std::size_t count() {
    recorder r{nullptr, 0};
    for_each_element<Vars>::run(env<>{}, row_recorder<std::index_sequence_for<B...>>{&r});
    return r.n;
  }
  template <std::size_t N>
  FLUXION_HOST_DEVICE static constexpr walk_table<event, N> fill() {
    walk_table<event, N> t{};
    recorder r{t.e, 0};
    for_each_element<Vars>::run(env<>{}, row_recorder<std::index_sequence_for<B...>>{&r});
    return t;
  }
};

template <class Row, class Vars, class Blocks>
struct unrolled_rows;
template <class Row, class Vars, class... B>
struct unrolled_rows<Row, Vars, type_list<B...>> {
  using blocks = type_list<B...>;
  using recorded = walk_recorder<Row, Vars, blocks>;
  static constexpr std::size_t size = recorded::count();
  static constexpr auto table = recorded::template fill<size>();

  // The steps as types (functions read in decltype only).
  template <std::size_t K, std::size_t... R>
  static auto step(std::index_sequence<R...>)
      -> walk_step<table.e[K].block, table.e[K].row, table.e[K].col, table.e[K].index[R]...>;
  template <std::size_t... K>
  static auto steps(std::index_sequence<K...>)
      -> type_list<decltype(step<K>(std::make_index_sequence<walk_rank<Vars, blocks>>{}))...>;
  using steps_t = decltype(steps(std::make_index_sequence<size>{}));

  template <class Sink, int Block, std::size_t Rw, std::size_t Col, int... I>
  FLUXION_HOST_DEVICE static constexpr void replay(Sink& s, walk_step<Block, Rw, Col, I...>) {
    if constexpr (Block < 0) {
      s.begin_row(Rw);
    } else {
      using blk = at_t<blocks, std::size_t(Block)>;
      s.template entry<at_fixed_indices<typename blk::value, concat_t<Vars, typename blk::vars>, I...>>(Rw, Col,
                                                                                                      env<>{});
    }
  }
  // Host compilers would call a long derivative out of line with the
  // indices as run-time arguments; flattened, every entry is folded with
  // its constants (nvcc inlines FLUXION_HOST_DEVICE functions anyway).
  template <class Sink, class... S>
  FLUXION_UNROLLED_WALK_FLATTEN FLUXION_HOST_DEVICE static constexpr void replay_all(Sink& s, type_list<S...>) {
    (replay(s, S{}), ...);
  }
};

// Visits one row (element Row of an output block, over variables Vars) and,
// in it, the columns of each non-zero input block. Parameterized by slots,
// not blocks, so that its functions' names stay short.
template <class Row, class Vars, class Blocks, class Sink>
struct row_visitor;
template <class Row, class Vars, class... B, class Sink>
struct row_visitor<Row, Vars, type_list<B...>, Sink> {
  Sink* sink;
  // (row, candidate column) pairs the run-time walk of the block visits, at most.
  FLUXION_HOST_DEVICE static constexpr std::size_t visits() {
    std::size_t rows = 1;
    for_each_extent(Vars{}, rows);
    return rows * (std::size_t(0) + ... + candidate_visits<typename B::derivative, typename B::vars>::value);
  }
  template <class... V>
  FLUXION_HOST_DEVICE static constexpr void for_each_extent(type_list<V...>, std::size_t& rows) {
    ((rows *= std::size_t(V::space::extent)), ...);
  }
  // Every row of the block, unrolled at compile time (constant code
  // already where scalar rows meet scalar columns).
  FLUXION_HOST_DEVICE static constexpr void run_unrolled(Sink& s) {
    if constexpr (sizeof...(B) > 0) {
      if constexpr (Vars::size > 0 || ((B::vars::size > 0) || ...)) {
        using unrolled = unrolled_rows<Row, Vars, type_list<B...>>;
        unrolled::replay_all(s, typename unrolled::steps_t{});
      } else {
        run_walked(s);
      }
    }
  }
  // Every row walked at run time, whatever the block's size (the tests
  // compare the two walks).
  FLUXION_HOST_DEVICE static constexpr void run_walked(Sink& s) {
    if constexpr (sizeof...(B) > 0) for_each_element<Vars>::run(env<>{}, row_visitor{&s});
  }
  template <class Env>
  FLUXION_HOST_DEVICE constexpr void operator()(const Env& e) const {
    const std::size_t row = Row::offset(e);
    sink->begin_row(row);
    (for_each_candidate<typename B::derivative, typename B::vars>::run(
         e, column_visitor<typename B::column, typename B::derivative, typename B::value, Sink>{sink, row}),
     ...);
  }
};

// Visits the structurally non-zero entries of d(rows)/d(columns) in CSR order.
// Rows of an output block with no non-zero input block are skipped (sinks
// see no begin_row for them; the pattern sink fills them in at the next row).
template <class RowBlock, class ColBlock, class Eqs, class Ys, class Values = derivative_values>
struct jacobian_walk;
template <class RowBlock, class ColBlock, class... Eq, class Ys, class Values>
struct jacobian_walk<RowBlock, ColBlock, type_list<Eq...>, Ys, Values> {
  template <class Eq1, class Sink>
  using row_visitor_of =
      row_visitor<typename element_slot<typename Eq1::vars>::template in<RowBlock, typename Eq1::symbol>,
                  typename Eq1::vars, typename nonzero_blocks<Eq1, ColBlock, Values, Ys>::type, Sink>;
  // (row, candidate column) pairs the run-time walk visits, at most: a
  // Jacobian with at most FLUXION_UNROLL_JACOBIAN_VISITS of them
  // (config/tuning.hpp) is walked at compile time, every other at run time,
  // so that only small models become straight-line code.
  template <class Sink>
  FLUXION_HOST_DEVICE static constexpr std::size_t visits() {
    return (std::size_t(0) + ... + row_visitor_of<Eq, Sink>::visits());
  }
  template <class Sink>
  FLUXION_HOST_DEVICE static constexpr void run(Sink& sink) {
    if constexpr (visits<Sink>() <= std::size_t(FLUXION_UNROLL_JACOBIAN_VISITS))
      (row_visitor_of<Eq, Sink>::run_unrolled(sink), ...);
    else
      (row_visitor_of<Eq, Sink>::run_walked(sink), ...);
  }
  // The same visits with every block walked at run time (for the tests).
  template <class Sink>
  static constexpr void run_walked(Sink& sink) {
    (row_visitor_of<Eq, Sink>::run_walked(sink), ...);
  }
  // Whether output block Eq depends on input block Y at all (compile time).
  template <class E, class Y>
  static constexpr bool depends = !simplify::is_zero<block_derivative<E, Y>>;
};

// --- sinks ------------------------------------------------------------------------------

template <class Ctx>
struct dense_sink {
  using T = typename Ctx::scalar;
  const Ctx* ctx;
  T* out;
  std::size_t columns;
  std::ptrdiff_t stride;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <class D, class Env>
  FLUXION_HOST_DEVICE void entry(std::size_t row, std::size_t col, const Env& e) {
    out[std::ptrdiff_t(row * columns + col) * stride] = static_cast<T>(D::eval(*ctx, e));
  }
};

// Dense values of several instances at once (Ctx::scalar is fluxion::lanes):
// entry (row, col) of instance w at out[(row * columns + col) * width + w].
template <class Ctx>
struct dense_lanes_sink {
  using V = typename Ctx::scalar;
  const Ctx* ctx;
  typename V::value_type* out;
  std::size_t columns;
  constexpr void begin_row(std::size_t) {}
  template <class D, class Env>
  void entry(std::size_t row, std::size_t col, const Env& e) {
    V(D::eval(*ctx, e)).store(out + (row * columns + col) * V::width);
  }
};

template <class Ctx>
struct values_sink {
  using T = typename Ctx::scalar;
  const Ctx* ctx;
  T* out;
  std::ptrdiff_t stride;
  std::ptrdiff_t next = 0;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <class D, class Env>
  FLUXION_HOST_DEVICE void entry(std::size_t, std::size_t, const Env& e) {
    out[next++ * stride] = static_cast<T>(D::eval(*ctx, e));
  }
};

struct count_sink {
  std::size_t nnz = 0;
  FLUXION_HOST_DEVICE constexpr void begin_row(std::size_t) {}
  template <class D, class Env>
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
  template <class D, class Env>
  FLUXION_HOST_DEVICE constexpr void entry(std::size_t, std::size_t col, const Env&) {
    col_idx[nnz++] = Index(col);
  }
  FLUXION_HOST_DEVICE constexpr void finish() {
    while (next_row <= rows) row_ptr[next_row++] = Index(nnz);
  }
};

}  // namespace detail

}  // namespace fluxion
