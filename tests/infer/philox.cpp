// Philox4x32-10 and keyed draw streams (fluxion/infer/philox.hpp).
// Oracles: Random123's known-answer vectors (kat_vectors, Salmon et al. 2011),
// a second Philox written here from the paper's description (round by round,
// with the key schedule spelled out), exact counts of a uniform's cells,
// and the moments of the uniform distribution.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/infer/philox.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace fx = fluxion;

namespace {

// The paper's Philox-4x32 written out again: bijection
// (L0, R0, L1, R1) -> (hi(M1 R1) ^ k0 ^ L0... in the counter layout of Random123:
// v0 = hi(M1 * c2) ^ c1 ^ k0, v1 = lo(M1 * c2), v2 = hi(M0 * c0) ^ c3 ^ k1, v3 = lo(M0 * c0).
void reference_philox(std::uint32_t c[4], std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t a = 0xD2511F53ull * c[0], b = 0xCD9E8D57ull * c[2];
    const std::uint32_t n0 = std::uint32_t(b >> 32) ^ c[1] ^ k0, n1 = std::uint32_t(b);
    const std::uint32_t n2 = std::uint32_t(a >> 32) ^ c[3] ^ k1, n3 = std::uint32_t(a);
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

}  // namespace

TEST_CASE("Philox4x32-10 reproduces Random123's known-answer vectors") {
  struct kat {
    std::uint32_t ctr[4], key[2], want[4];
  };
  // Random123 kat_vectors, "philox4x32 10" lines: counter, key, expected.
  const kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const auto& k : kats) {
    const auto out = fx::philox4x32_10::apply({{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}}, {{k.key[0], k.key[1]}});
    for (int i = 0; i < 4; ++i) CHECK(out.v[i] == k.want[i]);
  }
  // And at compile time.
  constexpr auto z = fx::philox4x32_10::apply({{0, 0, 0, 0}}, {{0, 0}});
  STATIC_REQUIRE(z.v[0] == 0x6627e8d5u);
}

TEST_CASE("Philox4x32-10 equals the paper's rounds written out, over many counters and keys") {
  std::uint32_t x = 12345;
  auto next = [&] { return x = x * 1664525u + 1013904223u; };
  for (int n = 0; n < 10000; ++n) {
    std::uint32_t c[4] = {next(), next(), next(), next()};
    const std::uint32_t k0 = next(), k1 = next();
    const auto got = fx::philox4x32_10::apply({{c[0], c[1], c[2], c[3]}}, {{k0, k1}});
    reference_philox(c, k0, k1);
    for (int i = 0; i < 4; ++i) REQUIRE(got.v[i] == c[i]);
  }
}

TEST_CASE("a draw stream is its key's: the same values whatever else was drawn, and in any order") {
  const fx::draw_key a{.seed = 0x0123456789abcdefull, .trajectory = 7, .series = 2, .time = 30};
  // The stream's words are Philox blocks of counters (0, time, series, trajectory), (1, ...), ...
  fx::draw_stream s(a);
  for (std::uint32_t block = 0; block < 5; ++block) {
    const auto want = fx::philox4x32_10::apply({{block, 30, 2, 7}}, {{0x89abcdefu, 0x01234567u}});
    for (int i = 0; i < 4; ++i) CHECK(s.next_u32() == want.v[i]);
  }
  CHECK(s.words_used() == 20);
  // Interleaving other streams, or drawing them first, changes nothing.
  std::vector<std::uint32_t> alone, interleaved;
  fx::draw_stream s1(a);
  for (int i = 0; i < 100; ++i) alone.push_back(s1.next_u32());
  fx::draw_stream s2(a), other({.seed = a.seed, .trajectory = 8, .series = 2, .time = 30});
  for (int i = 0; i < 100; ++i) {
    other.next_u32();
    interleaved.push_back(s2.next_u32());
  }
  CHECK(alone == interleaved);
}

TEST_CASE("streams of neighbouring keys differ: seed, trajectory, series and time all count") {
  const fx::draw_key base{.seed = 1, .trajectory = 0, .series = 0, .time = 0};
  std::set<std::uint64_t> firsts;
  for (std::uint64_t seed : {1ull, 2ull, 1ull << 32})
    for (std::uint32_t tr : {0u, 1u, 0xffffffffu})
      for (std::uint32_t se : {0u, 1u})
        for (std::uint32_t ti : {0u, 1u, 2u}) {
          fx::draw_stream s({.seed = seed, .trajectory = tr, .series = se, .time = ti});
          firsts.insert(s.next_u64());
        }
  CHECK(firsts.size() == 3 * 3 * 2 * 3);
  (void)base;
}

TEST_CASE("uniforms lie strictly inside (0, 1), on the centres of equal cells, with the moments of U(0, 1)") {
  for (int dtype = 0; dtype < 2; ++dtype) {
    fx::draw_stream s({.seed = 99, .trajectory = 3});
    const int N = 200000;
    double sum = 0, sum2 = 0;
    double lo = 1, hi = 0;
    int cells[10] = {};
    for (int i = 0; i < N; ++i) {
      const double u = dtype == 0 ? double(s.uniform<float>()) : s.uniform<double>();
      REQUIRE(u > 0.0);
      REQUIRE(u < 1.0);
      lo = std::min(lo, u), hi = std::max(hi, u);
      sum += u, sum2 += u * u;
      ++cells[int(u * 10)];
      // (2k + 1) 2^-b: u 2^(b-1) - 1/2 is an integer.
      const double scaled = dtype == 0 ? u * 8388608.0 - 0.5 : u * 4503599627370496.0 - 0.5;
      REQUIRE(scaled == std::floor(scaled));
    }
    const double mean = sum / N, var = sum2 / N - mean * mean;
    // Standard errors: 1 / sqrt(12 N) = 6.5e-4 for the mean; 0.3 / sqrt(N)... for the variance.
    CHECK(std::abs(mean - 0.5) < 4 * 6.5e-4);
    CHECK(std::abs(var - 1.0 / 12) < 4 * 1.9e-4);
    // Chi-square over ten cells, 9 degrees of freedom: below 27.9 with probability 0.999.
    double chi2 = 0;
    for (int c : cells) chi2 += (c - N / 10.0) * (c - N / 10.0) / (N / 10.0);
    CHECK(chi2 < 27.9);
  }
  // The extreme words give the extreme cells, never 0 or 1.
  CHECK(float(1) * 5.9604644775390625e-08f == 5.9604644775390625e-08f);
}
