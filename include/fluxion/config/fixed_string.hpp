#pragma once
// A string usable as a class-type template argument: symbols are named by
// `state<"S">`, never by string-literal operator templates (nvcc rejects them
// in C++20).
#include <cstddef>
#include <string_view>

namespace fluxion {

template <std::size_t N>
struct fixed_string {
  char data[N]{};

  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&text)[N]) {
    for (std::size_t i = 0; i < N; ++i) data[i] = text[i];
  }
  static constexpr std::size_t size() { return N - 1; }
  constexpr const char* c_str() const { return data; }
  constexpr std::string_view view() const { return {data, N - 1}; }
};

template <std::size_t A, std::size_t B>
constexpr bool operator==(const fixed_string<A>& a, const fixed_string<B>& b) {
  if constexpr (A != B) {
    return false;
  } else {
    for (std::size_t i = 0; i < A; ++i)
      if (a.data[i] != b.data[i]) return false;
    return true;
  }
}

}  // namespace fluxion
