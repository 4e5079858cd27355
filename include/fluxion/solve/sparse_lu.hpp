#pragma once
// LU factorization without pivoting of an N x N matrix whose structural
// pattern is known at compile time, and the solve with it: the iteration
// matrix W = diag I - J of a Rosenbrock step when the Jacobian J is sparse.
// Only the entries the pattern and its fill-in need are stored and touched.
//
// The method of KPP, the Kinetic PreProcessor (Damian, Sandu, Damian, Potra,
// Carmichael, "The kinetic preprocessor KPP - a software environment for
// solving chemical kinetics", Computers & Chemical Engineering 26 (2002)
// 1567-1579; Sandu et al., "Benchmarking stiff ODE solvers for atmospheric
// chemistry problems II: Rosenbrock solvers", Atmospheric Environment 31
// (1997) 3459-3472), all of whose symbolic part runs at compile time here:
//   - a symmetric order by minimum degree on the symmetrized pattern (greedy,
//     ties to the lowest index, the elimination graph updated as each node
//     is eliminated);
//   - the fill-in of L + U in that order, from the pattern itself (not its
//     symmetrization), so that an unsymmetric J costs no more than it needs;
//   - flat tables of the numeric operations, every position an index into
//     one array v[nnz_filled] (the filled rows in the new order, row-major).
// The numeric part expands those tables with fold expressions, so every index
// is a constant: a GPU keeps v[] in registers, as dense_lu's unrolled form
// does, and the order's permutation is folded into the solve's indices (b
// is never copied). Nothing is recognized specially: a banded or
// block-diagonal pattern simply produces no fill-in under this order.
//
// Each operation is an instruction of its own, so compile time grows with
// the work: meant for patterns whose fill-in stays small (a 64 x 64 ring of
// stages, 285 updates, compiles in seconds; a random 64 x 64 pattern of 10 %
// density, 16224 updates, in some 35 s at -O2). Dense matrices belong to
// solve/dense_lu.hpp.
//
// No pivoting: W = I / (gamma h) - J tends to diagonal dominance as h
// shrinks, so a step whose factorization meets a zero pivot is rejected and
// retried with a smaller h; factor() returns false for it (the mask of the
// lanes whose pivots are all non-zero, for T = fluxion::lanes).
//
// Conventions as solve/dense_lu.hpp: the diagonal keeps the pivots'
// reciprocals (the solves multiply by them), L has a unit diagonal, and T
// may be fluxion::lanes, one matrix per lane, each lane's results those of
// its matrix alone, bit for bit.
//
// The pattern is a constant of structural type with `static constexpr
// std::size_t rows` and std::array members row_ptr (rows + 1) and col_idx
// (CSR, columns of row r at col_idx[row_ptr[r] .. row_ptr[r + 1]), no
// duplicates), such as fluxion::static_csr_pattern. The diagonal is always
// part of W, in the pattern or not.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion::detail {

// One update of the elimination, v[target] -= v[left] * v[right]:
// a(i, j) -= l(i, k) * u(k, j).
struct sparse_lu_update {
  int target, left, right;
};
// One term of a triangular solve, b[row] -= v[position] * b[column], in the
// original numbering of b (the order's permutation is folded into the
// indices, so the solve needs no copy). In the backward solve, column == row
// marks the diagonal: b[row] *= v[position], the pivot's reciprocal.
struct sparse_lu_term {
  int row, column, position;
};
// Where a filled entry's initial value comes from: original row and column,
// the index of J's entry in the pattern's col_idx (-1: fill-in), and whether
// it is on the diagonal (where diag is added).
struct sparse_lu_source {
  int row, column, csr;
  bool diagonal;
};

// A set of indices below N, a bit each: the analysis works on rows of the
// pattern as sets, so that its cost grows as N^2 (N / 64), not N^3.
template <std::size_t N>
struct sparse_lu_set {
  static constexpr std::size_t words = (N + 63) / 64;
  std::uint64_t word[words] = {};

  constexpr bool has(int i) const { return (word[i / 64] >> (i % 64)) & 1; }
  constexpr void insert(int i) { word[i / 64] |= std::uint64_t(1) << (i % 64); }
  constexpr void erase(int i) { word[i / 64] &= ~(std::uint64_t(1) << (i % 64)); }
  constexpr void unite(const sparse_lu_set& o) {
    for (std::size_t w = 0; w < words; ++w) word[w] |= o.word[w];
  }
  constexpr int count_in(const sparse_lu_set& o) const {  // the size of the intersection
    int n = 0;
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t x = word[w] & o.word[w]; x != 0; x &= x - 1) ++n;
    return n;
  }
};

