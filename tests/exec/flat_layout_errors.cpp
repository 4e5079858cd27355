// Run-time buffer validation of the host batch drivers: every wrong buffer
// raises fluxion::layout_error naming the block, with the expected and
// actual values, before anything is written. After each throw the output
// buffer and every input buffer are bitwise unchanged.
//
// Model: the seasonal SIR of tests/support/flat_models.hpp (3 states,
// 3 parameters, 2 observables), batches of B = 4, in double and float.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support/flat_models.hpp"

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;

namespace {

constexpr std::size_t B = 4;
constexpr std::size_t ns = 3, np = 3, no = 2;

// Calls f; returns the layout_error it throws, or nothing (and fails).
std::optional<fx::layout_error> catch_layout_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const fx::layout_error& e) {
    return e;
  } catch (const std::exception& e) {
    FAIL("expected fluxion::layout_error, got another exception: " << e.what());
  }
  FAIL("expected fluxion::layout_error, nothing was thrown");
  return std::nullopt;
}

// Bytes of a buffer, to compare before and after a call.
template <class T>
std::vector<unsigned char> bytes(std::span<const T> s) {
  std::vector<unsigned char> v(s.size_bytes());
  if (!v.empty()) std::memcpy(v.data(), s.data(), v.size());
  return v;
}

// Valid buffers for B instances, outputs filled with a sentinel byte pattern.
template <class T>
struct buffers {
  std::vector<T> x, p, dx, y;
  buffers() : x(B * ns), p(B * np), dx(B * ns), y(B * no) {
    for (std::size_t b = 0; b < B; ++b) {
      x[b * ns + 0] = T(900 + b);
      x[b * ns + 1] = T(100);
      x[b * ns + 2] = T(b);
      p[b * np + 0] = T(0.3);
      p[b * np + 1] = T(0.2);
      p[b * np + 2] = T(0.1);
    }
    std::memset(dx.data(), 0xA5, dx.size() * sizeof(T));
    std::memset(y.data(), 0xA5, y.size() * sizeof(T));
  }
};

// Snapshots of named buffers; `unchanged()` compares all of them.
struct snapshot {
  std::vector<std::pair<std::span<const unsigned char>, std::vector<unsigned char>>> saved;
  template <class T>
  void add(std::span<const T> s) {
    const std::span<const unsigned char> raw(reinterpret_cast<const unsigned char*>(s.data()), s.size_bytes());
    saved.emplace_back(raw, bytes<unsigned char>(raw));
  }
  template <class T>
  void add(const std::vector<T>& v) {
    add(std::span<const T>(v));
  }
  bool unchanged() const {
    for (const auto& [where, before] : saved)
      if (where.size() != before.size() ||
          (!before.empty() && std::memcmp(where.data(), before.data(), before.size()) != 0))
        return false;
    return true;
  }
};

void check_error(const std::optional<fx::layout_error>& e, const std::string& block, std::size_t expected,
                 std::size_t actual) {
  REQUIRE(e.has_value());
  INFO(e->what());
  CHECK(e->block() == block);
  CHECK(e->expected() == expected);
  CHECK(e->actual() == actual);
  CHECK_THAT(std::string(e->what()), ContainsSubstring("'" + block + "'"));
}

}  // namespace

#define FLAT_SCALARS double, float

TEMPLATE_TEST_CASE("valid buffers of the error fixture evaluate without error", "[host][flat][errors]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  REQUIRE_NOTHROW(fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::aos(f.dx)));
  REQUIRE_NOTHROW(fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::aos(f.y)));
  for (std::size_t b = 0; b < B; ++b) CHECK(f.dx[b * ns] < T(0));
}

