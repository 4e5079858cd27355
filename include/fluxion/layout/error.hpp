#pragma once
// The error raised on the host, before any output is written, when a user
// buffer does not fit the layout. Host only.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace fluxion {

class layout_error : public std::invalid_argument {
 public:
  layout_error(std::string block, std::string what_is_wrong, std::size_t expected, std::size_t actual)
      : std::invalid_argument("fluxion::layout_error: block '" + block + "': " + what_is_wrong +
                              " (expected " + std::to_string(expected) + ", actual " + std::to_string(actual) + ")"),
        block_(std::move(block)),
        expected_(expected),
        actual_(actual) {}

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