// The symbolic analysis: the order, and where each entry of the filled
// pattern (new numbering) lies in v. Built-in arrays: a constant
// evaluation's calls (std::array's operator[]) are its slowest steps.
template <std::size_t N>
struct sparse_lu_symbolic {
  bool well_formed = true;  // row_ptr ascending from 0, columns in range, no duplicates
  int order[N] = {};        // order[new] = old
  int position[N][N] = {};  // (i, j) new -> index in v, or -1
  int csr[N][N] = {};       // (i, j) new -> index of J's entry in col_idx, or -1
  std::size_t nnz_filled = 0, multipliers = 0, updates = 0;
};

template <std::size_t N, class Pattern>
constexpr sparse_lu_symbolic<N> sparse_lu_analyze(const Pattern& p) {
  constexpr int n = static_cast<int>(N);
  sparse_lu_symbolic<N> s;
  int entry[N][N] = {};  // original (r, c) -> index in col_idx, or -1
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) entry[r][c] = -1;
  if (p.row_ptr[0] != 0 || static_cast<std::size_t>(p.row_ptr[N]) > p.col_idx.size()) {
    s.well_formed = false;
    return s;
  }
  for (int r = 0; r < n; ++r) {
    if (p.row_ptr[r + 1] < p.row_ptr[r]) {
      s.well_formed = false;
      return s;
    }
    for (int e = p.row_ptr[r]; e < p.row_ptr[r + 1]; ++e) {
      const int c = p.col_idx[e];
      if (c < 0 || c >= n || entry[r][c] >= 0) {
        s.well_formed = false;
        return s;
      }
      entry[r][c] = e;
    }
  }

  // Minimum degree on the symmetrized graph (no self-edges). Eliminating a
  // node joins its remaining neighbours into a clique: the fill its row and
  // column would cause.
  sparse_lu_set<N> adjacent[N] = {}, remaining;
  for (int r = 0; r < n; ++r) {
    remaining.insert(r);
    for (int c = 0; c < n; ++c)
      if (r != c && (entry[r][c] >= 0 || entry[c][r] >= 0)) adjacent[r].insert(c);
  }
  for (int step = 0; step < n; ++step) {
    int best = -1, best_degree = n + 1;
    for (int u = 0; u < n; ++u) {
      if (!remaining.has(u)) continue;
      const int degree = adjacent[u].count_in(remaining);
      if (degree < best_degree) best = u, best_degree = degree;
    }
    s.order[step] = best;
    remaining.erase(best);
    sparse_lu_set<N> clique = adjacent[best];
    for (std::size_t w = 0; w < clique.words; ++w) clique.word[w] &= remaining.word[w];
    for (int u = 0; u < n; ++u)
      if (clique.has(u)) {
        adjacent[u].unite(clique);
        adjacent[u].erase(u);
      }
  }

  // The fill-in of the pattern itself (not its symmetrization) in the new
  // order: eliminating k makes (i, j) non-zero wherever l(i, k) and u(k, j)
  // are.
  sparse_lu_set<N> filled[N] = {};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      s.csr[i][j] = entry[s.order[i]][s.order[j]];
      if (i == j || s.csr[i][j] >= 0) filled[i].insert(j);
    }
  for (int k = 0; k < n; ++k) {
    sparse_lu_set<N> right = filled[k];  // u(k, j), j > k
    for (int j = 0; j <= k; ++j) right.erase(j);
    const std::size_t right_count = static_cast<std::size_t>(right.count_in(right));
    for (int i = k + 1; i < n; ++i)
      if (filled[i].has(k)) {
        filled[i].unite(right);
        ++s.multipliers;
        s.updates += right_count;
      }
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) s.position[i][j] = filled[i].has(j) ? static_cast<int>(s.nnz_filled++) : -1;
  return s;
}