TEMPLATE_TEST_CASE("null buffers are rejected", "[host][flat][errors][null]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);

  SECTION("state: a default (null, empty) span") {
    const std::span<const T> none;
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(none), fx::aos(f.p), fx::aos(f.dx)); }),
                "state", B * ns, 0);
  }
  SECTION("parameter: a null pointer with a nonzero size") {
    const std::span<const T> null_p(static_cast<const T*>(nullptr), B * np);
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::soa(null_p), fx::aos(f.dx)); }),
                "parameter", B * np, 0);
  }
  SECTION("broadcast parameter: null") {
    // (expected() is checked in the  case below.)
    const std::span<const T> none;
    auto e = catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::broadcast(none), fx::aos(f.dx)); });
    REQUIRE(e);
    CHECK(e->block() == "parameter");
    CHECK(e->actual() == 0);
  }
  SECTION("state derivative: a null pointer with a nonzero size") {
    const std::span<T> null_dx(static_cast<T*>(nullptr), B * ns);
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::aos(null_dx)); }),
                "state derivative", B * ns, 0);
  }
  SECTION("observable: null") {
    const std::span<T> none;
    check_error(catch_layout_error([&] { fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::soa(none)); }),
                "observable", B * no, 0);
  }
  SECTION("one-instance overload: null state") {
    check_error(catch_layout_error([&] {
                  fx::host::rhs(M{}, T(0), std::span<const T>(), std::span<const T>(f.p).first(np),
                                std::span<T>(f.dx).first(ns));
                }),
                "state", ns, 0);
  }
  CHECK(s.unchanged());
}

// Known bug: a null buffer reports expected() = n * count whatever its
// strides (check.hpp, the "null buffer" throw), so a null broadcast of 3
// parameters for 4 instances says it expected 12. Every other size error
// reports the elements the strides need: (count - 1) * is + (n - 1) * es + 1.
TEST_CASE("a null buffer reports the number of elements its strides need", "[host][flat][errors][null]") {
  using M = fx::compiled<flat::sir::model, double>;
  buffers<double> f;
  const std::span<const double> none;
  auto bc = catch_layout_error([&] { fx::host::rhs(M{}, 0.0, B, fx::aos(f.x), fx::broadcast(none), fx::aos(f.dx)); });
  REQUIRE(bc);
  CHECK(bc->expected() == np);
  auto st =
      catch_layout_error([&] { fx::host::rhs(M{}, 0.0, B, fx::strided(none, 2, 7), fx::aos(f.p), fx::aos(f.dx)); });
  REQUIRE(st);
  CHECK(st->expected() == (B - 1) * 7 + (ns - 1) * 2 + 1);
}

TEMPLATE_TEST_CASE("misaligned buffers are rejected", "[host][flat][errors][alignment]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  static_assert(alignof(T) >= 4);
  buffers<T> f;
  // Raw storage aligned to the scalar, viewed from 2 (or 1) bytes past an aligned address.
  alignas(alignof(T)) unsigned char raw[(B * (ns + np) + 2) * sizeof(T)];
  std::memset(raw, 0x5A, sizeof raw);
  constexpr std::size_t shift = 2;  // actual misalignment reported
  snapshot s;
  s.add(std::span<const unsigned char>(raw, sizeof raw));
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);

  SECTION("state") {
    const std::span<const T> bad(reinterpret_cast<const T*>(raw + shift), B * ns);
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(bad), fx::aos(f.p), fx::aos(f.dx)); }),
                "state", alignof(T), shift);
  }
  SECTION("parameter") {
    const std::span<const T> bad(reinterpret_cast<const T*>(raw + shift), np);
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::broadcast(bad), fx::aos(f.dx)); }),
        "parameter", alignof(T), shift);
  }
  SECTION("state derivative") {
    const std::span<T> bad(reinterpret_cast<T*>(raw + shift), B * ns);
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::aos(bad)); }),
                "state derivative", alignof(T), shift);
  }
  SECTION("observable") {
    const std::span<T> bad(reinterpret_cast<T*>(raw + 1), B * no);
    check_error(catch_layout_error([&] { fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::soa(bad)); }),
                "observable", alignof(T), 1);
  }
  CHECK(s.unchanged());
}

