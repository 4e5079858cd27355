// fluxion-bench: Model A (BENCHMARKS.md) through the host batch drivers, the
// way a user calls them: rhs, observe and sparse jac_x values, in double and
// float, array-of-structures and structure-of-arrays batches (rows of B
// values, layout "soa", and of fx::soa_pitch(B) values, "soa-pitch"), on one
// thread and on every core. One JSON line a measurement; times are medians of
// repeated runs (std::chrono::steady_clock) after a warm-up run.
//
//   fluxion-bench --target host [--batch 65536] [--repeats 15] [--threads N] [--sweep]
//
// --batch sets B for rhs and observe; the Jacobian (8360 values an instance)
// uses min(B, 4096) instances, which its lines say. "rhs_no_arithmetic"
// lines time the same drivers over the same buffers with a stand-in model
// that does no arithmetic: what the data movement alone costs here.
// --sweep adds rhs over B = 2^10 ... 2^22 (AoS, SoA and pitched SoA on one
// thread, SoA on all cores). The device benchmark is fluxion-bench-device
// (CUDA builds).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "support/model_a.hpp"

namespace fx = fluxion;

namespace {

struct options {
  std::size_t batch = 65536;
  int repeats = 15;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool sweep = false;
};

template <class F>
double median_seconds(int repeats, F&& run) {
  run();  // warm-up: first touch of the output, caches
  std::vector<double> s;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

// The vector instructions the build may use (the lanes' width follows them,
// fluxion::simd_bytes).
constexpr const char* instruction_set() {
#if defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2-fma";
#elif defined(__AVX__)
  return "avx";
#else
  return "baseline";
#endif
}

// bytes: what the call must move (0: not meaningful, no GBps printed).
void emit(const char* bench, const char* layout, const char* dtype, std::size_t B, unsigned threads, double seconds,
          double bytes) {
  std::printf("{\"bench\": \"%s\", \"target\": \"host\", \"isa\": \"%s\", \"layout\": \"%s\", \"dtype\": \"%s\", "
              "\"B\": %zu, \"threads\": %u, \"ns_per_instance\": %.2f",
              bench, instruction_set(), layout, dtype, B, threads, seconds * 1e9 / double(B));
  if (bytes > 0) std::printf(", \"GBps\": %.2f", bytes / seconds / 1e9);
  std::printf("}\n");
  std::fflush(stdout);
}

// How a benchmark batch lies in memory: array of structures, structure of
// arrays with rows of B values, or with rows of fx::soa_pitch<T>(B) values
// (whole cache lines, an odd number of them: see batch.hpp).
enum class order { aos, soa, soa_pitch };
const char* name(order o) { return o == order::aos ? "aos" : o == order::soa ? "soa" : "soa-pitch"; }

template <class T>
struct model_a_batch {
  using M = fx::compiled<model_a::model, T>;
  std::size_t B;
  order how;
  std::size_t pitch;  // values between element rows (SoA)
  std::vector<T> x, p, dx, y;
  model_a_batch(std::size_t count, order o)
      : B(count), how(o), pitch(o == order::soa_pitch ? fx::soa_pitch<T>(count) : count), x(pitch * M::n_states),
        p(pitch * M::n_params), dx(pitch * M::n_states), y(pitch * M::n_observables) {
    std::mt19937_64 rng(7);
    std::vector<T> xi(M::n_states), pi(M::n_params);
    for (std::size_t b = 0; b < B; ++b) {
      model_a::random_instance(rng, xi.data(), pi.data());
      for (std::size_t j = 0; j < M::n_states; ++j) x[how == order::aos ? b * M::n_states + j : j * pitch + b] = xi[j];
      for (std::size_t j = 0; j < M::n_params; ++j) p[how == order::aos ? b * M::n_params + j : j * pitch + b] = pi[j];
    }
  }
  template <class V>
  auto as_batch(V& v) const {
    using E = std::remove_reference_t<decltype(*v.data())>;
    const std::span<E> s(v);
    return how == order::aos ? fx::aos(s) : how == order::soa ? fx::soa(s) : fx::soa(s, pitch);
  }
};

template <class T>
void rhs_and_observe(const options& o, std::size_t B, order how, unsigned threads, bool with_observe) {
  using M = fx::compiled<model_a::model, T>;
  const char* dt = sizeof(T) == 8 ? "f64" : "f32";
  model_a_batch<T> d(B, how);
  const M m{};
  const auto exec = fx::host::threads(threads);
  const double s = median_seconds(o.repeats, [&] {
    fx::host::rhs(m, T(0), B, d.as_batch(std::as_const(d.x)), d.as_batch(std::as_const(d.p)), d.as_batch(d.dx), exec);
  });
  emit("rhs", name(how), dt, B, threads, s, double(B) * (2.0 * M::n_states + M::n_params) * sizeof(T));
  if (!with_observe) return;
  const double so = median_seconds(o.repeats, [&] {
    fx::host::observe(m, T(0), B, d.as_batch(std::as_const(d.x)), d.as_batch(std::as_const(d.p)), d.as_batch(d.y),
                      exec);
  });
  emit("observe", name(how), dt, B, threads, so, 0);  // reads only the states it names
}

// Model A's sizes without its arithmetic: through the host batch drivers
// it moves exactly the memory Model A moves (tiles, transposes, streaming
// stores), and its evaluation only tells the compiler that it reads the
// inputs and writes the outputs. Its time is the floor that a driver's data
// movement puts under Model A on this machine ("rhs_no_arithmetic").
// It names Model A's model, layout and Jacobian kinds, as fx::compiled_model asks.
template <class T>
struct no_arithmetic {
  using scalar = T;
  using model_type = typename fx::compiled<model_a::model, T>::model_type;
  using layout = typename fx::compiled<model_a::model, T>::layout;
  using jacobian = typename fx::compiled<model_a::model, T>::jacobian;
  static constexpr std::size_t n_states = model_a::n_states, n_params = model_a::n_params,
                               n_observables = model_a::n_observables;
  static void touch(const T* x, const T* p, T* out) { asm volatile("" : : "r"(x), "r"(p), "r"(out) : "memory"); }
  void rhs(T, const T* x, std::ptrdiff_t, const T* p, std::ptrdiff_t, T* out, std::ptrdiff_t) const {
    touch(x, p, out);
  }
  void rhs(T, const T* x, const T* p, T* out) const { touch(x, p, out); }
  void observe(T, const T* x, std::ptrdiff_t, const T* p, std::ptrdiff_t, T* y, std::ptrdiff_t) const {
    touch(x, p, y);
  }
  void observe(T, const T* x, const T* p, T* y) const { touch(x, p, y); }
  void jvp_x(T, const T* x, const T* p, const T*, T* out) const { touch(x, p, out); }
  void jac_x(T, const T* x, const T* p, T* out) const { touch(x, p, out); }
  template <class L, class SX, class SP, class SO>
  void rhs_lanes(T, const T* x, SX, const T* p, SP, T* out, SO) const { touch(x, p, out); }
  template <class L, class SX, class SP, class SO>
  void observe_lanes(T, const T* x, SX, const T* p, SP, T* y, SO) const { touch(x, p, y); }
};

template <class T>
void rhs_no_arithmetic(const options& o, std::size_t B, order how) {
  using M = no_arithmetic<T>;
  model_a_batch<T> d(B, how);
  const double s = median_seconds(o.repeats, [&] {
    fx::host::rhs(M{}, T(0), B, d.as_batch(std::as_const(d.x)), d.as_batch(std::as_const(d.p)), d.as_batch(d.dx));
  });
  emit("rhs_no_arithmetic", name(how), sizeof(T) == 8 ? "f64" : "f32", B, 1, s,
       double(B) * (2.0 * M::n_states + M::n_params) * sizeof(T));
}

template <class T>
void jacobian(const options& o, std::size_t B, order how, unsigned threads) {
  using M = fx::compiled<model_a::model, T>;
  const char* dt = sizeof(T) == 8 ? "f64" : "f32";
  const std::size_t nnz = fx::jacobian_pattern<M, M::jacobian::x>().nnz();
  model_a_batch<T> d(B, how);
  std::vector<T> vals(nnz * B);
  const M m{};
  const auto out = how == order::aos ? fx::aos(std::span<T>(vals)) : fx::soa(std::span<T>(vals));
  const double s = median_seconds(std::max(3, o.repeats / 3), [&] {
    fx::host::jacobian_values<M, M::jacobian::x>(m, T(0), B, d.as_batch(std::as_const(d.x)),
                                                 d.as_batch(std::as_const(d.p)), out, nnz,
                                                 fx::host::threads(threads));
  });
  emit("jac_x_sparse_values", name(how), dt, B, threads, s,
       double(B) * (M::n_states + M::n_params + double(nnz)) * sizeof(T));
}

template <class T>
void run_dtype(const options& o) {
  for (const order how : {order::aos, order::soa, order::soa_pitch}) {
    for (const unsigned th : {1u, o.threads}) {
      rhs_and_observe<T>(o, o.batch, how, th, true);
      if (how != order::soa_pitch) jacobian<T>(o, std::min<std::size_t>(o.batch, 4096), how, th);
      if (o.threads == 1) break;
    }
    rhs_no_arithmetic<T>(o, o.batch, how);
  }
}

int usage() {
  std::fprintf(stderr, "usage: fluxion-bench --target host [--batch N] [--repeats R] [--threads N] [--sweep]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  std::string target;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--target" && has_value) target = argv[++i];
    else if (a == "--batch" && has_value) o.batch = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--repeats" && has_value) o.repeats = std::max(1, std::atoi(argv[++i]));
    else if (a == "--threads" && has_value) o.threads = unsigned(std::max(1, std::atoi(argv[++i])));
    else if (a == "--sweep") o.sweep = true;
    else return usage();
  }
  if (target != "host") {
    if (target == "device") std::fprintf(stderr, "fluxion-bench: the device benchmark is fluxion-bench-device\n");
    return usage();
  }
  if (o.batch == 0) return usage();
  std::printf("# fluxion-bench host: %u hardware threads, simd %zu bytes, %s\n",
              std::max(1u, std::thread::hardware_concurrency()), fx::host::simd_bytes_used, __VERSION__);
  run_dtype<double>(o);
  run_dtype<float>(o);
  if (o.sweep) {
    for (int e = 10; e <= 22; e += 2) {
      const std::size_t B = std::size_t(1) << e;
      for (const unsigned th : {1u, o.threads}) {
        for (const order how : {order::aos, order::soa, order::soa_pitch}) {
          if (how != order::soa && th != 1) continue;  // one thread is enough to show a layout's effect
          rhs_and_observe<double>(o, B, how, th, false);
          rhs_and_observe<float>(o, B, how, th, false);
        }
        if (o.threads == 1) break;
      }
    }
  }
  return 0;
}
