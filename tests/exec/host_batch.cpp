// The host batch drivers for derivatives (fx::host::jacobian_dense,
// jacobian_values, jvp_x, jvp_p) equal the single-instance evaluators,
// instance by instance and bit for bit, for AoS and SoA inputs and outputs;
// inputs (states, parameters, directions) are unchanged; wrong buffers are
// rejected with fx::layout_error before any output is written.
#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/hierarchy_fixture.hpp"
#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

constexpr std::size_t B = 7;

struct model_a_case {
  static constexpr auto model = model_a::model;
};
struct fixture_case {
  static constexpr auto model = hier::connected;
};

// A batch of B random instances in AoS order (instance b at b * n).
template <class M>
void random_batch(std::mt19937_64& rng, std::vector<typename M::scalar>& x, std::vector<typename M::scalar>& p) {
  using T = typename M::scalar;
  std::uniform_real_distribution<double> u(0.1, 1.0);
  x.resize(B * M::n_states);
  p.resize(B * M::n_params);
  for (auto& v : x) v = T(u(rng));
  for (auto& v : p) v = T(0.3 * u(rng));
}

// Whether n values at a and b have the same bits. memcmp with n = 0 still
// needs valid pointers, and an empty std::vector's data() may be null (a
// Jacobian without non-zeros).
template <class T>
bool same_bytes(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// AoS -> SoA (element-major, instance fastest).
template <class T>
std::vector<T> to_soa(const std::vector<T>& a, std::size_t n) {
  std::vector<T> s(a.size());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < n; ++i) s[i * B + b] = a[b * n + i];
  return s;
}

