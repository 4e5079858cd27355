// The Jacobian walk visits, in each row, only the columns that the row's
// derivative can reach (symbolic/candidates.hpp): for a line of cells with
// zero-flux ends, d(u)/d(u) is visited at the cell and its neighbours inside
// the line, 3N - 2 visits for 3N - 2 entries, instead of N^2. Counted here
// through the same walk the pattern and the Jacobian values use; the entries
// themselves are checked against hand-written Jacobians elsewhere
// (tests/model/element_terms.cpp, tests/compile/model_a_derivatives.cpp).
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <cstddef>
#include <type_traits>

namespace fx = fluxion;

namespace {

constexpr int N = 40;
using cell = fx::index<"cell", N>;
constexpr fx::ivar<cell, 0, "i"> i;
constexpr fx::ivar<cell, 1, "c"> c;
constexpr fx::state<"u", cell> U;
constexpr fx::state<"v", cell> V;
constexpr fx::param<"D"> D;

constexpr auto line = fx::model(
    fx::states(U, V), fx::params(D),
    fx::d(U(i)) = U(i) * V(i) + D * (fx::where(i > 0, U(i - 1) - U(i), 0) + fx::where(i < N - 1, U(i + 1) - U(i), 0)),
    fx::d(V(i)) = -U(i) * V(i) + fx::sum(c, V(c)) / N);  // v couples to every cell: a dense block
using M = fx::compiled<line, double>;

template <int Equation, class Y>
struct block {
  using eq = fx::detail::at_t<typename M::traits::state_equations, Equation>;
  using derivative = fx::detail::block_derivative<eq, Y>;
  using columns = typename fx::detail::wrt<Y>::vars;
  using first_column_var = fx::detail::at_t<columns, 0>;
  // Counts the (row, column) pairs the walk visits and those structurally non-zero.
  static std::pair<int, int> visits() {
    int visited = 0, nonzero = 0;
    fx::detail::for_each_element<typename eq::vars>::run(fx::env<>{}, [&](const auto& row) {
      fx::detail::for_each_candidate<derivative, columns>::run(row, [&](const auto& e) {
        ++visited;
        nonzero += fx::structure<derivative>::nonzero(e);
      });
    });
    return {visited, nonzero};
  }
};
using u_sym = std::remove_cvref_t<decltype(U)>;
using v_sym = std::remove_cvref_t<decltype(V)>;

}  // namespace

TEST_CASE("a banded block is walked at its band only") {
  using uu = block<0, u_sym>;
  STATIC_REQUIRE(!std::is_same_v<fx::detail::candidates_t<uu::derivative, uu::first_column_var>,
                                 fx::detail::every_element>);
  const auto [visited, nonzero] = uu::visits();
  CHECK(visited == 3 * N - 2);
  CHECK(nonzero == 3 * N - 2);
  const auto [visited_uv, nonzero_uv] = block<0, v_sym>::visits();  // diagonal
  CHECK(visited_uv == N);
  CHECK(nonzero_uv == N);
}

TEST_CASE("a dense block is walked whole, and the pattern counts every entry") {
  using vv = block<1, v_sym>;
  STATIC_REQUIRE(std::is_same_v<fx::detail::candidates_t<vv::derivative, vv::first_column_var>,
                                fx::detail::every_element>);
  const auto [visited, nonzero] = vv::visits();
  CHECK(visited == N * N);
  CHECK(nonzero == N * N);
  CHECK(fx::jacobian_pattern<M, M::jacobian::x>().nnz() == std::size_t((3 * N - 2) + N + N + N * N));
}