TEMPLATE_TEST_CASE("element strides below 1 are rejected", "[host][flat][errors][stride]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);

  SECTION("state, element stride 0") {
    auto e =
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::strided(f.x, 0, 3), fx::aos(f.p), fx::aos(f.dx)); });
    check_error(e, "state", 1, 0);
    CHECK_THAT(std::string(e->what()), ContainsSubstring("element stride"));
  }
  SECTION("parameter, element stride -1") {
    // The actual value of a negative stride is reported as 0 (std::size_t cannot hold it).
    auto e =
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::strided(f.p, -1, 3), fx::aos(f.dx)); });
    REQUIRE(e);
    CHECK(e->block() == "parameter");
    CHECK(e->expected() == 1);
    CHECK_THAT(std::string(e->what()), ContainsSubstring("-1"));
  }
  SECTION("state derivative, element stride 0") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(f.dx, 0, 3)); }),
        "state derivative", 1, 0);
  }
  SECTION("observable, element stride 0") {
    check_error(catch_layout_error(
                    [&] { fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(f.y, 0, 2)); }),
                "observable", 1, 0);
  }
  CHECK(s.unchanged());
}

TEMPLATE_TEST_CASE("negative instance strides are rejected", "[host][flat][errors][stride]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);

  // The message names the offending stride; expected() is the least allowed value, 0.
  auto check_negative = [](const std::optional<fx::layout_error>& e, const std::string& block, const char* given) {
    REQUIRE(e);
    INFO(e->what());
    CHECK(e->block() == block);
    CHECK(e->expected() == 0);
    CHECK_THAT(std::string(e->what()), ContainsSubstring("negative"));
    CHECK_THAT(std::string(e->what()), ContainsSubstring(given));
  };
  SECTION("state") {
    check_negative(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::strided(f.x, 1, -3), fx::aos(f.p), fx::aos(f.dx)); }),
        "state", "-3");
  }
  SECTION("parameter") {
    check_negative(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::strided(f.p, 4, -1), fx::aos(f.dx)); }),
        "parameter", "-1");
  }
  SECTION("state derivative") {
    check_negative(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(f.dx, 1, -3)); }),
        "state derivative", "-3");
  }
  CHECK(s.unchanged());
}

TEMPLATE_TEST_CASE("an output instance stride of 0 is rejected for more than one instance",
                   "[host][flat][errors][stride]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);

  SECTION("state derivative") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(f.dx, 1, 0)); }),
        "state derivative", 1, 0);
    CHECK(s.unchanged());
  }
  SECTION("observable") {
    check_error(catch_layout_error(
                    [&] { fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(f.y, 1, 0)); }),
                "observable", 1, 0);
    CHECK(s.unchanged());
  }
  SECTION("but one instance with output instance stride 0 is fine, and so is an input instance stride of 0") {
    REQUIRE_NOTHROW(fx::host::rhs(M{}, T(0), 1, fx::aos(f.x), fx::aos(f.p), fx::strided(f.dx, 1, 0)));
    REQUIRE_NOTHROW(fx::host::rhs(M{}, T(0), B, fx::strided(f.x, 1, 0), fx::aos(f.p), fx::aos(f.dx)));
  }
}

