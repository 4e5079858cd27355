// Host batch drivers over the four flat models: array-of-structures,
// structure-of-arrays and custom strided layouts give bit-identical results
// for the same instances, equal to one-instance evaluations; broadcast
// parameters equal per-instance repeated parameters; inputs are never
// modified; padding around strided outputs is never touched.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include "support/flat_models.hpp"

namespace fx = fluxion;

namespace {

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0;
}
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A value no evaluation produces, with a recognizable bit pattern (a NaN).
template <class T>
T sentinel() {
  T v;
  std::memset(&v, 0x7f, sizeof v);
  return v;
}

// `count` random instances of a model, as plain per-instance arrays.
template <class Ref, class T>
struct instances {
  T t;
  std::vector<std::array<T, Ref::n_states>> x;
  std::vector<std::array<T, Ref::n_params>> p;

  instances(std::size_t count, unsigned seed) {
    std::mt19937_64 rng(seed);
    t = flat::random_point<Ref, T>(rng).t;
    for (std::size_t b = 0; b < count; ++b) {
      const auto pt = flat::random_point<Ref, T>(rng);
      x.push_back(pt.x);
      p.push_back(pt.p);
    }
  }
};

// Packs instances as element j of instance b at data[offset + b * is + j * es]
// inside a buffer of `size` elements pre-filled with `fill`.
template <class T, std::size_t N>
std::vector<T> pack(const std::vector<std::array<T, N>>& v, std::size_t size, std::ptrdiff_t offset, std::ptrdiff_t es,
                    std::ptrdiff_t is, T fill) {
  std::vector<T> out(size, fill);
  for (std::size_t b = 0; b < v.size(); ++b)
    for (std::size_t j = 0; j < N; ++j)
      out[std::size_t(offset + std::ptrdiff_t(b) * is + std::ptrdiff_t(j) * es)] = v[b][j];
  return out;
}

