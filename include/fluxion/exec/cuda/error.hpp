#pragma once
// The error raised when a CUDA call fails; it carries cudaGetErrorString.
// Host only, CUDA translation units only.
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

namespace fluxion {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(const std::string& operation, cudaError_t code)
      : std::runtime_error("fluxion::cuda_error: " + operation + ": " + cudaGetErrorString(code) + " (" +
                           cudaGetErrorName(code) + ")"),
        code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
inline void check_cuda(cudaError_t code, const char* operation) {
  if (code != cudaSuccess) throw cuda_error(operation, code);
}
}  // namespace detail

}  // namespace fluxion
