// Batches spread over threads (fx::host::threads), and structure-of-arrays
// batches and array-of-structures right-hand sides evaluated several
// instances at a time (fluxion::lanes): Model A against its hand-written
// reference (tests/support/model_a.hpp) for batch sizes that leave
// remainders after every SIMD group and thread range, at any alignment and
// with padded, overlapping or broadcast records; a model smaller than one
// vector (Lorenz); and the lane type itself against scalar arithmetic.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <utility>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include <fluxion/fluxion.hpp>
#include <fluxion/exec/detail/streaming.hpp>
#include <fluxion/exec/lanes.hpp>

#include "support/flat_models.hpp"
#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

template <class T>
struct batch_data {
  std::size_t B;
  bool soa;
  std::vector<T> x, p;
  std::vector<T> ref_dx, ref_y;  // per instance, AoS
  batch_data(std::size_t count, bool soa_order) : B(count), soa(soa_order) {
    std::mt19937_64 rng(42 + count);
    x.resize(B * model_a::n_states);
    p.resize(B * model_a::n_params);
    ref_dx.resize(B * model_a::n_states);
    ref_y.resize(B * model_a::n_observables);
    std::vector<T> xi(model_a::n_states), pi(model_a::n_params);
    for (std::size_t b = 0; b < B; ++b) {
      model_a::random_instance(rng, xi.data(), pi.data());
      for (std::size_t j = 0; j < xi.size(); ++j) x[at(b, j, xi.size())] = xi[j];
      for (std::size_t j = 0; j < pi.size(); ++j) p[at(b, j, pi.size())] = pi[j];
      model_a::reference_rhs(xi.data(), pi.data(), ref_dx.data() + b * model_a::n_states);
      model_a::reference_observe(xi.data(), pi.data(), ref_y.data() + b * model_a::n_observables);
    }
  }
  std::size_t at(std::size_t b, std::size_t j, std::size_t n) const { return soa ? j * B + b : b * n + j; }
  fx::batch<const T> in(const std::vector<T>& v) const {
    return soa ? fx::soa(std::span<const T>(v)) : fx::aos(std::span<const T>(v));
  }
  fx::batch<T> out(std::vector<T>& v) const { return soa ? fx::soa(std::span<T>(v)) : fx::aos(std::span<T>(v)); }
  // Largest relative difference of out (in this batch's order) from the reference.
  double max_rel(const std::vector<T>& out_v, const std::vector<T>& ref, std::size_t n) const {
    double worst = 0;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t j = 0; j < n; ++j) {
        const double r = double(ref[b * n + j]), g = double(out_v[at(b, j, n)]);
        worst = std::max(worst, std::abs(g - r) / std::max(1e-30, std::abs(r) + 1e-3));
      }
    return worst;
  }
};

// Relative to |reference| + 1e-3: the derivatives cancel terms of order one,
// and the reference and fluxion sum them in different orders (and contract
// them into FMAs differently where -march=native allows it: 3.3e-5 in float
// on one H200 host), which costs a few float ulps of the terms.
template <class T>
constexpr double tolerance = sizeof(T) == 8 ? 1e-13 : 1e-4;

// `count` array-of-structures records of n values, each `pad` values longer
// than n, the first `shift` values past a 64-byte boundary, in storage
// whose every other value (the gaps, and `guard` values before and after)
// is a sentinel.
template <class T>
struct sentinel_records {
  static constexpr T sentinel = T(-7);
  std::size_t n, count, pad, first;
  std::vector<T> storage;
  sentinel_records(const std::vector<T>& values, std::size_t n_, std::size_t count_, std::size_t pad_,
                   std::size_t shift, std::size_t guard)
      : n(n_), count(count_), pad(pad_), storage(count_ * (n_ + pad_) + 2 * guard + 64, sentinel) {
    first = (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64 / sizeof(T) + guard + shift;
    for (std::size_t b = 0; b < count; ++b)
      std::copy_n(values.begin() + std::ptrdiff_t(b * n), n, storage.begin() + std::ptrdiff_t(first + b * (n + pad)));
  }
  const T* data() const { return storage.data() + first; }
  // The records as a batch: fx::aos when they are dense, strided otherwise.
  template <class V>
  static fx::batch<V> as_batch(V* at, std::size_t n, std::size_t count, std::size_t pad) {
    const std::span<V> all(at, (count - 1) * (n + pad) + n);
    return pad == 0 ? fx::aos(all) : fx::strided(all, 1, std::ptrdiff_t(n + pad));
  }
  fx::batch<const T> in() const { return as_batch(data(), n, count, pad); }
  fx::batch<T> out() { return as_batch(storage.data() + first, n, count, pad); }
  bool in_record(std::size_t i) const {
    return i >= first && (i - first) / (n + pad) < count && (i - first) % (n + pad) < n;
  }
  // The records' values, without their gaps.
  std::vector<T> values() const {
    std::vector<T> v(count * n);
    for (std::size_t b = 0; b < count; ++b)
      std::copy_n(storage.begin() + std::ptrdiff_t(first + b * (n + pad)), n, v.begin() + std::ptrdiff_t(b * n));
    return v;
  }
  // Values outside the records that are no longer sentinels.
  std::size_t written_outside() const {
    std::size_t k = 0;
    for (std::size_t i = 0; i < storage.size(); ++i) k += !in_record(i) && storage[i] != sentinel;
    return k;
  }
};

}  // namespace

