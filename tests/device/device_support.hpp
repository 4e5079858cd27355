// Shared by the device case files (cases.cu, solve_cases.cu): device
// buffers, comparisons and the skip without a device. nvcc only.
#pragma once
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fluxion/cuda.hpp>

#include "cases.hpp"

namespace device_cases {
namespace {

namespace fx = fluxion;

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit device_buffer(std::size_t count) : n(count) {
    fx::detail::check_cuda(cudaMalloc(&ptr, count * sizeof(T)), "cudaMalloc");
  }
  device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  void upload(const std::vector<T>& host) {
    fx::detail::check_cuda(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  std::vector<T> download() const {
    std::vector<T> out(n);
    fx::detail::check_cuda(cudaMemcpy(out.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return out;
  }
  std::span<T> span() { return {ptr, n}; }
  std::span<const T> cspan() const { return {ptr, n}; }
};

void sync() { fx::detail::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// |a - b| <= tol * max(1, |b|) for every element; one failure line for the worst.
template <class A, class B>
void compare(result& r, const std::string& what, const A& got, const B& want, double tol) {
  if (got.size() != want.size()) {
    r.failures.push_back(what + ": sizes differ");
    return;
  }
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i])) / std::fmax(1.0, std::fabs(double(want[i])));
    if (!(d <= worst)) {
      worst = d;
      at = i;
    }
  }
  if (!(worst <= tol))
    r.failures.push_back(what + ": relative difference " + std::to_string(worst) + " at element " + std::to_string(at) +
                         " exceeds " + std::to_string(tol));
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

#define FLUXION_SKIP_WITHOUT_DEVICE(r)      \
  if (const auto why = unavailable(); !why.empty()) { \
    r.skipped = true;                       \
    r.reason = why;                         \
    return r;                               \
  }

}  // namespace
}  // namespace device_cases
