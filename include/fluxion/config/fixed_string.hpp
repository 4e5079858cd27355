#pragma once
// A string usable as a class-type template argument: symbols are named by
// `state<"S">`, never by string-literal operator templates (nvcc rejects them
// in C++20).
//
// The characters are kept in 64-bit words (one to eight, as many as the name
// needs), not in a char array: nvcc's generated host code spells every
// template argument of a kernel, and it can spell a class made of scalars
// but not one holding an array. Kernels are
// templated on compiled models, whose names live here. Names are at most 64
// characters; `fluxion::text<name>` is the name as a std::string_view.
#include <array>
#include <cstddef>
#include <string_view>

namespace fluxion {

namespace detail {
// Words of a name of N - 1 characters (one for the empty name).
constexpr std::size_t string_words(std::size_t n) { return n <= 9 ? 1 : (n - 2) / 8 + 1; }

// Word k of a fixed_string (zero past its last word), and a pointer to it.
template <class S>
constexpr unsigned long long string_word(const S& s, std::size_t k) {
  switch (k) {
    case 0: return s.w0;
    case 1: if constexpr (requires { s.w1; }) return s.w1; else return 0;
    case 2: if constexpr (requires { s.w2; }) return s.w2; else return 0;
    case 3: if constexpr (requires { s.w3; }) return s.w3; else return 0;
    case 4: if constexpr (requires { s.w4; }) return s.w4; else return 0;
    case 5: if constexpr (requires { s.w5; }) return s.w5; else return 0;
    case 6: if constexpr (requires { s.w6; }) return s.w6; else return 0;
    default: if constexpr (requires { s.w7; }) return s.w7; else return 0;
  }
}
template <class S>
constexpr unsigned long long* string_slot(S& s, std::size_t k) {
  unsigned long long* w[8] = {&s.w0};
  if constexpr (requires { s.w1; }) w[1] = &s.w1;
  if constexpr (requires { s.w2; }) w[2] = &s.w2;
  if constexpr (requires { s.w3; }) w[3] = &s.w3;
  if constexpr (requires { s.w4; }) w[4] = &s.w4;
  if constexpr (requires { s.w5; }) w[5] = &s.w5;
  if constexpr (requires { s.w6; }) w[6] = &s.w6;
  if constexpr (requires { s.w7; }) w[7] = &s.w7;
  return w[k];
}
template <class S, std::size_t N>
constexpr void string_fill(S& s, const char (&text)[N]) {
  for (std::size_t i = 0; i + 1 < N; ++i)
    *string_slot(s, i / 8) |= static_cast<unsigned long long>(static_cast<unsigned char>(text[i])) << (8 * (i % 8));
}
template <class S>
constexpr char string_char(const S& s, std::size_t i) {
  return static_cast<char>((string_word(s, i / 8) >> (8 * (i % 8))) & 0xffu);
}
}  // namespace detail

// What every width of fixed_string has besides its words (a macro, not a
// base class: nvcc's generated host code spells a value with a base as an
// aggregate, which a class with constructors is not).
#define FLUXION_DETAIL_FIXED_STRING_COMMON                                                          \
  static_assert(N >= 1 && N <= 65, "fluxion::fixed_string: a name has at most 64 characters."); \
  constexpr fixed_string() = default;                                                           \
  constexpr fixed_string(const char (&text)[N]) { detail::string_fill(*this, text); }            \
  static constexpr std::size_t size() { return N - 1; }                                         \
  constexpr char operator[](std::size_t i) const { return detail::string_char(*this, i); }      \
  /* The characters followed by a NUL. */                                                       \
  constexpr std::array<char, N> chars() const {                                                 \
    std::array<char, N> out{};                                                                  \
    for (std::size_t i = 0; i + 1 < N; ++i) out[i] = (*this)[i];                                \
    return out;                                                                                 \
  }

// As many 64-bit words as the name needs: every symbol's name is spelled in
// the mangled name of every function a model instantiates, and eight words
// for a two-letter name made a quarter of cicc's generated file for the
// vector-host model zeros (83 -> 48 MB with the member-alias fix, though
// cicc's time barely moved).
template <std::size_t N>
struct fixed_string;
template <std::size_t N>
  requires(detail::string_words(N) == 1)
struct fixed_string<N> {
  unsigned long long w0 = 0;
  constexpr fixed_string(unsigned long long a0) : w0(a0) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 2)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1) : w0(a0), w1(a1) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 3)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2) : w0(a0), w1(a1), w2(a2) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 4)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3) : w0(a0), w1(a1), w2(a2), w3(a3) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 5)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3, unsigned long long a4) : w0(a0), w1(a1), w2(a2), w3(a3), w4(a4) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 6)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3, unsigned long long a4, unsigned long long a5) : w0(a0), w1(a1), w2(a2), w3(a3), w4(a4), w5(a5) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 7)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3, unsigned long long a4, unsigned long long a5, unsigned long long a6) : w0(a0), w1(a1), w2(a2), w3(a3), w4(a4), w5(a5), w6(a6) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
template <std::size_t N>
  requires(detail::string_words(N) == 8)
struct fixed_string<N> {
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0;
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3, unsigned long long a4, unsigned long long a5, unsigned long long a6, unsigned long long a7) : w0(a0), w1(a1), w2(a2), w3(a3), w4(a4), w5(a5), w6(a6), w7(a7) {}
  FLUXION_DETAIL_FIXED_STRING_COMMON
};
#undef FLUXION_DETAIL_FIXED_STRING_COMMON

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

template <std::size_t A, std::size_t B>
constexpr bool operator==(const fixed_string<A>& a, const fixed_string<B>& b) {
  if constexpr (A != B) {
    return false;
  } else {
    for (std::size_t i = 0; i + 1 < A; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
}

// A name as a char array, for diagnostics only: compilers print it readably,
// e.g. state_has_no_equation<fluxion::symbol_name<2>{"E"}>.
template <std::size_t N>
struct symbol_name {
  char data[N]{};
  constexpr symbol_name(const fixed_string<N>& s) {
    for (std::size_t i = 0; i + 1 < N; ++i) data[i] = s[i];
  }
};
template <std::size_t N>
symbol_name(fixed_string<N>) -> symbol_name<N>;

namespace detail {
template <fixed_string S>
inline constexpr auto fixed_string_storage = S.chars();
}  // namespace detail

// The characters of a name as a std::string_view with static storage.
template <fixed_string S>
inline constexpr std::string_view text{detail::fixed_string_storage<S>.data(), S.size()};

}  // namespace fluxion
