// Batches at the edges of the host drivers' input space (issue 14, section
// 5): output blocks with no elements (a model without observables, a
// Jacobian without non-zeros) are checked like any other and then do no
// work, whatever the instance count; structure-of-arrays batches and pitches
// beyond PTRDIFF_MAX are refused with what is wrong; fx::host::threads(n)
// never uses more than n threads.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fluxion/fluxion.hpp>

#include "support/model_a.hpp"

namespace fx = fluxion;
using Catch::Matchers::ContainsSubstring;

namespace {

constexpr auto ptrdiff_max = std::numeric_limits<std::ptrdiff_t>::max();
constexpr auto size_max = std::numeric_limits<std::size_t>::max();

// Two states, one parameter, no observables: its observables and both of
// its observable Jacobians are blocks of no elements.
constexpr fx::state<"u"> u;
constexpr fx::state<"w"> w;
constexpr fx::param<"k"> k;
constexpr auto decay = fx::model(fx::states(u, w), fx::params(k), fx::d(u) = -k * u, fx::d(w) = k * u);
using D = fx::compiled<decay, double>;
static_assert(D::n_states == 2 && D::n_params == 1 && D::n_observables == 0);

// The model, counting the evaluations the drivers ask of it.
struct counted : D {
  static inline std::atomic<long> calls{0};
  template <class... A>
  void observe(A... a) const {
    ++calls;
    D::observe(a...);
  }
  template <class L, class... A>
  void observe_lanes(A... a) const {
    ++calls;
    D::template observe_lanes<L>(a...);
  }
  template <D::jacobian J, class... A>
  void jacobian_dense(A... a) const {
    ++calls;
    D::template jacobian_dense<J>(a...);
  }
  template <D::jacobian J, class... A>
  void jacobian_values(A... a) const {
    ++calls;
    D::template jacobian_values<J>(a...);
  }
};

// Model A, recording the threads its Jacobians are evaluated on.
using MA = fx::compiled<model_a::model, double>;
struct thread_recording : MA {
  static inline std::mutex m;
  static inline std::set<std::thread::id> seen;
  template <MA::jacobian J, class... A>
  void jacobian_dense(A... a) const {
    {
      const std::lock_guard<std::mutex> lock(m);
      seen.insert(std::this_thread::get_id());
    }
    MA::template jacobian_dense<J>(a...);
  }
};

// Calls f; returns the layout_error it throws (and fails when none is thrown).
template <class F>
fx::layout_error layout_error_of(const F& f) {
  try {
    f();
  } catch (const fx::layout_error& e) {
    return e;
  }
  FAIL("expected fluxion::layout_error, nothing was thrown");
  return fx::layout_error("", "", 0, 0);
}

}  // namespace

TEST_CASE("an output block of no elements is checked like any other", "[host][edge][empty]") {
  const std::vector<double> x(3 * D::n_states, 1.0), p(3, 0.5);
  std::vector<double> none;
  const std::size_t nnz = fx::jacobian_pattern<D, D::jacobian::obs_x>().nnz();
  REQUIRE(nnz == 0);

  SECTION("strides whose last instance lies beyond the address space") {
    // Instance 2 of this empty block would start 2 * PTRDIFF_MAX values on.
    const auto e = layout_error_of(
        [&] { fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::strided(none, 1, ptrdiff_max)); });
    CHECK(e.block() == "observable");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("overflow"));
    const auto j = layout_error_of([&] {
      fx::host::jacobian_values<D, D::jacobian::obs_x>(D{}, 0.0, 3, fx::aos(x), fx::aos(p),
                                                      fx::strided(none, 1, ptrdiff_max), nnz);
    });
    CHECK(j.block() == "jacobian values");
    const auto d = layout_error_of([&] {
      fx::host::jacobian_dense<D, D::jacobian::obs_p>(D{}, 0.0, 3, fx::aos(x), fx::aos(p),
                                                     fx::strided(none, 1, ptrdiff_max / 4));
    });
    CHECK(d.block() == "jacobian");
  }
  SECTION("an element stride below 1") {
    const auto e =
        layout_error_of([&] { fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::strided(none, 0, 1)); });
    CHECK(e.block() == "observable");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("element stride"));
  }
  SECTION("a negative instance stride") {
    const auto e =
        layout_error_of([&] { fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::strided(none, 1, -1)); });
    CHECK(e.block() == "observable");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("negative"));
  }
  SECTION("a structure-of-arrays pitch below the instance count") {
    const auto e = layout_error_of([&] { fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::soa(none, 2)); });
    CHECK(e.block() == "observable");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("pitch"));
  }
  SECTION("the inputs of a call with nothing to write") {
    const std::span<const double> short_x(x.data(), x.size() - 1);
    const auto e = layout_error_of([&] { fx::host::observe(D{}, 0.0, 3, fx::aos(short_x), fx::aos(p), fx::aos(none)); });
    CHECK(e.block() == "state");
  }
  SECTION("but an empty block needs no storage and may share an address with its instances") {
    CHECK_NOTHROW(fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::aos(none)));
    CHECK_NOTHROW(fx::host::observe(D{}, 0.0, 3, fx::soa(x), fx::broadcast(std::span(p).first(1)), fx::soa(none)));
    CHECK_NOTHROW(fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::strided(none, 1, 0)));
    const std::span<double> null_span(static_cast<double*>(nullptr), 0);
    CHECK_NOTHROW(fx::host::observe(D{}, 0.0, 3, fx::aos(x), fx::aos(p), fx::aos(null_span)));
    CHECK_NOTHROW(fx::host::jacobian_values<D, D::jacobian::obs_p>(D{}, 0.0, 3, fx::aos(x), fx::aos(p),
                                                                   fx::aos(none), 0));
  }
}

