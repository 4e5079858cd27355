#pragma once
// The exact sum of many floating-point values, rounded once: the reductions
// of the MPI layer (log-density totals, gradients of shared parameters) use
// it so that a total is the same bits whatever the number of ranks, the
// schedule or the order the values come in. It equals the correctly rounded
// (to nearest, ties to even) value of the mathematically exact sum, as
// Python's math.fsum gives for doubles.
//
//   fx::mpi::exact_sum s;
//   for (double v : values) s.add(v);
//   double total = s.value<double>();
//
// The accumulator is a fixed-point integer wide enough for every finite
// double (a Kulisch accumulator): 70 limbs of 32 bits, the lowest bit worth
// 2^-1088, each limb an int64_t so that sums of accumulators are sums of
// integers, exact and associative: across ranks, MPI_Allreduce(MPI_SUM) of
// words() (mpi/reduce.hpp). Three more words count +inf, -inf and NaN: a sum
// holding a NaN, or both infinities, is NaN; one holding an infinity is that
// infinity. An exact sum of zero is +0. Floats are added exactly (as
// doubles) and value<float>() rounds once, to float.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace fluxion::mpi {

class exact_sum {
 public:
  static constexpr int limbs = 70;
  static constexpr int words_count = limbs + 3;  // the limbs, then the counts of +inf, -inf, NaN
  static constexpr int bias = 1088;               // bit k of the integer is worth 2^(k - bias)

  void add(double x) {
    const std::uint64_t u = std::bit_cast<std::uint64_t>(x);
    const bool negative = (u >> 63) != 0;
    const int e = int((u >> 52) & 0x7ff);
    const std::uint64_t f = u & ((std::uint64_t(1) << 52) - 1);
    if (e == 0x7ff) {
      ++w_[f != 0 ? limbs + 2 : (negative ? limbs + 1 : limbs)];
      return;
    }
    if (e == 0 && f == 0) return;
    // x = m 2^unit, m an integer of at most 53 bits, unit >= -1074.
    const std::uint64_t m = e == 0 ? f : (f | (std::uint64_t(1) << 52));
    const int at = (e == 0 ? -1074 : e - 1075) + bias;  // 14 .. 2059
    // m 2^(at % 32) = low + high 2^32, each below 2^64.
    const std::uint64_t low = (m & mask) << (at % 32), high = (m >> 32) << (at % 32);
    const int i = at / 32;
    const std::int64_t sign = negative ? -1 : 1;
    w_[i] += sign * std::int64_t(low & mask);
    w_[i + 1] += sign * std::int64_t((low >> 32) + (high & mask));
    w_[i + 2] += sign * std::int64_t(high >> 32);
    // Each add moves a limb by less than 2^33: carry before 2^29 of them
    // can bring one near 2^62.
    if (++pending_ == (1u << 29)) normalize();
  }
  void add(float x) { add(double(x)); }

  // Adds another accumulator (the sum of both sets of values).
  exact_sum& operator+=(const exact_sum& o) {
    normalize();
    exact_sum b = o;
    b.normalize();
    for (int k = 0; k < words_count; ++k) w_[k] += b.w_[k];
    normalize();
    return *this;
  }

  // The words an element-wise integer sum combines (MPI_INT64_T, MPI_SUM):
  // normalized first, so that the sum of up to 2^30 accumulators cannot
  // overflow a limb.
  std::array<std::int64_t, words_count>& words() {
    normalize();
    return w_;
  }

  // The sum, rounded once to T (to nearest, ties to even; overflow gives an infinity).
  template <class T>
  T value() const {
    static_assert(std::numeric_limits<T>::is_iec559 && std::numeric_limits<T>::radix == 2 &&
                      std::numeric_limits<T>::digits <= 53 && std::numeric_limits<T>::min_exponent >= -1021,
                  "exact_sum rounds to float or double");
    if (w_[limbs + 2] > 0 || (w_[limbs] > 0 && w_[limbs + 1] > 0)) return std::numeric_limits<T>::quiet_NaN();
    if (w_[limbs] > 0) return std::numeric_limits<T>::infinity();
    if (w_[limbs + 1] > 0) return -std::numeric_limits<T>::infinity();
    exact_sum a = *this;
    a.normalize();
    const bool negative = a.w_[limbs - 1] < 0;
    if (negative) {
      for (int k = 0; k < limbs; ++k) a.w_[k] = -a.w_[k];
      a.normalize();
    }
    // Every limb now a digit in [0, 2^32) (the sum of 2^31 of the largest
    // doubles stays below limb 67).
    int top = -1;
    for (int k = limbs - 1; k >= 0 && top < 0; --k)
      if (a.w_[k] != 0) top = k * 32 + 63 - std::countl_zero(std::uint64_t(a.w_[k]));
    if (top < 0) return T(0);
    constexpr int digits = std::numeric_limits<T>::digits;
    constexpr int lowest = std::numeric_limits<T>::min_exponent - digits + bias;  // the smallest subnormal's bit
    const int lsb = top - digits + 1 > lowest ? top - digits + 1 : lowest;
    std::uint64_t mantissa = 0;
    for (int k = top; k >= lsb; --k) mantissa = (mantissa << 1) | a.bit(k);
    // lsb - 1 >= lowest - 1 >= 13: the round bit exists; sticky: any bit below it.
    const bool round = a.bit(lsb - 1) != 0;
    bool sticky = false;
    for (int k = 0; k < (lsb - 1) / 32 && !sticky; ++k) sticky = a.w_[k] != 0;
    for (int k = ((lsb - 1) / 32) * 32; k < lsb - 1 && !sticky; ++k) sticky = a.bit(k) != 0;
    if (round && (sticky || (mantissa & 1) != 0)) ++mantissa;
    const T r = std::ldexp(T(mantissa), lsb - bias);
    return negative ? -r : r;
  }

 private:
  static constexpr std::uint64_t mask = 0xffffffffu;

  std::uint64_t bit(int k) const { return (std::uint64_t(w_[k / 32]) >> (k % 32)) & 1u; }

  // Carries: every limb but the top one a digit in [0, 2^32), the top one signed.
  void normalize() {
    for (int k = 0; k < limbs - 1; ++k) {
      const std::int64_t carry = w_[k] >> 32;  // arithmetic (C++20): floor(w / 2^32)
      w_[k] &= std::int64_t(mask);
      w_[k + 1] += carry;
    }
    pending_ = 0;
  }

  std::array<std::int64_t, words_count> w_{};
  std::uint32_t pending_ = 0;
};

}  // namespace fluxion::mpi
