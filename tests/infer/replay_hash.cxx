// Prints a hash of the draws of every sampler (fluxion/infer/samplers.hpp)
// over 20000 keys, in float and double. tests/infer/meson.build builds it
// twice, plainly and with -march=native -ffp-contract=fast (fused
// multiply-adds wherever the compiler likes, as nvcc does on the device),
// and the test replay_bits_across_builds requires the same output: the
// draws do not depend on how the compiler contracts arithmetic.
#include <cstdio>
#include <cstring>

#include <fluxion/infer/samplers.hpp>

namespace fx = fluxion;

template <class T>
void run() {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    h = (h ^ b) * 1099511628211ull;
  };
  for (std::uint32_t i = 0; i < 20000; ++i) {
    fx::draw_stream s({.seed = 77, .trajectory = i, .series = i % 3, .time = i % 11});
    mix(s.template uniform<T>());
    mix(fx::sample_normal<T>(s, T(1), T(2)));
    mix(fx::sample_lognormal<T>(s, T(0.5), T(0.3)));
    mix(fx::sample_gamma<T>(s, T(0.7), T(1.5)));
    mix(fx::sample_gamma<T>(s, T(2.5), T(1)));
    mix(fx::sample_beta<T>(s, T(2), T(3)));
    mix(T(fx::sample_poisson<T>(s, T(3.2))));
    mix(T(fx::sample_poisson<T>(s, T(55) + T(i % 7))));
    mix(T(fx::sample_neg_binomial_2<T>(s, T(12), T(2.5))));
    mix(T(fx::sample_binomial<T>(s, 20, T(0.3))));
    mix(T(fx::sample_beta_binomial<T>(s, 20, T(0.3), T(4))));
  }
  std::printf("%zu-byte draws: %016llx\n", sizeof(T), static_cast<unsigned long long>(h));
}

int main() {
  run<float>();
  run<double>();
}
