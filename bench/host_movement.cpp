// host-movement: what moving Model A's bytes costs one thread, with no
// arithmetic and no fluxion: the floor under any evaluation of a batch that
// does not fit in cache, however it is written. An instance of Model A reads
// 206 values (128 states, 78 parameters) and writes 128. Each hand-written
// mover below reads every input line of B instances (into an xor that the
// outputs depend on) and writes every output line with streaming stores:
//   one-stream    the instances one after another (array of structures):
//                 one input stream and one output stream, the fastest order
//                 for this machine's prefetchers;
//   soa-direct    structure of arrays (rows of B values, one row an
//                 element): a cache line of instances at a time, one line
//                 of each of the 334 rows;
//   soa-tiles-N   structure of arrays: N consecutive lines of every input
//                 row copied into a buffer, then read from there (the order
//                 of fluxion's SoA tiles); "-prefetch": the next tile's
//                 lines requested into L2 after each copy, as fluxion does.
// One JSON line a mover and dtype (the dtype fixes how many instances share
// a line), medians of 9 runs after a warm-up, the movers alternating.
//   host-movement [B]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#if defined(__SSE2__)
#  include <immintrin.h>
#endif

namespace {

constexpr std::size_t n_in = 128 + 78, n_out = 128, line_bytes = 64;
using line = long long __attribute__((vector_size(line_bytes)));

void stream_line(line* dst, line v) {
#if defined(__AVX512F__)
  _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), reinterpret_cast<__m512i&>(v));
#elif defined(__SSE2__)
  __m128i q[4];
  std::memcpy(q, &v, sizeof q);
  for (int k = 0; k < 4; ++k) _mm_stream_si128(reinterpret_cast<__m128i*>(dst) + k, q[k]);
#else
  *dst = v;
#endif
}
void streams_done() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Lines, 64-byte aligned, touched once before timing.
struct lines {
  line* data;
  explicit lines(std::size_t n) : data(static_cast<line*>(std::aligned_alloc(line_bytes, n * line_bytes))) {
    for (std::size_t i = 0; i < n; ++i) data[i] = line{} + static_cast<long long>(i);
  }
  ~lines() { std::free(data); }
  lines(const lines&) = delete;
  lines& operator=(const lines&) = delete;
};

// g: lines of instances (B values of one element = g lines). Every mover
// writes out[row j, line l] = in[row j, line l] ^ (xor of that line of all
// input rows), in its own order of the same lines.
void one_stream(const line* in, line* out, std::size_t g) {
  for (std::size_t l = 0; l < g; ++l, in += n_in, out += n_out) {
    line acc{};
    for (std::size_t j = 0; j < n_in; ++j) acc ^= in[j];
    for (std::size_t j = 0; j < n_out; ++j) stream_line(out + j, in[j] ^ acc);
  }
  streams_done();
}
void soa_direct(const line* in, line* out, std::size_t g) {
  for (std::size_t l = 0; l < g; ++l) {
    line acc{};
    for (std::size_t j = 0; j < n_in; ++j) acc ^= in[j * g + l];
    for (std::size_t j = 0; j < n_out; ++j) stream_line(out + j * g + l, in[j * g + l] ^ acc);
  }
  streams_done();
}
void soa_tiles(const line* in, line* out, std::size_t g, std::size_t tile, line* buffer, bool prefetch) {
  for (std::size_t t = 0; t < g; t += tile) {
    const std::size_t n = std::min(tile, g - t);
    for (std::size_t j = 0; j < n_in; ++j) std::memcpy(buffer + j * n, in + j * g + t, n * line_bytes);
    if (prefetch && t + 2 * tile <= g)  // the next tile, into L2
      for (std::size_t j = 0; j < n_in; ++j)
        for (std::size_t l = 0; l < tile; ++l) __builtin_prefetch(in + j * g + t + tile + l, 0, 2);
    for (std::size_t l = 0; l < n; ++l) {
      line acc{};
      for (std::size_t j = 0; j < n_in; ++j) acc ^= buffer[j * n + l];
      for (std::size_t j = 0; j < n_out; ++j) stream_line(out + j * g + t + l, buffer[j * n + l] ^ acc);
    }
  }
  streams_done();
}

struct mover {
  std::string name;
  void (*run)(const line*, line*, std::size_t, line*);
  bool soa;
};

template <std::size_t Tile, bool Prefetch>
void tiles(const line* in, line* out, std::size_t g, line* buffer) {
  soa_tiles(in, out, g, Tile, buffer, Prefetch);
}

void measure(const char* dtype, std::size_t value_bytes, std::size_t B) {
  const std::size_t g = std::max<std::size_t>(1, B * value_bytes / line_bytes);
  const std::vector<mover> movers = {
      {"one-stream", [](const line* i, line* o, std::size_t n, line*) { one_stream(i, o, n); }, false},
      {"soa-direct", [](const line* i, line* o, std::size_t n, line*) { soa_direct(i, o, n); }, true},
      {"soa-tiles-8", tiles<8, false>, true},
      {"soa-tiles-16", tiles<16, false>, true},
      {"soa-tiles-8-prefetch", tiles<8, true>, true},
      {"soa-tiles-16-prefetch", tiles<16, true>, true},
  };
  lines in(n_in * g), out(n_out * g), buffer(n_in * 16);
  std::vector<std::vector<double>> s(movers.size());
  for (int r = -1; r < 9; ++r)
    for (std::size_t k = 0; k < movers.size(); ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      movers[k].run(in.data, out.data, g, buffer.data);
      const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 0) s[k].push_back(sec);  // r = -1: warm-up
    }
  const double instances = double(g * line_bytes / value_bytes);
  for (std::size_t k = 0; k < movers.size(); ++k) {
    std::sort(s[k].begin(), s[k].end());
    const double sec = s[k][s[k].size() / 2];
    std::printf("{\"bench\": \"movement\", \"target\": \"host\", \"mover\": \"%s\", \"layout\": \"%s\", "
                "\"dtype\": \"%s\", \"B\": %.0f, \"threads\": 1, \"ns_per_instance\": %.2f, \"GBps\": %.2f}\n",
                movers[k].name.c_str(), movers[k].soa ? "soa" : "aos", dtype, instances, sec * 1e9 / instances,
                double((n_in + n_out) * g * line_bytes) / sec / 1e9);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t B = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 65536;
  measure("f64", 8, B);
  measure("f32", 4, B);
  return 0;
}
