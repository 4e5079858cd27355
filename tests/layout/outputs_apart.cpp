// check_outputs_apart (layout/check.hpp), which the CUDA launchers call on
// their outputs: every output against every input and every output listed
// before it, the later output named in the error; empty ranges overlap
// nothing. Buffers are slices of one array, their overlaps laid out by hand.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/layout/check.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace fx = fluxion;

namespace {

double memory[100];

// Elements [first, first + n) of `memory`, checked as one instance of n.
fx::checked_buffer<double> slice(std::size_t first, std::size_t n, bool output) {
  return fx::check_buffer("slice", fx::batch<double>{std::span<double>(memory + first, n), fx::batch_order::soa}, n, 1,
                          output);
}

// The block the error names and the block its message names, or "" when
// nothing is thrown.
std::pair<std::string, std::string> refusal(auto&& call) {
  try {
    call();
  } catch (const fx::layout_error& e) {
    // "... block 'OUT': output buffer overlaps the input buffer of block 'IN' ..."
    const std::string what = e.what();
    const std::string marker = "input buffer of block '";
    const auto open = what.find(marker);
    if (open == std::string::npos) return {e.block(), "?"};
    const auto first = open + marker.size();
    return {e.block(), what.substr(first, what.find('\'', first) - first)};
  }
  return {"", ""};
}

}  // namespace

TEST_CASE("check_outputs_apart: every output against every input and every earlier output", "[layout][overlap]") {
  const auto x = slice(0, 10, false), p = slice(10, 10, false);
  const auto a = slice(20, 10, true), b = slice(30, 10, true), c = slice(40, 10, true);
  const fx::checked_buffer<double> absent{nullptr, 1, 1, 0, 0};

  // Apart, and adjacent: nothing thrown.
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}, {"p", p}}, {{"a", a}, {"b", b}, {"c", c}}); }).first == "");
  // An absent output overlaps nothing.
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}, {"p", p}}, {{"a", a}, {"none", absent}, {"c", c}}); })
            .first == "");

  // An output over an input: the output is named, and the input in the message.
  const auto over_p = slice(15, 10, true);
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}, {"p", p}}, {{"a", a}, {"over p", over_p}}); }) ==
        std::pair<std::string, std::string>{"over p", "p"});
  // Over the first input, in last place among the outputs.
  const auto over_x = slice(5, 2, true);
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}, {"p", p}}, {{"a", a}, {"b", b}, {"over x", over_x}}); }) ==
        std::pair<std::string, std::string>{"over x", "x"});

  // Two outputs over each other: the later one is named, the earlier in the message.
  const auto over_a = slice(29, 5, true);
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}}, {{"a", a}, {"c", c}, {"over a", over_a}}); }) ==
        std::pair<std::string, std::string>{"over a", "a"});
  CHECK(refusal([&] { fx::check_outputs_apart({{"x", x}}, {{"over a", over_a}, {"a", a}}); }) ==
        std::pair<std::string, std::string>{"a", "over a"});
  // The first and the last of three outputs.
  const auto over_a_too = slice(25, 1, true);
  CHECK(refusal([&] { fx::check_outputs_apart({}, {{"a", a}, {"b", b}, {"over a", over_a_too}}); }) ==
        std::pair<std::string, std::string>{"over a", "a"});
}
