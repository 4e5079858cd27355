// fluxion::fixed_string holds as many 64-bit words as its name needs (one to
// eight): every length from 0 to 64 characters, in particular both sides of
// each word boundary, keeps its characters, its size and its comparisons.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include <catch2/catch_test_macros.hpp>

#include <fluxion/config/fixed_string.hpp>

namespace fx = fluxion;

namespace {

// A name of L characters: 'a' + (i * 7 + L) % 26 at position i, so that
// names of different lengths differ everywhere. `flip` changes the last one.
template <std::size_t L>
constexpr std::array<char, L + 1> name_chars(bool flip = false) {
  std::array<char, L + 1> c{};
  for (std::size_t i = 0; i < L; ++i) c[i] = char('a' + (i * 7 + L) % 26);
  if (flip && L > 0) c[L - 1] = c[L - 1] == 'z' ? 'y' : 'z';
  return c;
}

template <std::size_t L>
constexpr fx::fixed_string<L + 1> make_name(bool flip = false) {
  const auto c = name_chars<L>(flip);
  char text[L + 1]{};
  for (std::size_t i = 0; i <= L; ++i) text[i] = c[i];
  return fx::fixed_string<L + 1>(text);
}

template <std::size_t L>
constexpr bool length_holds() {
  constexpr auto s = make_name<L>();
  constexpr auto expected = name_chars<L>();
  if (s.size() != L) return false;
  for (std::size_t i = 0; i < L; ++i)
    if (s[i] != expected[i]) return false;
  const auto c = s.chars();
  for (std::size_t i = 0; i <= L; ++i)
    if (c[i] != expected[i]) return false;
  if (!(s == make_name<L>())) return false;
  if (L > 0 && s == make_name<L>(true)) return false;
  // Names of other lengths never compare equal.
  if (s == make_name<(L + 1) % 65>()) return false;
  // Only the words the name needs: 8 bytes per started 8 characters, at least one word.
  return sizeof(s) == 8 * (L == 0 ? 1 : (L + 7) / 8);
}

template <std::size_t... L>
constexpr bool all_lengths_hold(std::index_sequence<L...>) {
  return (length_holds<L>() && ...);
}

template <fx::fixed_string S>
constexpr std::string_view name_of() {
  return fx::text<S>;
}

}  // namespace

TEST_CASE("fixed_string keeps every name of 0 to 64 characters", "[symbolic][names]") {
  STATIC_REQUIRE(all_lengths_hold(std::make_index_sequence<65>{}));
}

TEST_CASE("fixed_string as a template argument gives back its text", "[symbolic][names]") {
  STATIC_REQUIRE(name_of<"">() == "");
  STATIC_REQUIRE(name_of<"S">() == "S");
  STATIC_REQUIRE(name_of<"abcdefgh">() == "abcdefgh");    // one full word
  STATIC_REQUIRE(name_of<"abcdefghi">() == "abcdefghi");  // one character into the second
  STATIC_REQUIRE(name_of<"0123456789012345678901234567890123456789012345678901234567890123">() ==
                 "0123456789012345678901234567890123456789012345678901234567890123");
  // A value default-constructed is the empty name of its size (all NULs).
  constexpr fx::fixed_string<12> blank{};
  STATIC_REQUIRE(blank.size() == 11);
  STATIC_REQUIRE(blank[0] == '\0' && blank[10] == '\0');
}
