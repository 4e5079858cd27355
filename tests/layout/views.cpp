// Per-symbol views of flat buffers address exactly the elements that the
// layout's offset() names: with element stride 1 (one instance, or AoS
// instances), and with the SoA stride of a batch (element j of instance b at
// data[j * B + b]); for states, parameters and observables, scalar and shaped
// symbols, and for the group-major policy.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/layout/view.hpp>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace fx = fluxion;

namespace {

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"I", patch, age> I;
constexpr fx::state<"R", patch> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto m = fx::model(                                               //
    fx::states(S, I, R), fx::params(beta, C, sigma),                        //
    fx::d(S(p, k)) = -beta(p) * S(p, k) * fx::sum(q, C(p, q) * I(q, k)),    //
    fx::d(I(p, k)) = beta(p) * S(p, k) * fx::sum(q, C(p, q) * I(q, k)) - sigma * I(p, k),
    fx::d(R(p)) = sigma * fx::sum(k, I(p, k)),                              //
    fx::observe<"by_age">(p, k) = S(p, k) + I(p, k),                        //
    fx::observe<"total">() = fx::sum(p, R(p)));
using M = fx::compiled<m, double>;
using G = fx::compiled<m, double, fx::group_major<patch>>;
using by_age_t = fx::symbol<fx::kind::observable, "by_age", patch, age>;
using total_t = fx::symbol<fx::kind::observable, "total">;

// Checks that view(i, j) is buffer[offset(i, j) * stride + shift] for every element.
template <class Block, class Sym>
void check_rank2(Sym sym, double* data, std::ptrdiff_t stride, std::ptrdiff_t shift, int e0, int e1) {
  auto v = fx::view<Block>(sym, data + shift, stride);
  REQUIRE(v.extent(0) == std::size_t(e0));
  REQUIRE(v.extent(1) == std::size_t(e1));
  for (int i = 0; i < e0; ++i)
    for (int j = 0; j < e1; ++j) {
      INFO("element (" << i << ", " << j << ")");
      CHECK(&v(i, j) == data + std::ptrdiff_t(Block::template offset<Sym>(i, j)) * stride + shift);
    }
}
template <class Block, class Sym>
void check_rank1(Sym sym, double* data, std::ptrdiff_t stride, std::ptrdiff_t shift, int e0) {
  auto v = fx::view<Block>(sym, data + shift, stride);
  REQUIRE(v.extent(0) == std::size_t(e0));
  for (int i = 0; i < e0; ++i) {
    INFO("element " << i);
    CHECK(&v(i) == data + std::ptrdiff_t(Block::template offset<Sym>(i)) * stride + shift);
  }
}

}  // namespace

TEST_CASE("views with element stride 1 address the layout offsets", "[layout][view]") {
  std::vector<double> x(M::n_states), prm(M::n_params), y(M::n_observables);
  check_rank2<M::layout::state>(S, x.data(), 1, 0, 3, 4);
  check_rank2<M::layout::state>(I, x.data(), 1, 0, 3, 4);
  check_rank1<M::layout::state>(R, x.data(), 1, 0, 3);
  check_rank1<M::layout::param>(beta, prm.data(), 1, 0, 3);
  check_rank2<M::layout::param>(C, prm.data(), 1, 0, 3, 3);
  check_rank2<M::layout::observable>(by_age_t{}, y.data(), 1, 0, 3, 4);
  // Hand-computed: S(2, 1) at 9, I(1, 3) at 12 + 7, R(2) at 26, C(2, 0) at 3 + 6.
  CHECK(&fx::view<M::layout::state>(S, x.data())(2, 1) == &x[9]);
  CHECK(&fx::view<M::layout::state>(I, x.data())(1, 3) == &x[19]);
  CHECK(&fx::view<M::layout::state>(R, x.data())(2) == &x[26]);
  CHECK(&fx::view<M::layout::param>(C, prm.data())(2, 0) == &prm[9]);
  // A scalar symbol is a rank-0 view.
  auto s = fx::view<M::layout::param>(sigma, prm.data());
  STATIC_REQUIRE(decltype(s)::rank() == 0);
  CHECK(&s() == &prm[12]);
  auto tot = fx::view<M::layout::observable>(total_t{}, y.data());
  CHECK(&tot() == &y[12]);
  // Strides of the view: row-major.
  auto v = fx::view<M::layout::state>(S, x.data());
  CHECK(v.stride(0) == 4);
  CHECK(v.stride(1) == 1);
}