TEMPLATE_TEST_CASE("buffers that are too small are rejected", "[host][flat][errors][size]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(f.dx);
  s.add(f.y);
  const std::span<const T> x(f.x), p(f.p);
  const std::span<T> dx(f.dx), y(f.y);

  SECTION("state, AoS") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(x.first(B * ns - 1)), fx::aos(p), fx::aos(dx)); }),
        "state", B * ns, B * ns - 1);
  }
  SECTION("parameter, SoA") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::soa(p.first(B * np - 1)), fx::aos(dx)); }),
        "parameter", B * np, B * np - 1);
  }
  SECTION("parameter, broadcast") {
    check_error(catch_layout_error(
                    [&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::broadcast(p.first(np - 1)), fx::aos(dx)); }),
                "parameter", np, np - 1);
  }
  SECTION("state, custom strides: needs (B-1) is + (n-1) es + 1") {
    // element stride 2, instance stride 7: 3 * 7 + 2 * 2 + 1 = 26 elements; f.x has 12.
    std::vector<T> wide(25, T(1));
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::strided(wide, 2, 7), fx::aos(p), fx::aos(dx)); }),
        "state", 26, 25);
  }
  SECTION("state derivative, AoS") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::aos(p), fx::aos(dx.first(B * ns - 1))); }),
        "state derivative", B * ns, B * ns - 1);
  }
  SECTION("state derivative, SoA") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::aos(p), fx::soa(dx.first(B * ns - 1))); }),
        "state derivative", B * ns, B * ns - 1);
  }
  SECTION("observable") {
    check_error(catch_layout_error(
                    [&] { fx::host::observe(M{}, T(0), B, fx::aos(x), fx::aos(p), fx::aos(y.first(B * no - 1))); }),
                "observable", B * no, B * no - 1);
  }
  SECTION("one-instance overload") {
    check_error(catch_layout_error([&] { fx::host::rhs(M{}, T(0), x.first(ns - 1), p.first(np), dx.first(ns)); }),
                "state", ns, ns - 1);
    check_error(catch_layout_error([&] { fx::host::observe(M{}, T(0), x.first(ns), p.first(np), y.first(no - 1)); }),
                "observable", no, no - 1);
  }
  CHECK(s.unchanged());
}

TEMPLATE_TEST_CASE("output strides that write two elements to one address are rejected", "[host][flat][errors][alias]",
                   FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  std::vector<T> out(32);
  std::memset(out.data(), 0xA5, out.size() * sizeof(T));
  snapshot s;
  s.add(f.x);
  s.add(f.p);
  s.add(out);

  SECTION("element stride 1, instance stride 2 (instances overlap)") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(out, 1, 2)); }),
        "state derivative", 1, 2);
  }
  SECTION("element stride 6, instance stride 4 (instance 3, element 0 meets instance 0, element 2)") {
    check_error(
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(out, 6, 4)); }),
        "state derivative", 1, 2);
  }
  SECTION("observable, element stride 1, instance stride 1") {
    check_error(catch_layout_error(
                    [&] { fx::host::observe(M{}, T(0), B, fx::aos(f.x), fx::aos(f.p), fx::strided(out, 1, 1)); }),
                "observable", 1, 2);
  }
  CHECK(s.unchanged());
}

TEST_CASE("the output collision and size checks agree with brute force", "[host][flat][errors][alias]") {
  // Every (element stride, instance stride, count) in a small box: the driver
  // throws 'two elements to one address' exactly when two (instance, element)
  // pairs share an address, accepts a buffer of exactly the needed size and
  // rejects one element less.
  using M = fx::compiled<flat::sir::model, double>;
  std::vector<double> x(6 * ns, 500.0), p(np, 0.2);
  for (std::size_t n_out : {ns, no}) {
    for (std::ptrdiff_t es = 1; es <= 7; ++es)
      for (std::ptrdiff_t is = 0; is <= 7; ++is)
        for (std::size_t count = 1; count <= 6; ++count) {
          INFO("n " << n_out << ", element stride " << es << ", instance stride " << is << ", count " << count);
          const std::size_t needed = (count - 1) * std::size_t(is) + (n_out - 1) * std::size_t(es) + 1;
          std::vector<int> hits(needed, 0);
          bool collide = false;
          for (std::size_t b = 0; b < count; ++b)
            for (std::size_t j = 0; j < n_out; ++j) collide |= ++hits[b * std::size_t(is) + j * std::size_t(es)] > 1;
          std::vector<double> out(needed, -1.0);
          auto call = [&](std::span<double> o) {
            if (n_out == ns)
              fx::host::rhs(M{}, 0.0, count, fx::aos(x), fx::broadcast(p), fx::strided(o, es, is));
            else
              fx::host::observe(M{}, 0.0, count, fx::aos(x), fx::broadcast(p), fx::strided(o, es, is));
          };
          if (collide) {
            const auto e = catch_layout_error([&] { call(out); });
            REQUIRE(e);
            CHECK(e->block() == (n_out == ns ? "state derivative" : "observable"));
            CHECK(std::all_of(out.begin(), out.end(), [](double v) { return v == -1.0; }));
          } else {
            REQUIRE_NOTHROW(call(out));
            const auto e = catch_layout_error([&] { call(std::span<double>(out).first(needed - 1)); });
            REQUIRE(e);
            CHECK(e->expected() == needed);
            CHECK(e->actual() == needed - 1);
          }
        }
  }
}