template <class Case, class T>
void check_layouts_agree() {
  using Ref = typename Case::reference;
  using M = fx::compiled<Case::model, T>;
  constexpr std::size_t ns = M::n_states, np = M::n_params, no = M::n_observables;
  constexpr std::size_t B = 37;
  const instances<Ref, T> in(B, 42);
  const T junk = sentinel<T>();

  // Expected: one instance at a time through the raw contiguous entry point.
  std::vector<std::array<T, ns>> want_dx(B);
  std::vector<std::array<T, no>> want_y(B);
  for (std::size_t b = 0; b < B; ++b) {
    M{}.rhs(in.t, in.x[b].data(), in.p[b].data(), want_dx[b].data());
    M{}.observe(in.t, in.x[b].data(), in.p[b].data(), want_y[b].data());
  }

  // Reads element j of instance b of an output buffer.
  auto check_out = [&](const std::vector<T>& buf, std::ptrdiff_t offset, std::ptrdiff_t es, std::ptrdiff_t is,
                       bool observables, const char* what) {
    INFO(Case::name << ": " << what);
    const std::size_t n = observables ? no : ns;
    std::vector<bool> written(buf.size(), false);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t j = 0; j < n; ++j) {
        const auto k = std::size_t(offset + std::ptrdiff_t(b) * is + std::ptrdiff_t(j) * es);
        written[k] = true;
        const T want = observables ? want_y[b][j] : want_dx[b][j];
        INFO("instance " << b << ", element " << j);
        REQUIRE(same_bits(buf[k], want));
      }
    // Everything else (padding, gaps) still holds the sentinel.
    for (std::size_t k = 0; k < buf.size(); ++k)
      if (!written[k]) REQUIRE(same_bits(buf[k], junk));
  };

  SECTION("array of structures") {
    auto x = pack(in.x, B * ns, 0, 1, ns, T(0));
    auto p = pack(in.p, B * np, 0, 1, np, T(0));
    const auto x0 = x, p0 = p;
    std::vector<T> dx(B * ns, junk), y(B * no, junk);
    fx::host::rhs(M{}, in.t, B, fx::aos(x), fx::aos(p), fx::aos(dx));
    fx::host::observe(M{}, in.t, B, fx::aos(x), fx::aos(p), fx::aos(y));
    REQUIRE(same_bytes(x, x0));
    REQUIRE(same_bytes(p, p0));
    check_out(dx, 0, 1, ns, false, "aos rhs");
    check_out(y, 0, 1, no, true, "aos observe");
  }

  SECTION("structure of arrays") {
    auto x = pack(in.x, B * ns, 0, B, 1, T(0));
    auto p = pack(in.p, B * np, 0, B, 1, T(0));
    const auto x0 = x, p0 = p;
    std::vector<T> dx(B * ns, junk), y(B * no, junk);
    fx::host::rhs(M{}, in.t, B, fx::soa(x), fx::soa(p), fx::soa(dx));
    fx::host::observe(M{}, in.t, B, fx::soa(x), fx::soa(p), fx::soa(y));
    REQUIRE(same_bytes(x, x0));
    REQUIRE(same_bytes(p, p0));
    check_out(dx, 0, B, 1, false, "soa rhs");
    check_out(y, 0, B, 1, true, "soa observe");
  }

  SECTION("state embedded in a wider record, outputs interleaved with padding") {
    // Input record: [id, pad, x_0 .. x_{n-1}, pad, pad]; the state starts at
    // element 2 of each record. Parameters SoA-like with a gap of 3 between
    // element rows. Outputs: element stride 2 (every other slot), records of
    // 2 n + 1 elements, starting at element 1.
    constexpr std::size_t xrec = ns + 4;
    auto x = pack(in.x, B * xrec, 2, 1, xrec, junk);
    const std::ptrdiff_t pes = B + 3;
    auto p = pack(in.p, std::size_t(pes) * np, 0, pes, 1, junk);
    const auto x0 = x, p0 = p;
    const std::ptrdiff_t dxrec = 2 * ns + 1, yrec = 2 * no + 1;
    std::vector<T> dx(1 + B * std::size_t(dxrec), junk), y(1 + B * std::size_t(yrec), junk);
    fx::host::rhs(M{}, in.t, B, fx::strided(std::span<const T>(x).subspan(2), 1, xrec), fx::strided(p, pes, 1),
                  fx::strided(std::span<T>(dx).subspan(1), 2, dxrec));
    fx::host::observe(M{}, in.t, B, fx::strided(std::span<const T>(x).subspan(2), 1, xrec), fx::strided(p, pes, 1),
                      fx::strided(std::span<T>(y).subspan(1), 2, yrec));
    REQUIRE(same_bytes(x, x0));
    REQUIRE(same_bytes(p, p0));
    check_out(dx, 1, 2, dxrec, false, "strided rhs");
    check_out(y, 1, 2, yrec, true, "strided observe");
  }

  SECTION("element-major rows with a gap: element stride B + 5, instance stride 1") {
    // Element j of instance b at b * 1 + j * (B + 5): SoA rows with a gap.
    const std::ptrdiff_t es = B + 5;
    auto x = pack(in.x, std::size_t(es) * ns, 0, es, 1, junk);
    auto p = pack(in.p, B * np, 0, 1, np, T(0));
    const auto x0 = x, p0 = p;
    std::vector<T> dx(std::size_t(es) * ns, junk);
    fx::host::rhs(M{}, in.t, B, fx::strided(x, es, 1), fx::aos(p), fx::strided(dx, es, 1));
    REQUIRE(same_bytes(x, x0));
    REQUIRE(same_bytes(p, p0));
    check_out(dx, 0, es, 1, false, "gapped soa rhs");
  }
}