// The numeric operations as flat tables, in the order they run. Pivot k's
// multipliers are multiplier[multiplier_begin[k] .. multiplier_begin[k + 1])
// and its updates update[update_begin[k] .. update_begin[k + 1]).
// (Built-in arrays also because device code reads them in constant
// expressions, where nvcc accepts no call to a host function's operator[].)
template <std::size_t N, std::size_t Nnz, std::size_t Multipliers, std::size_t Updates>
struct sparse_lu_tables {
  int pivot[N];  // position of (k, k)
  int multiplier_begin[N + 1];
  int multiplier[Multipliers > 0 ? Multipliers : 1];  // position of l(i, k)
  int update_begin[N + 1];
  sparse_lu_update update[Updates > 0 ? Updates : 1];
  sparse_lu_term forward[Multipliers > 0 ? Multipliers : 1];  // L's entries, by rows
  sparse_lu_term backward[Nnz - Multipliers];  // U's rows from the last, each ending at its diagonal
  sparse_lu_source source[Nnz];
};

template <std::size_t N, std::size_t Nnz, std::size_t Multipliers, std::size_t Updates>
constexpr sparse_lu_tables<N, Nnz, Multipliers, Updates> sparse_lu_tabulate(const sparse_lu_symbolic<N>& s) {
  constexpr int n = static_cast<int>(N);
  sparse_lu_tables<N, Nnz, Multipliers, Updates> t{};
  const auto& at = s.position;
  int m = 0, u = 0;
  for (int k = 0; k < n; ++k) {
    int right[N] = {}, right_count = 0;  // the positions of u(k, j), j > k
    for (int j = k + 1; j < n; ++j)
      if (at[k][j] >= 0) right[right_count++] = j;
    t.pivot[k] = at[k][k];
    t.multiplier_begin[k] = m;
    t.update_begin[k] = u;
    for (int i = k + 1; i < n; ++i) {
      if (at[i][k] < 0) continue;
      t.multiplier[m++] = at[i][k];
      for (int r = 0; r < right_count; ++r) t.update[u++] = {at[i][right[r]], at[i][k], at[k][right[r]]};
    }
  }
  t.multiplier_begin[n] = m;
  t.update_begin[n] = u;
  int f = 0, b = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < i; ++k)
      if (at[i][k] >= 0) t.forward[f++] = {s.order[i], s.order[k], at[i][k]};
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j)
      if (at[i][j] >= 0) t.backward[b++] = {s.order[i], s.order[j], at[i][j]};
    t.backward[b++] = {s.order[i], s.order[i], at[i][i]};
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (at[i][j] >= 0) t.source[at[i][j]] = {s.order[i], s.order[j], s.csr[i][j], i == j};
  return t;
}

template <class T, auto Pattern>
struct sparse_lu {
  using truth = decltype(T(0) > T(0));  // bool, or a lane mask
  static constexpr std::size_t rows = decltype(Pattern)::rows;

 private:
  static constexpr sparse_lu_symbolic<rows> symbolic = sparse_lu_analyze<rows>(Pattern);
  static_assert(symbolic.well_formed,
                "fluxion::detail::sparse_lu: the pattern is not a valid CSR pattern (row_ptr ascending from 0, "
                "columns in [0, rows), no duplicate entries in a row).");

 public:
  static constexpr std::size_t nnz_filled = symbolic.nnz_filled;  // the entries of L + U, diagonal included
  static constexpr std::size_t multipliers = symbolic.multipliers;  // L's entries below the diagonal
  static constexpr std::size_t flops = symbolic.updates;  // updates a(i, j) -= l(i, k) * u(k, j) of factor()
  static constexpr std::array<int, rows> order = [] {  // order[new] = old index
    std::array<int, rows> o{};
    for (std::size_t i = 0; i < rows; ++i) o[i] = symbolic.order[i];
    return o;
  }();
  static constexpr sparse_lu_tables<rows, nnz_filled, multipliers, flops> tables =
      sparse_lu_tabulate<rows, nnz_filled, multipliers, flops>(symbolic);

  T v[nnz_filled];

