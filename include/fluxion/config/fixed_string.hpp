#pragma once
// A string usable as a class-type template argument: symbols are named by
// `state<"S">`, never by string-literal operator templates (nvcc rejects them
// in C++20).
//
// The characters are kept in eight 64-bit words, not in a char array: nvcc's
// generated host code spells every template argument of a kernel, and it can
// spell a class made of scalars but not one holding an array. Kernels are
// templated on compiled models, whose names live here. Names are at most 64
// characters; `fluxion::text<name>` is the name as a std::string_view.
#include <array>
#include <cstddef>
#include <string_view>

namespace fluxion {

template <std::size_t N>
struct fixed_string {
  static_assert(N >= 1 && N <= 65, "fluxion::fixed_string: a name has at most 64 characters.");
  unsigned long long w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0;

  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&text)[N]) {
    for (std::size_t i = 0; i + 1 < N; ++i) set(i, text[i]);
  }
  // The form in which generated code spells a value.
  constexpr fixed_string(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3,
                         unsigned long long a4, unsigned long long a5, unsigned long long a6, unsigned long long a7)
      : w0(a0), w1(a1), w2(a2), w3(a3), w4(a4), w5(a5), w6(a6), w7(a7) {}

  static constexpr std::size_t size() { return N - 1; }

  constexpr char operator[](std::size_t i) const {
    return static_cast<char>((word(i / 8) >> (8 * (i % 8))) & 0xffu);
  }
  // The characters followed by a NUL.
  constexpr std::array<char, N> chars() const {
    std::array<char, N> out{};
    for (std::size_t i = 0; i + 1 < N; ++i) out[i] = (*this)[i];
    return out;
  }

 private:
  constexpr unsigned long long word(std::size_t k) const {
    const unsigned long long w[] = {w0, w1, w2, w3, w4, w5, w6, w7};
    return w[k];
  }
  constexpr void set(std::size_t i, char c) {
    unsigned long long* w[] = {&w0, &w1, &w2, &w3, &w4, &w5, &w6, &w7};
    *w[i / 8] |= static_cast<unsigned long long>(static_cast<unsigned char>(c)) << (8 * (i % 8));
  }
};

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