TEMPLATE_TEST_CASE("Model A over threads and SIMD lanes matches the hand-written reference", "[host][threads][lanes]",
                   double, float) {
  using T = TestType;
  using M = fx::compiled<model_a::model, T>;
  // B = 1100: a structure-of-arrays element stream is 8800 (4400) bytes from
  // the next, so those batches go through tiles (host.hpp), with instances
  // left over after the last whole tile and after each thread's range.
  static_assert(1100 * sizeof(T) >= fx::host::detail::tile_from_stride_bytes);
  static_assert(fx::host::detail::soa_tile_instances<T, fx::lanes<T>::width>(model_a::n_states * 2 +
                                                                             model_a::n_params) < 1100);
  // B = 6400: an AoS range of 8 MiB or more (on one thread) writes its
  // right-hand sides with streaming stores while requesting later groups'
  // records, and prefetches its observables' instances ahead, and an SoA
  // one writes its tiles' outputs with streaming stores.
  static_assert(6400 * (2 * model_a::n_states + model_a::n_params) * sizeof(T) >=
                fx::host::detail::aos_prefetch_from_batch_bytes);
  static_assert(6400 * (2 * model_a::n_states + model_a::n_params) * sizeof(T) >=
                fx::host::detail::stream_from_batch_bytes);
  for (const std::size_t B : {std::size_t(1), std::size_t(7), std::size_t(203), std::size_t(1100), std::size_t(6400)}) {
    for (const bool soa : {false, true}) {
      for (const unsigned threads : {1u, 2u, 3u, 8u}) {
        INFO("B = " << B << (soa ? " SoA" : " AoS") << ", threads " << threads);
        batch_data<T> d(B, soa);
        const auto x_before = d.x, p_before = d.p;
        std::vector<T> dx(d.x.size(), T(-7)), y(B * M::n_observables, T(-7));
        // min_values 1: split even these small batches (by default a thread
        // gets at least 2^18 values of work).
        const fx::host::threads exec(threads, 1);
        fx::host::rhs(M{}, T(0), B, d.in(d.x), d.in(d.p), d.out(dx), exec);
        fx::host::observe(M{}, T(0), B, d.in(d.x), d.in(d.p), d.out(y), exec);
        CHECK(d.max_rel(dx, d.ref_dx, M::n_states) < tolerance<T>);
        CHECK(d.max_rel(y, d.ref_y, M::n_observables) < tolerance<T>);
        CHECK(d.x == x_before);
        CHECK(d.p == p_before);
      }
    }
  }
}