template <class M, typename M::jacobian J>
void check_jacobian_drivers(const std::vector<typename M::scalar>& x, const std::vector<typename M::scalar>& p,
                            typename M::scalar t) {
  using T = typename M::scalar;
  using shape = typename M::template jacobian_shape<J>;
  constexpr std::size_t n = shape::rows * shape::columns;
  const std::size_t nnz = fx::jacobian_pattern<M, J>().nnz();
  const auto xs = to_soa(x, M::n_states), ps = to_soa(p, M::n_params);
  const auto x0 = x, p0 = p, xs0 = xs, ps0 = ps;

  std::vector<T> dense_aos(B * n, T(-1)), dense_soa(B * n, T(-1)), vals_aos(B * nnz, T(-1)), vals_soa(B * nnz, T(-1));
  fx::host::jacobian_dense<M, J>(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(dense_aos));
  fx::host::jacobian_dense<M, J>(M{}, t, B, fx::soa(xs), fx::soa(ps), fx::soa(dense_soa));
  fx::host::jacobian_values<M, J>(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(vals_aos), nnz);
  fx::host::jacobian_values<M, J>(M{}, t, B, fx::soa(xs), fx::soa(ps), fx::soa(vals_soa), nnz);
  // The deduced-model forms (the ones that compile in non-template .cu code) give the same bits.
  REQUIRE(fx::jacobian_pattern<J>(M{}).col_idx == fx::jacobian_pattern<M, J>().col_idx);
  REQUIRE(fx::jacobian_pattern<J>(M{}).row_ptr == fx::jacobian_pattern<M, J>().row_ptr);
  std::vector<T> dense_deduced(B * n, T(-2)), vals_deduced(B * nnz, T(-2));
  fx::host::jacobian_dense<J>(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(dense_deduced));
  fx::host::jacobian_values<J>(M{}, t, B, fx::soa(xs), fx::soa(ps), fx::soa(vals_deduced), nnz);
  REQUIRE(same_bytes(dense_deduced.data(), dense_aos.data(), dense_aos.size()));
  REQUIRE(same_bytes(vals_deduced.data(), vals_soa.data(), vals_soa.size()));
  REQUIRE(same_bytes(x.data(), x0.data(), x.size()));
  REQUIRE(same_bytes(p.data(), p0.data(), p.size()));
  REQUIRE(same_bytes(xs.data(), xs0.data(), xs.size()));
  REQUIRE(same_bytes(ps.data(), ps0.data(), ps.size()));

  std::vector<T> one(n), one_vals(nnz);
  for (std::size_t b = 0; b < B; ++b) {
    M{}.template jacobian_dense<J>(t, x.data() + b * M::n_states, 1, p.data() + b * M::n_params, 1, one.data(), 1);
    M{}.template jacobian_values<J>(t, x.data() + b * M::n_states, 1, p.data() + b * M::n_params, 1, one_vals.data(),
                                    1);
    INFO("instance " << b);
    REQUIRE(same_bytes(one.data(), dense_aos.data() + b * n, n));
    REQUIRE(same_bytes(one_vals.data(), vals_aos.data() + b * nnz, nnz));
    for (std::size_t e = 0; e < n; ++e) REQUIRE(dense_soa[e * B + b] == one[e]);
    for (std::size_t k = 0; k < nnz; ++k) REQUIRE(vals_soa[k * B + b] == one_vals[k]);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("host Jacobian drivers equal single-instance calls", "[derivatives][host]", model_a_case,
                   fixture_case) {
  auto run = [&]<class T>() {
    using M = fx::compiled<TestType::model, T>;
    std::mt19937_64 rng(31);
    std::vector<T> x, p;
    random_batch<M>(rng, x, p);
    const T t = T(1.5);
    check_jacobian_drivers<M, M::jacobian::x>(x, p, t);
    check_jacobian_drivers<M, M::jacobian::p>(x, p, t);
    check_jacobian_drivers<M, M::jacobian::obs_x>(x, p, t);
    check_jacobian_drivers<M, M::jacobian::obs_p>(x, p, t);
  };
  run.template operator()<double>();
  run.template operator()<float>();
}

TEMPLATE_TEST_CASE("host jvp drivers equal single-instance calls", "[derivatives][host][jvp]", model_a_case,
                   fixture_case) {
  using M = fx::compiled<TestType::model, double>;
  std::mt19937_64 rng(32);
  std::vector<double> x, p;
  random_batch<M>(rng, x, p);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> vx(B * M::n_states), vp(B * M::n_params);
  for (auto& v : vx) v = u(rng);
  for (auto& v : vp) v = u(rng);
  const auto x0 = x, p0 = p, vx0 = vx, vp0 = vp;
  const double t = 0.25;

  std::vector<double> ox(B * M::n_states, -1), op(B * M::n_states, -1), oxs(B * M::n_states, -1);
  fx::host::jvp_x(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(vx), fx::aos(ox));
  fx::host::jvp_p(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(vp), fx::aos(op));
  const auto xs = to_soa(x, M::n_states), ps = to_soa(p, M::n_params), vxs = to_soa(vx, M::n_states);
  fx::host::jvp_x(M{}, t, B, fx::soa(xs), fx::soa(ps), fx::soa(vxs), fx::soa(oxs));
  CHECK(x == x0);
  CHECK(p == p0);
  CHECK(vx == vx0);
  CHECK(vp == vp0);
  std::vector<double> one(M::n_states);
  for (std::size_t b = 0; b < B; ++b) {
    const double* xb = x.data() + b * M::n_states;
    const double* pb = p.data() + b * M::n_params;
    M{}.jvp_x(t, xb, pb, vx.data() + b * M::n_states, one.data());
    REQUIRE(same_bytes(one.data(), ox.data() + b * M::n_states, M::n_states));
    for (std::size_t i = 0; i < M::n_states; ++i) REQUIRE(oxs[i * B + b] == one[i]);
    M{}.jvp_p(t, xb, pb, vp.data() + b * M::n_params, one.data());
    REQUIRE(same_bytes(one.data(), op.data() + b * M::n_states, M::n_states));
  }
}

TEST_CASE("host derivative drivers reject wrong buffers before writing", "[derivatives][host][errors]") {
  using M = fx::compiled<model_a::model, double>;
  std::mt19937_64 rng(33);
  std::vector<double> x, p;
  random_batch<M>(rng, x, p);
  constexpr std::size_t n = M::n_states * M::n_states;
  const std::size_t nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();

  // Dense output one element short.
  std::vector<double> out(B * n - 1, 7.0);
  CHECK_THROWS_AS((fx::host::jacobian_dense<M, M::jacobian::x>(M{}, 0.0, B, fx::aos(x), fx::aos(p), fx::aos(out))),
                  fx::layout_error);
  for (double v : out) REQUIRE(v == 7.0);
  // Values output one element short.
  std::vector<double> vals(B * nnz - 1, 7.0);
  CHECK_THROWS_AS(
      (fx::host::jacobian_values<M, M::jacobian::x>(M{}, 0.0, B, fx::aos(x), fx::aos(p), fx::aos(vals), nnz)),
      fx::layout_error);
  for (double v : vals) REQUIRE(v == 7.0);
  // Parameters short by one instance.
  std::vector<double> full(B * n, 7.0);
  const std::span<const double> p_short(p.data(), p.size() - M::n_params);
  CHECK_THROWS_AS((fx::host::jacobian_dense<M, M::jacobian::x>(M{}, 0.0, B, fx::aos(x), fx::aos(p_short),
                                                               fx::aos(full))),
                  fx::layout_error);
  for (double v : full) REQUIRE(v == 7.0);
  // Output overlapping an input.
  std::vector<double> shared(B * n + B * M::n_states, 1.0);
  const std::span<const double> xin(shared.data(), B * M::n_states);
  const std::span<double> jout(shared.data() + 1, B * n);
  CHECK_THROWS_AS((fx::host::jacobian_dense<M, M::jacobian::x>(M{}, 0.0, B, fx::aos(xin), fx::aos(p), fx::aos(jout))),
                  fx::layout_error);
  // jvp direction of the wrong size.
  std::vector<double> v_short(B * M::n_states - 1, 0.5), o(B * M::n_states, 7.0);
  CHECK_THROWS_AS((fx::host::jvp_x(M{}, 0.0, B, fx::aos(x), fx::aos(p), fx::aos(v_short), fx::aos(o))),
                  fx::layout_error);
  for (double v : o) REQUIRE(v == 7.0);
}

// The values driver takes the caller's nnz and sizes the output by it; an nnz
// smaller than the pattern's would let each instance write past its block.
// The driver must reject it. (The buffer below has room to spare past the
// span handed to the driver, so a missing check cannot write out of bounds.)
TEST_CASE("host jacobian_values rejects an nnz that is not the pattern's", "[derivatives][host][errors]") {
  using M = fx::compiled<model_a::model, double>;
  std::mt19937_64 rng(34);
  std::vector<double> x, p;
  random_batch<M>(rng, x, p);
  const std::size_t nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();
  std::vector<double> room(B * nnz, 7.0);
  const std::span<double> vals(room.data(), B * (nnz - 1));
  CHECK_THROWS_AS(
      (fx::host::jacobian_values<M, M::jacobian::x>(M{}, 0.0, B, fx::aos(x), fx::aos(p), fx::aos(vals), nnz - 1)),
      fx::layout_error);
}
