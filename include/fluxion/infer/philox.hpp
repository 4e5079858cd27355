#pragma once
// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror & Shaw,
// "Parallel random numbers: as easy as 1, 2, 3" (SC'11), as Random123 and
// cuRAND define it: a bijection of a 128-bit counter under a 64-bit key, ten
// rounds of two 32 x 32 -> 64-bit multiplications with a Weyl key schedule.
// Integer operations only, so host and device give the same bits; tests
// check Random123's known-answer vectors (kat_vectors).
//
// fx::draw_stream turns a key of the user's choosing into a stream of
// 32-bit words, uniform numbers and the like: the key (seed, trajectory,
// series, time) names the stream, and the stream's n-th value depends on
// nothing else, so draws are the same whatever the batch size, thread count,
// launch shape or order in which trajectories are simulated.
#include <cstdint>

#include <fluxion/config/macros.hpp>

namespace fluxion {

struct philox4x32_10 {
  struct counter {
    std::uint32_t v[4];
  };
  struct key {
    std::uint32_t v[2];
  };
  static constexpr std::uint32_t multiplier0 = 0xD2511F53u, multiplier1 = 0xCD9E8D57u;
  static constexpr std::uint32_t weyl0 = 0x9E3779B9u, weyl1 = 0xBB67AE85u;  // golden ratio, sqrt(3) - 1
  static constexpr int rounds = 10;

  FLUXION_HOST_DEVICE static constexpr counter round(counter c, key k) {
    const std::uint64_t p0 = std::uint64_t(multiplier0) * c.v[0];
    const std::uint64_t p1 = std::uint64_t(multiplier1) * c.v[2];
    const auto hi = [](std::uint64_t p) { return std::uint32_t(p >> 32); };
    const auto lo = [](std::uint64_t p) { return std::uint32_t(p); };
    return counter{{hi(p1) ^ c.v[1] ^ k.v[0], lo(p1), hi(p0) ^ c.v[3] ^ k.v[1], lo(p0)}};
  }

  // The generator: counter c encrypted under key k.
  FLUXION_HOST_DEVICE static constexpr counter apply(counter c, key k) {
    for (int r = 0; r < rounds; ++r) {
      if (r > 0) k = key{{k.v[0] + weyl0, k.v[1] + weyl1}};
      c = round(c, k);
    }
    return c;
  }
};

// Where a stream of draws belongs: a 64-bit seed, and three 32-bit
// coordinates, by convention trajectory, series (an observation's data
// series) and time (the save time's index). The seed is the Philox key; the
// coordinates fill three words of the counter, the fourth counts blocks of
// four words within the stream (2^32 blocks, 2^34 words a stream).
struct draw_key {
  std::uint64_t seed = 0;
  std::uint32_t trajectory = 0;
  std::uint32_t series = 0;
  std::uint32_t time = 0;
};

class draw_stream {
 public:
  FLUXION_HOST_DEVICE constexpr explicit draw_stream(draw_key k)
      : key_{{std::uint32_t(k.seed), std::uint32_t(k.seed >> 32)}}, counter_{{0, k.time, k.series, k.trajectory}} {}

  // The next 32 random bits.
  FLUXION_HOST_DEVICE constexpr std::uint32_t next_u32() {
    if (used_ == 4) {
      block_ = philox4x32_10::apply(counter_, key_);
      ++counter_.v[0];
      used_ = 0;
    }
    return block_.v[used_++];
  }
  // The next 64 random bits (two words, the first in the high half).
  FLUXION_HOST_DEVICE constexpr std::uint64_t next_u64() {
    const std::uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }

  // Uniform on the open interval (0, 1): (2k + 1) 2^-b for k of b - 1
  // random bits (b = 24 for float, 53 for double), the centres of 2^(b-1)
  // equal cells, so that neither 0 nor 1 occurs and log(u) and log(1 - u)
  // are finite. Exact arithmetic (an odd integer below 2^b, exact in T, times
  // a power of two): the same value on every machine.
  template <class T>
  FLUXION_HOST_DEVICE constexpr T uniform() {
    if constexpr (sizeof(T) == 4) {
      const std::uint32_t k = next_u32() >> 9;                  // 23 bits
      return T(2 * k + 1) * T(5.9604644775390625e-08);          // 2^-24
    } else {
      const std::uint64_t k = next_u64() >> 12;                 // 52 bits
      return T(2 * k + 1) * T(1.1102230246251565404236316680908203125e-16);  // 2^-53
    }
  }

  // How many 32-bit words this stream has handed out.
  FLUXION_HOST_DEVICE constexpr std::uint64_t words_used() const {
    return std::uint64_t(counter_.v[0]) * 4 - std::uint64_t(4 - used_);
  }

 private:
  philox4x32_10::key key_;
  philox4x32_10::counter counter_;
  philox4x32_10::counter block_{};
  int used_ = 4;
};

}  // namespace fluxion