TEST_CASE("views of AoS instances", "[layout][view]") {
  constexpr int B = 5;
  const std::ptrdiff_t n = M::n_states;
  std::vector<double> x(n * B);
  for (int b = 0; b < B; ++b) {
    INFO("instance " << b);
    check_rank2<M::layout::state>(S, x.data(), 1, b * n, 3, 4);
    check_rank2<M::layout::state>(I, x.data(), 1, b * n, 3, 4);
    check_rank1<M::layout::state>(R, x.data(), 1, b * n, 3);
  }
}

TEST_CASE("views with a SoA element stride", "[layout][view]") {
  constexpr int B = 7;  // instances; element j of instance b at j * B + b
  std::vector<double> x(M::n_states * B), prm(M::n_params * B);
  for (int b = 0; b < B; ++b) {
    INFO("instance " << b);
    check_rank2<M::layout::state>(S, x.data(), B, b, 3, 4);
    check_rank2<M::layout::state>(I, x.data(), B, b, 3, 4);
    check_rank1<M::layout::state>(R, x.data(), B, b, 3);
    check_rank2<M::layout::param>(C, prm.data(), B, b, 3, 3);
    auto s = fx::view<M::layout::param>(sigma, prm.data() + b, B);
    CHECK(&s() == &prm[12 * B + b]);
  }
  auto v = fx::view<M::layout::state>(I, x.data(), B);
  CHECK(v.stride(0) == 4 * B);
  CHECK(v.stride(1) == B);
  // Hand-computed: I(1, 3) is element 19, so x[19 * B] for instance 0.
  CHECK(&v(1, 3) == &x[19 * B]);
}

TEST_CASE("views under the group-major policy", "[layout][view]") {
  std::vector<double> x(G::n_states);
  check_rank2<G::layout::state>(S, x.data(), 1, 0, 3, 4);
  check_rank2<G::layout::state>(I, x.data(), 1, 0, 3, 4);
  check_rank1<G::layout::state>(R, x.data(), 1, 0, 3);
  // Per patch 4 + 4 + 1 = 9: I(1, 3) at 9 + 4 + 3, R(2) at 18 + 8.
  CHECK(&fx::view<G::layout::state>(I, x.data())(1, 3) == &x[16]);
  CHECK(&fx::view<G::layout::state>(R, x.data())(2) == &x[26]);
  constexpr int B = 3;
  std::vector<double> xs(G::n_states * B);
  for (int b = 0; b < B; ++b) {
    check_rank2<G::layout::state>(S, xs.data(), B, b, 3, 4);
    check_rank1<G::layout::state>(R, xs.data(), B, b, 3);
  }
}

TEST_CASE("views read what the evaluator wrote", "[layout][view]") {
  // Fill the state through views, evaluate, read the derivative through views.
  std::vector<double> x(M::n_states), prm(M::n_params), dx(M::n_states, -99.0);
  auto Sv = fx::view<M::layout::state>(S, x.data());
  auto Iv = fx::view<M::layout::state>(I, x.data());
  auto Rv = fx::view<M::layout::state>(R, x.data());
  auto bv = fx::view<M::layout::param>(beta, prm.data());
  auto Cv = fx::view<M::layout::param>(C, prm.data());
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      Sv(i, j) = 10.0 * (i + 1) + j;
      Iv(i, j) = 0.5 * (i + 1) + 0.25 * j;
    }
    Rv(i) = i;
    bv(i) = 0.1 * (i + 1);
    for (int r = 0; r < 3; ++r) Cv(i, r) = i == r ? 1.0 : 0.25;
  }
  fx::view<M::layout::param>(sigma, prm.data())() = 0.2;
  M{}.rhs(0.0, x.data(), prm.data(), dx.data());
  auto dS = fx::view<M::layout::state>(S, dx.data());
  auto dI = fx::view<M::layout::state>(I, dx.data());
  auto dR = fx::view<M::layout::state>(R, dx.data());
  for (int i = 0; i < 3; ++i) {
    double itot = 0;
    for (int j = 0; j < 4; ++j) {
      const double sv = 10.0 * (i + 1) + j;
      double force = 0;
      for (int r = 0; r < 3; ++r) force += (i == r ? 1.0 : 0.25) * (0.5 * (r + 1) + 0.25 * j);
      const double iv = 0.5 * (i + 1) + 0.25 * j;
      CHECK(dS(i, j) == -(0.1 * (i + 1)) * sv * force);
      CHECK(dI(i, j) == 0.1 * (i + 1) * sv * force - 0.2 * iv);
      itot += iv;
    }
    CHECK(dR(i) == 0.2 * itot);
  }
}