TEMPLATE_TEST_CASE("SIMD lanes at any alignment: every instance evaluated, nothing outside the batch written",
                   "[host][lanes]", double, float) {
  // The first group of lanes starts where the batch starts and the next at
  // the first vector-aligned state, overlapping it; the last group ends
  // where the batch ends. Each buffer here starts `shift` values past a
  // 64-byte boundary (the states, parameters and outputs differently), with
  // sentinels before and after it.
  using T = TestType;
  using M = fx::compiled<model_a::model, T>;
  constexpr std::size_t W = fx::lanes<T>::width, pad = 64;
  // B = 1100 goes through tiles, B = 6400 also writes with streaming stores.
  for (const std::size_t B : {W - 1, W, W + 1, 2 * W + 3, std::size_t(203), std::size_t(1100), std::size_t(6400)}) {
    for (std::size_t shift = 0; shift < W; shift += (B > 1000 ? W - 1 : W > 4 ? 3 : 1)) {
      INFO("B = " << B << ", states " << shift << " values past a 64-byte boundary");
      batch_data<T> d(B, true);
      const auto place = [&](const std::vector<T>& v, std::size_t at) {
        std::vector<T> storage(v.size() + 2 * pad + 64, T(-7));
        const std::size_t aligned = (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64 / sizeof(T);
        std::copy(v.begin(), v.end(), storage.begin() + std::ptrdiff_t(aligned + pad + at));
        return std::pair{std::move(storage), aligned + pad + at};
      };
      auto [x, x_at] = place(d.x, shift);
      auto [p, p_at] = place(d.p, (shift + 1) % W);
      auto [dx, dx_at] = place(std::vector<T>(d.x.size(), T(-7)), (shift + W / 2) % W);
      const auto x_before = x;
      fx::host::rhs(M{}, T(0), B, fx::soa(std::span<const T>(x.data() + x_at, d.x.size())),
                    fx::soa(std::span<const T>(p.data() + p_at, d.p.size())),
                    fx::soa(std::span<T>(dx.data() + dx_at, d.x.size())));
      const std::vector<T> got(dx.begin() + std::ptrdiff_t(dx_at), dx.begin() + std::ptrdiff_t(dx_at + d.x.size()));
      CHECK(d.max_rel(got, d.ref_dx, M::n_states) < tolerance<T>);
      CHECK(std::all_of(dx.begin(), dx.begin() + std::ptrdiff_t(dx_at), [](T v) { return v == T(-7); }));
      CHECK(std::all_of(dx.begin() + std::ptrdiff_t(dx_at + d.x.size()), dx.end(), [](T v) { return v == T(-7); }));
      CHECK(x == x_before);
    }
  }
}

TEMPLATE_TEST_CASE("array-of-structures right-hand sides through lanes: any alignment, padded records, broadcast "
                   "parameters, nothing outside the records written",
                   "[host][lanes][aos]", double, float) {
  // Each group of lanes is transposed in from the records and back out to
  // them (exec/detail/transpose.hpp), the last group overlapping the one
  // before it; contiguous outputs of a large range leave through streaming
  // stores. Records here are `pad` values longer than the instance (the gaps
  // must stay untouched), start `shift` values past a 64-byte boundary, and
  // the parameters are either per instance or one broadcast set.
  using T = TestType;
  using M = fx::compiled<model_a::model, T>;
  constexpr std::size_t W = fx::lanes<T>::width, ns = M::n_states, np = M::n_params, guard = 64;
  static_assert(6400 * (2 * ns + np) * sizeof(T) >= fx::host::detail::stream_from_batch_bytes);
  for (const std::size_t B : {std::size_t(1), W - 1, W, W + 1, 2 * W + 3, std::size_t(203), std::size_t(6400)}) {
    for (const std::size_t pad : {std::size_t(0), std::size_t(3)}) {
      for (const bool broadcast : {false, true}) {
        for (std::size_t shift = 0; shift < W; shift += (W > 4 ? 3 : 1)) {
          INFO("B = " << B << ", records " << pad << " values longer, " << (broadcast ? "broadcast" : "per-instance")
                      << " parameters, " << shift << " values past a 64-byte boundary");
          batch_data<T> d(B, false);
          const sentinel_records<T> x(d.x, ns, B, pad, shift, guard);
          const sentinel_records<T> p(d.p, np, broadcast ? 1 : B, pad, (shift + 1) % W, guard);
          sentinel_records<T> dx(std::vector<T>(B * ns, sentinel_records<T>::sentinel), ns, B, pad,
                                 (shift + W / 2) % W, guard);
          const auto x_before = x.storage, p_before = p.storage;
          const fx::batch<const T> params = broadcast ? fx::broadcast(std::span<const T>(p.data(), np)) : p.in();
          fx::host::rhs(M{}, T(0), B, x.in(), params, dx.out());
          // The hand-written reference, with instance 0's parameters for all when broadcast.
          std::vector<T> expected = d.ref_dx;
          if (broadcast)
            for (std::size_t b = 0; b < B; ++b)
              model_a::reference_rhs(d.x.data() + b * ns, d.p.data(), expected.data() + b * ns);
          CHECK(d.max_rel(dx.values(), expected, ns) < tolerance<T>);
          CHECK(dx.written_outside() == 0);
          CHECK(x.storage == x_before);
          CHECK(p.storage == p_before);
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("array-of-structures right-hand sides through lanes in a range large enough to request "
                   "records ahead",
                   "[host][lanes][aos]", double, float) {
  // From aos_lanes_prefetch_from_batch_bytes on (64 MiB: 25 K instances of
  // Model A in double, 50 K in float), each group requests the records of
  // a group further on between its transposes; the last groups, with none
  // that far ahead, request nothing. Records dense or 3 values longer than
  // the instance (the gaps stay untouched), states misaligned.
  using T = TestType;
  using M = fx::compiled<model_a::model, T>;
  constexpr std::size_t W = fx::lanes<T>::width, ns = M::n_states, np = M::n_params;
  constexpr std::size_t instance_bytes = (2 * ns + np) * sizeof(T);
  const std::size_t B = fx::host::detail::aos_lanes_prefetch_from_batch_bytes / instance_bytes + 2 * W + 5;
  REQUIRE(B * instance_bytes >= fx::host::detail::aos_lanes_prefetch_from_batch_bytes);
  const batch_data<T> d(B, false);
  for (const std::size_t pad : {std::size_t(0), std::size_t(3)}) {
    INFO("B = " << B << ", records " << pad << " values longer");
    const std::size_t shift = 1, guard = 64;  // states 1 value past a 64-byte boundary
    const sentinel_records<T> x(d.x, ns, B, pad, shift, guard), p(d.p, np, B, pad, shift, guard);
    sentinel_records<T> dx(std::vector<T>(B * ns, sentinel_records<T>::sentinel), ns, B, pad, shift, guard);
    const auto x_before = x.storage, p_before = p.storage;
    fx::host::rhs(M{}, T(0), B, x.in(), p.in(), dx.out(), fx::host::threads(1));
    CHECK(d.max_rel(dx.values(), d.ref_dx, ns) < tolerance<T>);
    CHECK(dx.written_outside() == 0);
    CHECK(x.storage == x_before);
    CHECK(p.storage == p_before);
  }
}

TEMPLATE_TEST_CASE("array-of-structures lanes for a model smaller than a vector: overlapping and broadcast "
                   "records, threads",
                   "[host][lanes][aos]", double, float) {
  // Lorenz has 3 states and 3 parameters. With 8 or 16 lanes no whole
  // vector fits in a record, and every element is moved one value at a time
  // (before the first vector boundary or after the last whole vector); with
  // 2 or 4 lanes some go through the transposes, depending on the alignment.
  // States are read from overlapping records (instance b reads values b,
  // b + 1, b + 2, instance stride 1) or broadcast; parameters from records 2
  // values longer than the instance; the outputs are contiguous records.
  using T = TestType;
  using Ref = flat::lorenz::reference;
  using M = fx::compiled<flat::lorenz::model, T>;
  static_assert(M::n_states == 3 && M::n_params == 3);
  constexpr std::size_t W = fx::lanes<T>::width, ns = 3, np = 3, p_record = np + 2, guard = 16;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> draw(-10.0, 10.0);
  for (const std::size_t B : {W, W + 1, 3 * W + 2, std::size_t(1000)}) {
    for (const unsigned threads : {1u, 3u}) {
      for (const bool broadcast_states : {false, true}) {
        for (std::size_t shift = 0; shift < W; ++shift) {
          INFO("B = " << B << ", threads " << threads << (broadcast_states ? ", broadcast" : ", overlapping")
                      << " states, " << shift << " values past a 64-byte boundary");
          const std::size_t x_count = broadcast_states ? ns : B + ns - 1;
          std::vector<T> x(guard + x_count + guard + 64, T(-7)), p(guard + B * p_record + guard + 64, T(-7));
          std::vector<T> dx(guard + B * ns + guard + 64, T(-7));
          const auto at = [&](const std::vector<T>& v, std::size_t offset) {
            return (64 - reinterpret_cast<std::uintptr_t>(v.data()) % 64) % 64 / sizeof(T) + guard + offset;
          };
          const std::size_t x_at = at(x, shift), p_at = at(p, (shift + 1) % W), dx_at = at(dx, (shift + 2) % W);
          for (std::size_t i = 0; i < x_count; ++i) x[x_at + i] = T(draw(rng));
          for (std::size_t b = 0; b < B; ++b)
            for (std::size_t j = 0; j < np; ++j) p[p_at + b * p_record + j] = T(std::abs(draw(rng)) + 1);
          const auto x_before = x, p_before = p;
          const std::span<const T> xs(x.data() + x_at, x_count);
          fx::host::rhs(M{}, T(0.5), B, broadcast_states ? fx::broadcast(xs) : fx::strided(xs, 1, 1),
                        fx::strided(std::span<const T>(p.data() + p_at, (B - 1) * p_record + np), 1, p_record),
                        fx::aos(std::span<T>(dx.data() + dx_at, B * ns)), fx::host::threads(threads, 1));
          double worst = 0;
          for (std::size_t b = 0; b < B; ++b) {
            const T* xb = x.data() + x_at + (broadcast_states ? 0 : b);
            const T* pb = p.data() + p_at + b * p_record;
            T expected[ns], scale[ns];
            Ref::rhs(T(0.5), xb, pb, expected);
            Ref::rhs_scale(T(0.5), xb, pb, scale);
            for (std::size_t j = 0; j < ns; ++j)
              worst = std::max(worst, std::abs(double(dx[dx_at + b * ns + j]) - double(expected[j])) /
                                          (double(scale[j]) + 1e-3));
          }
          CHECK(worst < tolerance<T>);
          CHECK(std::all_of(dx.begin(), dx.begin() + std::ptrdiff_t(dx_at), [](T v) { return v == T(-7); }));
          CHECK(std::all_of(dx.begin() + std::ptrdiff_t(dx_at + B * ns), dx.end(), [](T v) { return v == T(-7); }));
          CHECK(x == x_before);
          CHECK(p == p_before);
        }
      }
    }
  }
}

TEST_CASE("soa_pitch: whole cache lines, an odd number of them from four lines on", "[layout][batch]") {
  STATIC_CHECK(fx::soa_pitch<double>(0) == 0);
  STATIC_CHECK(fx::soa_pitch<double>(1) == 8);
  STATIC_CHECK(fx::soa_pitch<double>(9) == 16);    // 2 lines
  STATIC_CHECK(fx::soa_pitch<double>(24) == 24);   // 3 lines
  STATIC_CHECK(fx::soa_pitch<double>(32) == 40);   // 4 lines -> 5
  STATIC_CHECK(fx::soa_pitch<double>(256) == 264);  // 32 lines -> 33
  STATIC_CHECK(fx::soa_pitch<double>(264) == 264);
  STATIC_CHECK(fx::soa_pitch<float>(256) == 272);   // 16 lines -> 17
  STATIC_CHECK(fx::soa_pitch<float>(65536) == 65552);
}

TEMPLATE_TEST_CASE("pitched structure-of-arrays batches: right values, padding untouched, too small a pitch refused",
                   "[host][lanes][batch]", double, float) {
  using T = TestType;
  using M = fx::compiled<model_a::model, T>;
  for (const std::size_t B : {std::size_t(5), std::size_t(203), std::size_t(256), std::size_t(1100)}) {
    // States and outputs with rows fx::soa_pitch(B) apart, parameters one line more.
    const std::size_t pitch = fx::soa_pitch<T>(B), p_pitch = pitch + 64 / sizeof(T);
    INFO("B = " << B << ", pitch " << pitch << ", parameter pitch " << p_pitch);
    batch_data<T> d(B, true);
    const auto widen = [&](const std::vector<T>& v, std::size_t n, std::size_t rows_apart) {
      std::vector<T> w(n * rows_apart, T(-7));
      for (std::size_t j = 0; j < n; ++j)
        std::copy_n(v.begin() + std::ptrdiff_t(j * B), B, w.begin() + std::ptrdiff_t(j * rows_apart));
      return w;
    };
    const std::vector<T> x = widen(d.x, M::n_states, pitch), p = widen(d.p, M::n_params, p_pitch);
    std::vector<T> dx(M::n_states * pitch, T(-7)), y(M::n_observables * pitch, T(-7));
    fx::host::rhs(M{}, T(0), B, fx::soa(x, pitch), fx::soa(p, p_pitch), fx::soa(dx, pitch));
    fx::host::observe(M{}, T(0), B, fx::soa(x, pitch), fx::soa(p, p_pitch), fx::soa(y, pitch));
    const auto narrow = [&](const std::vector<T>& w, std::size_t n) {
      std::vector<T> v(n * B);
      for (std::size_t j = 0; j < n; ++j) {
        std::copy_n(w.begin() + std::ptrdiff_t(j * pitch), B, v.begin() + std::ptrdiff_t(j * B));
        for (std::size_t b = B; b < pitch; ++b)
          if (w[j * pitch + b] != T(-7)) FAIL("padding of row " << j << " written at " << b);
      }
      return v;
    };
    CHECK(d.max_rel(narrow(dx, M::n_states), d.ref_dx, M::n_states) < tolerance<T>);
    CHECK(d.max_rel(narrow(y, M::n_observables), d.ref_y, M::n_observables) < tolerance<T>);
    // A pitch below the instance count is a layout error, raised before any output is written.
    std::vector<T> untouched(M::n_states * pitch, T(-7));
    CHECK_THROWS_AS(fx::host::rhs(M{}, T(0), B, fx::soa(x, B - 1), fx::soa(p, p_pitch), fx::soa(untouched, pitch)),
                    fx::layout_error);
    CHECK_THROWS_AS(fx::host::rhs(M{}, T(0), B, fx::soa(x, pitch), fx::soa(p, p_pitch), fx::soa(untouched, B - 1)),
                    fx::layout_error);
    CHECK(std::all_of(untouched.begin(), untouched.end(), [](T v) { return v == T(-7); }));
  }
}

namespace {
// transpose_block of W x W values at strides that leave gaps, against the
// transpose by hand; the gaps keep their fill.
template <class T, std::size_t W>
void check_transpose_block() {
  using V = typename fx::lanes<T, W>::vector;
  constexpr std::ptrdiff_t from_stride = W + 3, to_stride = W + 5;
  std::vector<T> from(W * from_stride), to(W * to_stride, T(-1));
  for (std::size_t k = 0; k < from.size(); ++k) from[k] = T(k + 1);
  fx::host::detail::transpose_block<W, V>(from.data(), from_stride, to.data(), to_stride);
  for (std::size_t r = 0; r < W; ++r)
    for (std::size_t c = 0; c < std::size_t(to_stride); ++c) {
      INFO("width " << W << ", row " << r << ", column " << c);
      CHECK(to[r * to_stride + c] == (c < W ? from[c * from_stride + r] : T(-1)));
    }
}
}  // namespace

TEMPLATE_TEST_CASE("the W x W transposes of array-of-structures lanes, every width", "[host][lanes]", double, float) {
  check_transpose_block<TestType, 2>();
  check_transpose_block<TestType, 4>();  // written out (the general form spills its rows to the stack)
  check_transpose_block<TestType, 8>();
  check_transpose_block<TestType, 16>();
}

TEMPLATE_TEST_CASE("copy_streaming copies exactly its range at any alignment", "[host][lanes]", double, float) {
  using T = TestType;
  std::vector<T> src(300), dst(400);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = T(i) + T(0.5);
  for (std::size_t shift = 0; shift < 20; ++shift) {
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(16), std::size_t(64),
                                std::size_t(99), std::size_t(300)}) {
      INFO("shift " << shift << ", n " << n);
      std::fill(dst.begin(), dst.end(), T(-7));
      fx::host::detail::copy_streaming(src.data(), n, dst.data() + shift);
      fx::host::detail::streaming_done();
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool inside = i >= shift && i < shift + n;
        if (inside ? dst[i] != src[i - shift] : dst[i] != T(-7)) FAIL("value " << i << " is " << dst[i]);
      }
    }
  }
}

TEST_CASE("Jacobian values and JVPs over threads equal the one-thread results", "[host][threads]") {
  using M = fx::compiled<model_a::model, double>;
  const std::size_t B = 37, nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();
  batch_data<double> d(B, false);
  std::vector<double> one(B * nnz), three(B * nnz), v(d.x.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i));
  fx::host::jacobian_values<M, M::jacobian::x>(M{}, 0.0, B, d.in(d.x), d.in(d.p), d.out(one), nnz);
  fx::host::jacobian_values<M, M::jacobian::x>(M{}, 0.0, B, d.in(d.x), d.in(d.p), d.out(three), nnz,
                                               fx::host::threads(3, 1));
  CHECK(one == three);  // the same code per instance, whichever thread runs it
  std::vector<double> j1(d.x.size()), j3(d.x.size());
  fx::host::jvp_x(M{}, 0.0, B, d.in(d.x), d.in(d.p), fx::aos(std::span<const double>(v)), d.out(j1));
  fx::host::jvp_x(M{}, 0.0, B, d.in(d.x), d.in(d.p), fx::aos(std::span<const double>(v)), d.out(j3),
                  fx::host::threads(3, 1));
  CHECK(j1 == j3);
}

TEST_CASE("threads(0) means one thread; a layout error is raised before any thread starts", "[host][threads]") {
  CHECK(fx::host::threads(0).count == 1);
  using M = fx::compiled<model_a::model, double>;
  std::vector<double> x(10 * M::n_states), p(10 * M::n_params), dx(10 * M::n_states - 1, -7.0);
  CHECK_THROWS_AS(fx::host::rhs(M{}, 0.0, 10, fx::aos(std::span<const double>(x)), fx::aos(std::span<const double>(p)),
                                fx::aos(std::span<double>(dx)), fx::host::threads(4)),
                  fx::layout_error);
  for (double e : dx) CHECK(e == -7.0);
}

TEST_CASE("a thread is started only for enough work: at least min_values values each", "[host][threads]") {
  // Ranges handed out for a batch of `count` instances of 206 values each.
  const auto ranges = [](std::size_t count, fx::host::threads exec) {
    std::mutex m;
    std::vector<std::pair<std::size_t, std::size_t>> seen;
    fx::host::detail::for_ranges(count, exec, 64, 206, [&](std::size_t b, std::size_t e) {
      const std::lock_guard<std::mutex> lock(m);
      seen.emplace_back(b, e);
    });
    std::sort(seen.begin(), seen.end());
    return seen;
  };
  // 2^18 / 206 = 1272 instances a thread at the least.
  CHECK(ranges(1000, fx::host::threads(4)).size() == 1);
  CHECK(ranges(2600, fx::host::threads(4)).size() == 2);
  const auto big = ranges(100000, fx::host::threads(4));
  REQUIRE(big.size() == 4);
  CHECK(big.front().first == 0);
  CHECK(big.back().second == 100000);
  for (std::size_t i = 1; i < big.size(); ++i) CHECK(big[i].first == big[i - 1].second);
  for (std::size_t i = 0; i + 1 < big.size(); ++i) CHECK(big[i].second % 64 == 0);
  CHECK(ranges(1000, fx::host::threads(4, 1)).size() == 4);
  CHECK(ranges(0, fx::host::threads(4)) == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}});
}

