// host-bandwidth: what one thread of this machine moves to and from memory,
// the floor under any batch evaluation that does not fit in cache. Copies a
// 256 MiB buffer (read + write, as an evaluation reads its inputs and writes
// its outputs) and prints the median of 9 copies as one JSON line.
//   host-bandwidth [MiB]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const std::size_t n = mib << 20;
  std::vector<char> a(n, 1), b(n, 2);
  std::vector<double> s;
  for (int r = 0; r < 9; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), n);
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  volatile char sink = b[n / 2];
  (void)sink;
  // Bytes read plus bytes written (the write-allocate read is not counted).
  std::printf("{\"bench\": \"memcpy\", \"target\": \"host\", \"threads\": 1, \"MiB\": %zu, \"GBps\": %.2f}\n", mib,
              2.0 * double(n) / s[s.size() / 2] / 1e9);
  return 0;
}
