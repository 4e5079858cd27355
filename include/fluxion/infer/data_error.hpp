#pragma once
// The error raised on the host when an observation series cannot be used
// (a negative count, a probability outside [0, 1], NaN where a value is
// marked observed, ...), naming the series and the time index. Host only.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace fluxion {

class data_error : public std::invalid_argument {
 public:
  // No time index: the problem is the series as a whole (e.g. its mask's length).
  static constexpr std::size_t no_index = static_cast<std::size_t>(-1);

  data_error(std::string series, std::size_t index, const std::string& what_is_wrong)
      : std::invalid_argument(message(series, index, what_is_wrong)), series_(std::move(series)), index_(index) {}

  // The name of the series, as given to the check.
  const std::string& series() const noexcept { return series_; }
  // The time index (position in the series) of the first bad value, or no_index.
  std::size_t index() const noexcept { return index_; }

 private:
  static std::string message(const std::string& series, std::size_t index, const std::string& what_is_wrong) {
    std::string m = "fluxion::data_error: series '" + series + "'";
    if (index != no_index) m += " at time index " + std::to_string(index);
    return m + ": " + what_is_wrong;
  }

  std::string series_;
  std::size_t index_;
};

}  // namespace fluxion