  // v := diag I - J on the filled pattern (0 at the fill-in), J's entries
  // given by entry(row, column, index in the pattern's col_idx), read at
  // the pattern's entries only.
  template <class Entry>
  FLUXION_HOST_DEVICE void assign(T diag, const Entry& entry) {
    assign(diag, entry, std::make_index_sequence<nnz_filled>{});
  }
  // The same, J dense, row-major rows x rows.
  FLUXION_HOST_DEVICE void assign_from_dense(T diag, const T* J) {
    assign(diag, [J](int r, int c, int) { return J[r * static_cast<int>(rows) + c]; },
           std::make_index_sequence<nnz_filled>{});
  }
  // The same with J's values in the pattern's CSR order (J[e] is the entry
  // of column col_idx[e]).
  FLUXION_HOST_DEVICE void assign_from_csr(T diag, const T* J) {
    assign(diag, [J](int, int, int e) { return J[e]; }, std::make_index_sequence<nnz_filled>{});
  }

  // W = L U in place. Whether every pivot is non-zero (lane by lane).
  FLUXION_HOST_DEVICE truth factor() {
    truth regular = T(0) == T(0);
    eliminate(regular, std::make_index_sequence<rows>{});
    return regular;
  }

  // b := W^-1 b, b in the original numbering: forward with the unit L,
  // backward with U (multiplying by the pivots' reciprocals).
  FLUXION_HOST_DEVICE void solve(T* b) const {
    substitute<&decltype(tables)::forward>(b, std::make_index_sequence<multipliers>{});
    substitute<&decltype(tables)::backward>(b, std::make_index_sequence<nnz_filled - multipliers>{});
  }

 private:
  template <class Entry, std::size_t... P>
  FLUXION_HOST_DEVICE void assign([[maybe_unused]] T diag, [[maybe_unused]] const Entry& entry, std::index_sequence<P...>) {
    (assign_at<P>(diag, entry), ...);
  }
  template <std::size_t P, class Entry>
  FLUXION_HOST_DEVICE void assign_at(T diag, const Entry& entry) {
    constexpr sparse_lu_source s = tables.source[P];
    if constexpr (s.csr < 0) v[P] = s.diagonal ? diag : T(0);
    else if constexpr (s.diagonal) v[P] = diag - entry(s.row, s.column, s.csr);
    else v[P] = -entry(s.row, s.column, s.csr);
  }

  template <std::size_t... K>
  FLUXION_HOST_DEVICE void eliminate(truth& regular, std::index_sequence<K...>) {
    (eliminate_pivot<K>(regular), ...);
  }
  template <std::size_t K>
  FLUXION_HOST_DEVICE void eliminate_pivot(truth& regular) {
    constexpr int d = tables.pivot[K];
    regular = regular && (math::abs(v[d]) > T(0));
    const T inv = T(1) / v[d];
    v[d] = inv;
    constexpr int m = tables.multiplier_begin[K], u = tables.update_begin[K];
    scale<m>(inv, std::make_index_sequence<tables.multiplier_begin[K + 1] - m>{});
    update<u>(std::make_index_sequence<tables.update_begin[K + 1] - u>{});
  }
  // A pivot's multipliers and updates are each one template's pack: one
  // instantiation a pivot rather than one an operation (a random 64 x 64
  // pattern's 16224 updates compiled in 46 s of g++ that way, 33 s this).
  template <int Begin, std::size_t... I>
  FLUXION_HOST_DEVICE void scale(T inv, std::index_sequence<I...>) {
    scale_at<tables.multiplier[Begin + I]...>(inv);
  }
  template <int... P>
  FLUXION_HOST_DEVICE void scale_at([[maybe_unused]] T inv) {
    ((v[P] = v[P] * inv), ...);
  }
  template <int Begin, std::size_t... I>
  FLUXION_HOST_DEVICE void update(std::index_sequence<I...>) {
    update_at<tables.update[Begin + I]...>();
  }
  template <sparse_lu_update... U>
  FLUXION_HOST_DEVICE void update_at() {
    ((v[U.target] = v[U.target] - v[U.left] * v[U.right]), ...);
  }

  template <auto Terms, std::size_t... I>
  FLUXION_HOST_DEVICE void substitute(T* b, std::index_sequence<I...>) const {
    substitute_at<(tables.*Terms)[I]...>(b);
  }
  template <sparse_lu_term... E>
  FLUXION_HOST_DEVICE void substitute_at([[maybe_unused]] T* b) const {
    // column == row (a constant) marks the diagonal: the pivot's reciprocal.
    ((b[E.row] = E.row == E.column ? b[E.row] * v[E.position] : b[E.row] - v[E.position] * b[E.column]), ...);
  }
};

}  // namespace fluxion::detail