template <class Case, class T>
void check_broadcast() {
  using Ref = typename Case::reference;
  using M = fx::compiled<Case::model, T>;
  constexpr std::size_t ns = M::n_states, np = M::n_params, no = M::n_observables;
  constexpr std::size_t B = 29;
  const instances<Ref, T> in(B, 7);
  const auto& shared = in.p[0];

  // The same parameter set repeated for every instance.
  std::vector<std::array<T, np>> repeated(B, shared);
  auto x = pack(in.x, B * ns, 0, B, 1, T(0));
  auto p_rep = pack(repeated, B * np, 0, B, 1, T(0));
  std::vector<T> p_one(shared.begin(), shared.end());
  const auto x0 = x, p_one0 = p_one;

  std::vector<T> dx_rep(B * ns), dx_bc(B * ns, sentinel<T>()), dx_zero(B * ns, sentinel<T>());
  std::vector<T> y_rep(B * no), y_bc(B * no, sentinel<T>());
  fx::host::rhs(M{}, in.t, B, fx::soa(x), fx::soa(p_rep), fx::soa(dx_rep));
  fx::host::rhs(M{}, in.t, B, fx::soa(x), fx::broadcast(p_one), fx::soa(dx_bc));
  // An input instance stride of 0 is a broadcast written by hand.
  fx::host::rhs(M{}, in.t, B, fx::soa(x), fx::strided(p_one, 1, 0), fx::soa(dx_zero));
  fx::host::observe(M{}, in.t, B, fx::soa(x), fx::soa(p_rep), fx::soa(y_rep));
  fx::host::observe(M{}, in.t, B, fx::soa(x), fx::broadcast(p_one), fx::soa(y_bc));

  INFO(Case::name);
  REQUIRE(same_bytes(x, x0));
  REQUIRE(same_bytes(p_one, p_one0));
  REQUIRE(same_bytes(dx_bc, dx_rep));
  REQUIRE(same_bytes(dx_zero, dx_rep));
  REQUIRE(same_bytes(y_bc, y_rep));
}

}  // namespace

TEMPLATE_TEST_CASE("AoS, SoA and custom strided batches give bit-identical results (double)",
                   "[host][flat][batch][double]", flat::sir_case, flat::lorenz_case, flat::robertson_case,
                   flat::pk_case) {
  check_layouts_agree<TestType, double>();
}

TEMPLATE_TEST_CASE("AoS, SoA and custom strided batches give bit-identical results (float)",
                   "[host][flat][batch][float]", flat::sir_case, flat::lorenz_case, flat::robertson_case,
                   flat::pk_case) {
  check_layouts_agree<TestType, float>();
}

TEMPLATE_TEST_CASE("broadcast parameters equal per-instance repeated parameters", "[host][flat][batch][broadcast]",
                   flat::sir_case, flat::lorenz_case, flat::robertson_case, flat::pk_case) {
  check_broadcast<TestType, double>();
  check_broadcast<TestType, float>();
}

TEST_CASE("an empty batch touches nothing, even with empty buffers", "[host][flat][batch]") {
  using M = fx::compiled<flat::sir::model, double>;
  std::vector<double> x, p, dx;
  REQUIRE_NOTHROW(fx::host::rhs(M{}, 0.0, 0, fx::aos(x), fx::aos(p), fx::aos(dx)));
  REQUIRE_NOTHROW(fx::host::observe(M{}, 0.0, 0, fx::soa(x), fx::broadcast(p), fx::soa(dx)));
  std::vector<double> out(6, sentinel<double>());
  const auto out0 = out;
  std::vector<double> x3(6, 1.0), p3(3, 0.1);
  fx::host::rhs(M{}, 0.0, 0, fx::aos(x3), fx::aos(p3), fx::aos(out));
  REQUIRE(same_bytes(out, out0));
}

TEST_CASE("a batch driver accepts a float time for a float model", "[host][flat][batch][time]") {
  using M = fx::compiled<flat::pk::model, float>;
  // k12 k21 Vmax Km V1 rate t_inf; the infusion is on before t_inf = 2.
  std::vector<float> p{0.3f, 0.1f, 20.0f, 4.0f, 10.0f, 50.0f, 2.0f};
  std::vector<float> x{100.0f, 40.0f, 100.0f, 40.0f};
  std::vector<float> on(4), off(4);
  fx::host::rhs(M{}, std::nextafter(2.0f, 0.0f), 2, fx::aos(x), fx::broadcast(p), fx::aos(on));
  fx::host::rhs(M{}, 2.0f, 2, fx::aos(x), fx::broadcast(p), fx::aos(off));
  for (std::size_t b = 0; b < 2; ++b) {
    CHECK_THAT(on[2 * b] - off[2 * b], Catch::Matchers::WithinRel(50.0f, 1e-5f));
    CHECK(on[2 * b + 1] == off[2 * b + 1]);
  }
}