TEMPLATE_TEST_CASE("lanes: arithmetic, comparisons, selection and functions lane by lane", "[lanes]", double, float) {
  using T = TestType;
  using L = fx::lanes<T, 4>;
  const T a_in[4] = {T(0.5), T(-1.25), T(2), T(3.5)}, b_in[4] = {T(2), T(0.5), T(-4), T(3.5)};
  const L a = L::load(a_in), b = L::load(b_in);
  T out[4];
  (a * b + a / b - L(1)).store(out);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == a_in[i] * b_in[i] + a_in[i] / b_in[i] - T(1));
  const auto m = a < b;
  const L s = lane_select(m, a, b);
  for (int i = 0; i < 4; ++i) {
    CHECK(m[i] == (a_in[i] < b_in[i]));
    CHECK(s[i] == (a_in[i] < b_in[i] ? a_in[i] : b_in[i]));
  }
  CHECK((!(a == b))[3] == false);
  CHECK(((a < b) || (a == b))[3] == true);
  const L e = fx::math::exp(a), mx = fx::math::max(a, b), ab = fx::math::abs(a), sg = fx::math::sign(b);
  for (int i = 0; i < 4; ++i) {
    CHECK(e[i] == std::exp(a_in[i]));
    CHECK(mx[i] == (a_in[i] < b_in[i] ? b_in[i] : a_in[i]));
    CHECK(ab[i] == std::fabs(a_in[i]));
    CHECK(sg[i] == (b_in[i] > 0 ? T(1) : T(-1)));
  }
}
