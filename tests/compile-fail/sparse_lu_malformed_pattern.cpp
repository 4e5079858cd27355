// A sparse factorization over a pattern that is not a valid CSR pattern
// (here a row names one column twice): the symbolic analysis would place
// two values at one position. Patterns come from the model's Jacobian walk,
// which never makes one; the check guards the analysis itself. One error.
// expect: fluxion::detail::sparse_lu: the pattern is not a valid CSR pattern
#include <array>
#include <cstddef>

#include <fluxion/solve/sparse_lu.hpp>

struct pattern_with_duplicate {
  static constexpr std::size_t rows = 2;
  std::array<int, 3> row_ptr{0, 2, 3};
  std::array<int, 3> col_idx{0, 0, 1};
};

int main() {
  fluxion::detail::sparse_lu<double, pattern_with_duplicate{}> lu{};
  return int(lu.nnz_filled);
}