TEST_CASE("a batch with nothing to write returns at once, after the checks", "[host][edge][empty]") {
  const std::vector<double> x(1000 * D::n_states, 1.0), p(1000, 0.5);
  std::vector<double> none;
  counted::calls = 0;
  for (const unsigned n : {1u, 4u}) {
    const fx::host::threads exec(n, 1);
    fx::host::observe(counted{}, 0.0, 1000, fx::aos(x), fx::aos(p), fx::aos(none), exec);
    fx::host::observe(counted{}, 0.0, 1000, fx::soa(x), fx::soa(p), fx::soa(none), exec);
    fx::host::jacobian_dense<counted, D::jacobian::obs_x>(counted{}, 0.0, 1000, fx::aos(x), fx::aos(p), fx::aos(none),
                                                          exec);
    fx::host::jacobian_values<counted, D::jacobian::obs_p>(counted{}, 0.0, 1000, fx::aos(x), fx::aos(p),
                                                           fx::aos(none), 0, exec);
  }
  CHECK(counted::calls == 0);

  // SIZE_MAX instances of broadcast inputs: valid buffers, and no loop over them.
  const std::span<const double> x1(x.data(), D::n_states), p1(p.data(), 1);
  for (const unsigned n : {1u, 4u}) {
    const fx::host::threads exec(n, 1);
    fx::host::observe(D{}, 0.0, size_max, fx::broadcast(x1), fx::broadcast(p1), fx::aos(none), exec);
    fx::host::jacobian_dense<D, D::jacobian::obs_x>(D{}, 0.0, size_max, fx::broadcast(x1), fx::broadcast(p1),
                                                    fx::aos(none), exec);
    fx::host::jacobian_values<D, D::jacobian::obs_p>(D{}, 0.0, size_max, fx::broadcast(x1), fx::broadcast(p1),
                                                     fx::aos(none), 0, exec);
  }
  // And the one-instance overload with an empty span.
  fx::host::observe(D{}, 0.0, std::span<const double>(x1), std::span<const double>(p1), std::span<double>(none));
}

TEST_CASE("a structure-of-arrays batch or pitch beyond PTRDIFF_MAX is refused with what is wrong",
          "[host][edge][soa]") {
  using M = fx::compiled<model_a::model, double>;
  std::vector<double> x(M::n_states, 1.0), p(M::n_params, 0.1), dx(M::n_states, -7.0);
  const std::size_t huge = std::size_t(ptrdiff_max) + 1;
  SECTION("instances") {
    const auto e = layout_error_of([&] { fx::host::rhs(M{}, 0.0, huge, fx::soa(x), fx::broadcast(p), fx::soa(dx)); });
    INFO(e.what());
    CHECK(e.block() == "state");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("structure-of-arrays batch of 9223372036854775808 instances"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("exceeds PTRDIFF_MAX"));
    CHECK(e.expected() == std::size_t(ptrdiff_max));
    CHECK(e.actual() == huge);
    const auto o = layout_error_of([&] { fx::host::rhs(M{}, 0.0, huge, fx::broadcast(x), fx::broadcast(p), fx::soa(dx)); });
    CHECK(o.block() == "state derivative");
    CHECK_THAT(std::string(o.what()), ContainsSubstring("exceeds PTRDIFF_MAX"));
  }
  SECTION("pitch") {
    const auto e = layout_error_of([&] { fx::host::rhs(M{}, 0.0, 1, fx::soa(x, huge), fx::aos(p), fx::aos(dx)); });
    INFO(e.what());
    CHECK(e.block() == "state");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("pitch of 9223372036854775808 values exceeds PTRDIFF_MAX"));
    CHECK(e.actual() == huge);
  }
  for (const double v : dx) CHECK(v == -7.0);
}

