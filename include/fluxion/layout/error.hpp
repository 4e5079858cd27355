#pragma once
// The error raised on the host, before any output is written, when a user
// buffer does not fit the layout. Host only.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace fluxion {

class layout_error : public std::invalid_argument {
 public:
  layout_error(std::string block, std::string what_is_wrong, std::size_t expected, std::size_t actual)
      : std::invalid_argument("fluxion::layout_error: block '" + block + "': " + what_is_wrong +
                              " (expected " + std::to_string(expected) + ", actual " + std::to_string(actual) + ")"),
        block_(std::move(block)),
        expected_(expected),
        actual_(actual) {}

  // Signed quantities (strides): the message shows them with their sign;
  // expected() and actual() hold a negative one as 0 (a std::size_t cannot).
  struct signed_values {};
  layout_error(std::string block, const std::string& what_is_wrong, std::ptrdiff_t expected, std::ptrdiff_t actual,
               signed_values)
      : std::invalid_argument("fluxion::layout_error: block '" + block + "': " + what_is_wrong + " (expected " +
                              std::to_string(expected) + ", actual " + std::to_string(actual) + ")"),
        block_(std::move(block)),
        expected_(expected < 0 ? 0 : std::size_t(expected)),
        actual_(actual < 0 ? 0 : std::size_t(actual)) {}

  // The layout block the buffer was meant for: "state", "parameter", "state derivative", "observable".
  const std::string& block() const noexcept { return block_; }
  std::size_t expected() const noexcept { return expected_; }
  std::size_t actual() const noexcept { return actual_; }

 private:
  std::string block_;
  std::size_t expected_;
  std::size_t actual_;
};

}  // namespace fluxion
