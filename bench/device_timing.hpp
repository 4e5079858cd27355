// What the device benchmarks share: an owning device buffer and the median
// of CUDA-event timings of a launch after warm-up.
#pragma once
#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include <fluxion/cuda.hpp>

namespace bench {

template <class T>
struct device_vec {
  T* ptr = nullptr;
  std::size_t n;
  explicit device_vec(std::size_t count) : n(count) {
    fluxion::detail::check_cuda(cudaMalloc(&ptr, count * sizeof(T)), "cudaMalloc");
  }
  ~device_vec() { cudaFree(ptr); }
  device_vec(const device_vec&) = delete;
  device_vec& operator=(const device_vec&) = delete;
  std::span<T> span() { return {ptr, n}; }
  std::span<const T> cspan() const { return {ptr, n}; }
};

// The median of `reps` timings of launch(), after 3 untimed launches.
template <class F>
double median_ms(F&& launch, int reps = 30) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) launch();
  cudaDeviceSynchronize();
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    ts.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

}  // namespace bench
