// fluxion-qualify: proves on real hardware that device results are right.
//
// 1. CUDA initialization and a real device operation (a kernel whose result
//    is copied back and verified) before any case runs;
// 2. the fourteen device cases of tests/device (the same sources as the test
//    suite), all of which must execute, none fail and none skip;
// 3. --junitxml FILE (the cases as JUnit XML) and --receipt FILE (JSON: what
//    ran where, and the outcome).
// Exits 0 only when qualified; otherwise non-zero with one line
// "not qualified: <why>". Host execution is never reported as qualification.
#include <catch2/catch_session.hpp>

#include <cuda_runtime.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fluxion/config/version.hpp>

#ifndef FLUXION_GIT_COMMIT
#  define FLUXION_GIT_COMMIT "unknown"
#endif
#ifndef FLUXION_SOURCE_HASH
#  define FLUXION_SOURCE_HASH "unknown"
#endif

namespace {

constexpr int required_cases = 18;

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

__global__ void probe_kernel(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i] + 1.0f;
}

struct device_info {
  std::string name = "none", uuid = "none";
  int major = 0, minor = 0;
  std::size_t total_memory = 0, free_before = 0, free_after = 0;
  int runtime_version = 0, driver_version = 0;
};

// Empty when CUDA initializes and a kernel's result comes back right.
std::string check_device(device_info& info) {
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (count == 0) return "no CUDA device: cudaGetDeviceCount returned 0 devices";
  if ((err = cudaSetDevice(0)) != cudaSuccess) return std::string("cudaSetDevice(0) failed: ") + cudaGetErrorString(err);
  if ((err = cudaFree(nullptr)) != cudaSuccess) return std::string("CUDA context creation failed: ") + cudaGetErrorString(err);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  info.name = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.total_memory = prop.totalGlobalMem;
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                (unsigned char)prop.uuid.bytes[0], (unsigned char)prop.uuid.bytes[1], (unsigned char)prop.uuid.bytes[2],
                (unsigned char)prop.uuid.bytes[3], (unsigned char)prop.uuid.bytes[4], (unsigned char)prop.uuid.bytes[5],
                (unsigned char)prop.uuid.bytes[6], (unsigned char)prop.uuid.bytes[7], (unsigned char)prop.uuid.bytes[8],
                (unsigned char)prop.uuid.bytes[9], (unsigned char)prop.uuid.bytes[10], (unsigned char)prop.uuid.bytes[11],
                (unsigned char)prop.uuid.bytes[12], (unsigned char)prop.uuid.bytes[13], (unsigned char)prop.uuid.bytes[14],
                (unsigned char)prop.uuid.bytes[15]);
  info.uuid = uuid;
  std::size_t total = 0;
  cudaMemGetInfo(&info.free_before, &total);

  const int n = 4096;
  std::vector<float> a(n), b(n, 0.0f);
  for (int i = 0; i < n; ++i) a[i] = float(i) * 0.5f - 7.0f;
  float *da = nullptr, *db = nullptr;
  if ((err = cudaMalloc(&da, n * sizeof(float))) != cudaSuccess || (err = cudaMalloc(&db, n * sizeof(float))) != cudaSuccess)
    return std::string("cudaMalloc failed: ") + cudaGetErrorString(err);
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  probe_kernel<<<(n + 255) / 256, 256>>>(da, db, n);
  if ((err = cudaGetLastError()) != cudaSuccess) return std::string("probe kernel launch failed: ") + cudaGetErrorString(err);
  if ((err = cudaMemcpy(b.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return std::string("probe kernel failed: ") + cudaGetErrorString(err);
  cudaFree(da);
  cudaFree(db);
  for (int i = 0; i < n; ++i)
    if (b[i] != 2.0f * a[i] + 1.0f) return "probe kernel returned a wrong value at element " + std::to_string(i);
  return "";
}

int attribute(const std::string& xml, const char* name) {
  std::smatch m;
  const std::regex re(std::string("<testsuite [^>]*\\b") + name + "=\"([0-9]+)\"");
  return std::regex_search(xml, m, re) ? std::stoi(m[1]) : -1;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::string junit = "fluxion-qualify-junit.xml", receipt = "fluxion-qualify-receipt.json";
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--junitxml") junit = argv[++i];
    else if (a == "--receipt") receipt = argv[++i];
  }
  const std::string started = now_utc();
  device_info info;
  std::string why = check_device(info);
  int executed = 0, failures = 0, errors = 0, skipped = 0, catch_rc = -1;

  if (why.empty()) {
    std::vector<std::string> args = {"fluxion-qualify", "[device]", "--reporter", "JUnit::out=" + junit, "--reporter",
                                     "console::out=-::colour-mode=none"};
    std::vector<char*> cargs;
    for (auto& s : args) cargs.push_back(s.data());
    Catch::Session session;
    if (session.applyCommandLine(int(cargs.size()), cargs.data()) != 0) {
      why = "the Catch2 command line was rejected";
    } else {
      catch_rc = session.run();
      std::ifstream in(junit);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string xml = ss.str();
      const int tests = attribute(xml, "tests");
      failures = attribute(xml, "failures");
      errors = attribute(xml, "errors");
      skipped = attribute(xml, "skipped");
      if (tests < 0 || failures < 0 || errors < 0) {
        why = "the JUnit file " + junit + " could not be read back";
      } else {
        if (skipped < 0) skipped = 0;
        executed = tests - skipped;
        if (failures + errors > 0) why = std::to_string(failures + errors) + " device case(s) failed";
        else if (skipped > 0) why = std::to_string(skipped) + " device case(s) were skipped";
        else if (executed < required_cases) why = "only " + std::to_string(executed) + " device cases executed, " + std::to_string(required_cases) + " required";
        else if (catch_rc != 0) why = "the case runner returned " + std::to_string(catch_rc);
      }
    }
    std::size_t total = 0;
    cudaMemGetInfo(&info.free_after, &total);
  } else {
    std::ofstream out(junit);
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"fluxion-qualify\" errors=\"1\" "
           "failures=\"0\" skipped=\"0\" tests=\"1\">\n    <testcase classname=\"fluxion-qualify\" name=\"CUDA initialization and a device operation\">\n"
           "      <error message=" << json_string(why) << "/>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
  }

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const bool qualified = why.empty();
  std::ofstream r(receipt);
  r << "{\n"
    << "  \"tool\": \"fluxion-qualify\",\n"
    << "  \"fluxion_version\": " << json_string(fluxion::version_string) << ",\n"
    << "  \"git_commit\": " << json_string(FLUXION_GIT_COMMIT) << ",\n"
    << "  \"source_tree_hash\": " << json_string(FLUXION_SOURCE_HASH) << ",\n"
    << "  \"nvcc_version\": \"" << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << "." << __CUDACC_VER_BUILD__ << "\",\n"
    << "  \"host_compiler\": " << json_string(__VERSION__) << ",\n"
    << "  \"cuda_runtime_version\": " << info.runtime_version << ",\n"
    << "  \"cuda_driver_version\": " << info.driver_version << ",\n"
    << "  \"device\": {\"name\": " << json_string(info.name) << ", \"uuid\": " << json_string(info.uuid)
    << ", \"compute_capability\": \"" << info.major << "." << info.minor << "\", \"total_memory_bytes\": " << info.total_memory
    << "},\n"
    << "  \"device_memory_in_use_before_bytes\": " << (info.total_memory - info.free_before) * (info.free_before > 0) << ",\n"
    << "  \"device_memory_in_use_after_bytes\": " << (info.total_memory - info.free_after) * (info.free_after > 0) << ",\n"
    << "  \"peak_rss_kib\": " << usage.ru_maxrss << ",\n"
    << "  \"cases\": {\"required\": " << required_cases << ", \"executed\": " << executed << ", \"failed\": " << failures + errors
    << ", \"skipped\": " << skipped << "},\n"
    << "  \"junit\": " << json_string(junit) << ",\n"
    << "  \"started\": " << json_string(started) << ",\n"
    << "  \"ended\": " << json_string(now_utc()) << ",\n"
    << "  \"outcome\": " << json_string(qualified ? "qualified" : "not qualified") << ",\n"
    << "  \"reason\": " << json_string(qualified ? "" : why) << "\n"
    << "}\n";
  if (!qualified) {
    std::printf("not qualified: %s\n", why.c_str());
    return 1;
  }
  std::printf("qualified: %d device cases executed, 0 failed, 0 skipped on %s (%s)\n", executed, info.name.c_str(),
              info.uuid.c_str());
  return 0;
}