TEMPLATE_TEST_CASE("outputs overlapping inputs are rejected", "[host][flat][errors][overlap]", FLAT_SCALARS) {
  using T = TestType;
  using M = fx::compiled<flat::sir::model, T>;
  buffers<T> f;
  // One allocation holding states, then parameters, with room to slide an output across both.
  std::vector<T> mem(4 * B * ns);
  std::copy(f.x.begin(), f.x.end(), mem.begin());
  std::copy(f.p.begin(), f.p.end(), mem.begin() + std::ptrdiff_t(B * ns));
  const std::span<T> all(mem);
  const std::span<const T> x = all.first(B * ns);
  const std::span<const T> p = all.subspan(B * ns, B * np);
  snapshot s;
  s.add(mem);

  SECTION("derivative starts on the last state element") {
    auto e = catch_layout_error(
        [&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::aos(f.p), fx::aos(all.subspan(B * ns - 1, B * ns))); });
    check_error(e, "state derivative", 0, sizeof(T));
    CHECK_THAT(std::string(e->what()), ContainsSubstring("'state'"));
  }
  SECTION("in place: derivative written over the state") {
    auto e =
        catch_layout_error([&] { fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::aos(f.p), fx::aos(all.first(B * ns))); });
    check_error(e, "state derivative", 0, B * ns * sizeof(T));
  }
  SECTION("derivative over the parameters") {
    std::vector<T> xs(f.x);
    auto e = catch_layout_error(
        [&] { fx::host::rhs(M{}, T(0), B, fx::aos(xs), fx::aos(p), fx::aos(all.subspan(B * ns + 2, B * ns))); });
    check_error(e, "state derivative", 0, (B * np - 2) * sizeof(T));
    CHECK_THAT(std::string(e->what()), ContainsSubstring("'parameter'"));
  }
  SECTION("broadcast parameters inside the derivative") {
    std::vector<T> xs(f.x);
    auto e = catch_layout_error([&] {
      fx::host::rhs(M{}, T(0), B, fx::aos(xs), fx::broadcast(p.first(np)), fx::soa(all.subspan(B * ns - 5, B * ns)));
    });
    check_error(e, "state derivative", 0, np * sizeof(T));
  }
  SECTION("observables over the state") {
    auto e = catch_layout_error(
        [&] { fx::host::observe(M{}, T(0), B, fx::aos(x), fx::aos(f.p), fx::aos(all.subspan(3, B * no))); });
    check_error(e, "observable", 0, B * no * sizeof(T));
  }
  CHECK(s.unchanged());

  SECTION("adjacent but not overlapping is fine") {
    std::vector<T> ps(f.p);
    REQUIRE_NOTHROW(fx::host::rhs(M{}, T(0), B, fx::aos(x), fx::aos(ps), fx::aos(all.subspan(B * ns, B * ns))));
  }
}
