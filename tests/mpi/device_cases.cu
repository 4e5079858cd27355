// The mpi suite's device cases (device_cases.hpp says what each does).
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>
#include <fluxion/mpi/cuda.hpp>

#include "device/device_support.hpp"  // device_buffer
#include "device_cases.hpp"
#include "mpi/mpi_support.hpp"
#include "support/lorenz63.hpp"

namespace fx = fluxion;

namespace mpi_device_cases {

namespace {

using device_cases::device_buffer;
using mpi_support::error_of;

using lorenz = fx::compiled<lorenz63::lorenz, double>;
constexpr std::size_t G = 37;
const double save_at[] = {0.5, 1.0};
const fx::ode_problem<double> problem{.t0 = 0, .t1 = 1, .save_times = save_at, .rtol = 1e-8, .atol = 1e-8};

std::vector<double> lorenz_x0() {
  std::vector<double> x(3 * G);
  for (std::size_t b = 0; b < G; ++b) {
    x[b] = 1.0 + 0.1 * double(b);
    x[G + b] = 1.0;
    x[2 * G + b] = 20.0;
  }
  return x;
}
std::vector<double> lorenz_p() {
  std::vector<double> p(3 * G);
  for (std::size_t b = 0; b < G; ++b) {
    p[b] = 10.0;
    p[G + b] = 28.0 + 0.01 * double(b);
    p[2 * G + b] = 8.0 / 3.0;
  }
  return p;
}

}  // namespace

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::string select_device(MPI_Comm comm, bool share) {
  int device = -1;
  const std::string e = error_of([&] { device = fx::mpi::select_device(comm, {.share = share}); });
  return e == "none" ? "device " + std::to_string(device) : e;
}

std::string integrate_host_buffers(MPI_Comm comm) {
  const auto x0 = lorenz_x0(), p = lorenz_p();
  const auto o = fx::mpi::owned_range(G, fx::mpi::rank_of(comm), fx::mpi::size_of(comm));
  std::vector<double> saved(2 * 3 * o.size()), fin(3 * o.size());
  std::vector<fx::solve_status> st(o.size());
  return error_of([&] {
    fx::mpi::cuda::integrate(comm, lorenz{}, fx::tsit5{}, problem, G, fx::soa(std::span<const double>(x0)),
                             fx::soa(std::span<const double>(p)), fx::ensemble_buffers<double>{saved, fin, st});
  });
}

std::string integrate_dynamic(MPI_Comm comm) {
  const auto x0 = lorenz_x0(), p = lorenz_p();
  fx::mpi::distribution d;
  d.kind = fx::mpi::schedule::dynamic;
  return error_of([&] {
    fx::mpi::cuda::integrate(comm, lorenz{}, fx::tsit5{}, problem, G, fx::soa(std::span<const double>(x0)),
                             fx::soa(std::span<const double>(p)), fx::ensemble_buffers<double>{}, nullptr, d);
  });
}

std::string lorenz_across_gpus(MPI_Comm comm) {
  std::string result = "same";
  const std::string e = error_of([&] {
    fx::mpi::select_device(comm, {.share = true});
    const auto o = fx::mpi::owned_range(G, fx::mpi::rank_of(comm), fx::mpi::size_of(comm));
    const device_buffer<double> x0(lorenz_x0()), p(lorenz_p());
    const auto in_x0 = fx::soa(std::span<const double>(x0.ptr, x0.n));
    const auto in_p = fx::soa(std::span<const double>(p.ptr, p.n));
    // The whole batch on this rank's GPU, in one process's call.
    device_buffer<double> saved_all(2 * 3 * G), fin_all(3 * G);
    device_buffer<fx::solve_status> st_all(G);
    fx::cuda::integrate(lorenz{}, fx::tsit5{}, problem, G, in_x0, in_p,
                        fx::ensemble_buffers<double>{saved_all.span(), fin_all.span(), st_all.span()});
    // This rank's range across the ranks.
    device_buffer<double> saved(2 * 3 * o.size()), fin(3 * o.size());
    device_buffer<fx::solve_status> st(o.size());
    fx::mpi::cuda::integrate(comm, lorenz{}, fx::tsit5{}, problem, G, in_x0, in_p,
                             fx::ensemble_buffers<double>{saved.span(), fin.span(), st.span()});
    fx::detail::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const auto all = fin_all.download(), mine = fin.download();
    const auto all_saved = saved_all.download(), mine_saved = saved.download();
    for (std::size_t i = 0; i < 3; ++i)
      if (std::memcmp(&all[i * G + o.begin], &mine[i * o.size()], o.size() * sizeof(double)) != 0) result = "differ";
    for (std::size_t row = 0; row < 2 * 3; ++row)
      if (std::memcmp(&all_saved[row * G + o.begin], &mine_saved[row * o.size()], o.size() * sizeof(double)) != 0)
        result = "differ";
  });
  return e == "none" ? result : e;
}

}  // namespace mpi_device_cases
