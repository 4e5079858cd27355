// The scalar helpers of the plain C++ references (gen::where, gen::lt,
// gen::min2, ...): templated on the scalar T, which is
//   double                 values, central differences, perturbation;
//   std::complex<double>   complex-step derivatives: comparisons, min, max
//                          and abs look at the real part (abs(z) = z sign(Re z)),
//                          so that Im f(u + ih) / h is exact away from ties;
//   gen::dep               the exact structural dependence of each output on
//                          each input (bit sets), with exact zeros (a shifted
//                          read outside its space) propagated as fluxion's
//                          documented structure does: products and quotients
//                          with a zero factor/numerator, sums of zeros, odd
//                          functions of zero; a value condition may pick
//                          either branch of fx::where (union), a condition on
//                          indices picks its own.
// Neither this header nor the references include fluxion.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

namespace gen {

// The structural dependence of a value: which states (x) and parameters (p)
// it depends on, and whether it is an exact zero.
struct dep {
  std::uint64_t x = 0, p = 0;
  bool zero = false;
  dep() = default;
  explicit dep(double v) : zero(v == 0.0) {}
  static dep merge(const dep& a, const dep& b) {
    dep r;
    r.zero = a.zero && b.zero;
    if (!r.zero) {
      r.x = a.x | b.x;
      r.p = a.p | b.p;
    }
    return r;
  }
  static dep nonzero_of(const dep& a) {  // f(a) with f(0) != 0: depends on what a does
    dep r = a;
    r.zero = false;
    return r;
  }
};
inline dep operator+(const dep& a, const dep& b) { return dep::merge(a, b); }
inline dep operator-(const dep& a, const dep& b) { return dep::merge(a, b); }
inline dep operator-(const dep& a) { return a; }
inline dep operator*(const dep& a, const dep& b) {
  if (a.zero || b.zero) return dep(0.0);
  dep r = dep::merge(a, b);
  return r;
}
inline dep operator/(const dep& a, const dep& b) {
  if (a.zero) return dep(0.0);
  return dep::merge(a, b);
}

// An element of an alias, read: exact, the body's zeros propagate (fluxion's
// structure looks into an alias body read at an element since issue 14;
// before, an alias element read inside its space counted as non-zero).
template <class T>
T alias_read(const T& v) {
  return v;
}

enum class tri { no, yes, maybe };

template <class T>
inline constexpr bool is_dep = std::is_same_v<T, dep>;
template <class T>
inline constexpr bool is_cplx = std::is_same_v<T, std::complex<double>>;
template <class T>
using truth = std::conditional_t<is_dep<T>, tri, bool>;

template <class T>
double re(const T& v) {
  if constexpr (is_cplx<T>) return v.real();
  else return v;
}

// The smallest relative distance of any comparison (value conditions, min,
// max, abs) from a tie, noted while `noting` (points closer than a threshold
// to a tie are not used: finite differences and small perturbations would
// cross it). Exactly equal operands are not a tie but one value read twice
// (X(k) and X(0) at k = 0), or exact zeros: they stay equal when inputs move.
inline bool noting = false;
inline double margin = 1.0;
inline void note(double a, double b) {
  if (!noting || a == b) return;
  const double m = std::fabs(a - b) / (1.0 + std::fabs(a) + std::fabs(b));
  if (m < margin) margin = m;
}

#define GEN_COMPARISON(NAME, OP)                     \
  template <class T>                                \
  truth<T> NAME(const T& a, const T& b) {           \
    if constexpr (is_dep<T>) {                      \
      return tri::maybe;                            \
    } else {                                        \
      if constexpr (std::is_same_v<T, double>) note(a, b); \
      return re(a) OP re(b);                        \
    }                                               \
  }
GEN_COMPARISON(lt, <)
GEN_COMPARISON(le, <=)
GEN_COMPARISON(gt, >)
GEN_COMPARISON(ge, >=)
GEN_COMPARISON(eq, ==)
GEN_COMPARISON(ne, !=)
#undef GEN_COMPARISON

template <class T>
truth<T> icond(bool c) {
  if constexpr (is_dep<T>) return c ? tri::yes : tri::no;
  else return c;
}
inline bool land(bool a, bool b) { return a && b; }
inline bool lor(bool a, bool b) { return a || b; }
inline bool lnot(bool a) { return !a; }
inline tri land(tri a, tri b) {
  if (a == tri::no || b == tri::no) return tri::no;
  return (a == tri::yes && b == tri::yes) ? tri::yes : tri::maybe;
}
inline tri lor(tri a, tri b) {
  if (a == tri::yes || b == tri::yes) return tri::yes;
  return (a == tri::no && b == tri::no) ? tri::no : tri::maybe;
}
inline tri lnot(tri a) { return a == tri::maybe ? tri::maybe : (a == tri::yes ? tri::no : tri::yes); }

// Both branches are evaluated (the generator keeps each one valid everywhere).
template <class T>
T where(bool c, const T& a, const T& b) {
  return c ? a : b;
}
inline dep where(tri c, const dep& a, const dep& b) {
  if (c == tri::yes) return a;
  if (c == tri::no) return b;
  return dep::merge(a, b);
}

template <class T>
T min2(const T& a, const T& b) {
  if constexpr (is_dep<T>) {
    return dep::merge(a, b);
  } else if constexpr (is_cplx<T>) {
    return re(b) < re(a) ? b : a;
  } else {
    note(a, b);
    return std::fmin(a, b);
  }
}
template <class T>
T max2(const T& a, const T& b) {
  if constexpr (is_dep<T>) {
    return dep::merge(a, b);
  } else if constexpr (is_cplx<T>) {
    return re(a) < re(b) ? b : a;
  } else {
    note(a, b);
    return std::fmax(a, b);
  }
}
template <class T>
T r_sum(const T& a, const T& b) { return a + b; }
template <class T>
T r_prod(const T& a, const T& b) { return a * b; }
template <class T>
T r_min(const T& a, const T& b) { return min2(a, b); }
template <class T>
T r_max(const T& a, const T& b) { return max2(a, b); }

template <class T>
T abs(const T& a) {
  if constexpr (is_dep<T>) {
    return a;
  } else if constexpr (is_cplx<T>) {
    return re(a) < 0 ? -a : a;
  } else {
    note(a, 0.0);
    return std::fabs(a);
  }
}

// exp, log, cos: f(0) != 0. sqrt, sin, tanh: f(0) = 0.
#define GEN_UNARY(NAME, KEEPS_ZERO)                                   \
  template <class T>                                                  \
  T NAME(const T& a) {                                                \
    if constexpr (is_dep<T>) {                                        \
      return KEEPS_ZERO ? a : dep::nonzero_of(a);                     \
    } else {                                                          \
      using std::NAME;                                                \
      return NAME(a);                                                 \
    }                                                                 \
  }
GEN_UNARY(exp, false)
GEN_UNARY(log, false)
GEN_UNARY(cos, false)
GEN_UNARY(sqrt, true)
GEN_UNARY(sin, true)
GEN_UNARY(tanh, true)
#undef GEN_UNARY

template <class T>
T powr(const T& a, const T& b) {
  if constexpr (is_dep<T>) {
    return dep::nonzero_of(dep::merge(dep::nonzero_of(a), dep::nonzero_of(b)));
  } else {
    return std::pow(a, b);
  }
}
template <int N, class T>
T powi(const T& a) {
  if constexpr (N < 0) {
    return T(1.0) / powi<-N>(a);
  } else if constexpr (N == 0) {
    return T(1.0);
  } else if constexpr (N == 1) {
    return a;
  } else {
    const T h = powi<N / 2>(a);
    if constexpr (N % 2 == 0) return h * h;
    else return h * h * a;
  }
}

}  // namespace gen