TEST_CASE("an exception in any range of a threaded batch reaches the caller after every thread joined",
          "[host][edge][threads]") {
  // Without it a range's std::bad_alloc (the discrete adjoint's tape, say) on
  // a worker thread called std::terminate.
  const std::size_t count = 400;
  for (unsigned n = 1; n <= 4; ++n) {
    for (const std::size_t bad : {std::size_t(0), std::size_t(150), count - 1}) {
      std::atomic<std::size_t> done{0};
      INFO("threads(" << n << "), the range holding " << bad << " throws");
      try {
        fx::host::detail::for_ranges(count, fx::host::threads(n, 1), 1, 1, [&](std::size_t b, std::size_t e) {
          if (b <= bad && bad < e) throw std::runtime_error("range " + std::to_string(b));
          done += e - b;
        });
        FAIL("for_ranges returned without the range's exception");
      } catch (const std::runtime_error& e) {
        CHECK_THAT(std::string(e.what()), ContainsSubstring("range "));
      }
      // Every other range ran to its end before the exception came out.
      const std::size_t per = fx::host::detail::range_length(count, fx::host::threads(n, 1), 1, 1);
      const std::size_t bad_begin = bad / per * per, bad_end = std::min(count, bad_begin + per);
      CHECK(done.load() == count - (bad_end - bad_begin));
    }
  }
  // Two ranges throw: the first range's exception comes out.
  try {
    fx::host::detail::for_ranges(count, fx::host::threads(4, 1), 1, 1, [&](std::size_t b, std::size_t) {
      if (b > 0) throw std::runtime_error("range " + std::to_string(b));
    });
    FAIL("for_ranges returned without the ranges' exceptions");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "range 100");
  }
}

TEST_CASE("threads(n) never uses more than n threads", "[host][edge][threads]") {
  SECTION("range_length and for_ranges: at most n ranges, covering the batch, whole grains but the last") {
    for (const std::size_t grain : {std::size_t(1), std::size_t(8), std::size_t(64)}) {
      for (unsigned n = 1; n <= 9; ++n) {
        for (std::size_t count = 0; count <= 700; count += (count < 140 ? 1 : 37)) {
          std::mutex m;
          std::vector<std::pair<std::size_t, std::size_t>> seen;
          fx::host::detail::for_ranges(count, fx::host::threads(n, 1), grain, 1, [&](std::size_t b, std::size_t e) {
            const std::lock_guard<std::mutex> lock(m);
            seen.emplace_back(b, e);
          });
          std::sort(seen.begin(), seen.end());
          INFO("count " << count << ", threads(" << n << "), grain " << grain << ": " << seen.size() << " ranges");
          REQUIRE(!seen.empty());
          REQUIRE(seen.size() <= n);
          REQUIRE(seen.front().first == 0);
          REQUIRE(seen.back().second == count);
          for (std::size_t i = 1; i < seen.size(); ++i) REQUIRE(seen[i].first == seen[i - 1].second);
          for (std::size_t i = 0; i + 1 < seen.size(); ++i) REQUIRE((seen[i].second - seen[i].first) % grain == 0);
          // As many threads as asked for when rounding the ranges up to whole
          // grains cannot leave one without work.
          if (count >= std::size_t(n) * n * grain) REQUIRE(seen.size() == n);
        }
      }
    }
    CHECK(fx::host::detail::range_length(31, fx::host::threads(2, 1), 1, 1) == 16);
    CHECK(fx::host::detail::range_length(size_max, fx::host::threads(3, 1), 64, 1) >= size_max / 3);
  }
  SECTION("Model A's dense Jacobians, B = 31 over threads(2)") {
    const std::size_t B = 31;
    std::vector<double> x(B * MA::n_states, 1.0), p(B * MA::n_params, 0.1), J(B * MA::n_states * MA::n_states);
    for (const unsigned n : {1u, 2u, 3u, 4u}) {
      thread_recording::seen.clear();
      fx::host::jacobian_dense<thread_recording, MA::jacobian::x>(thread_recording{}, 0.0, B, fx::aos(x), fx::aos(p),
                                                                  fx::aos(J), fx::host::threads(n, 1));
      INFO("threads(" << n << ")");
      CHECK(thread_recording::seen.size() == n);
    }
  }
}
