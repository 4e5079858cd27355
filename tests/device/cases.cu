// The device cases (see cases.hpp). Oracles: the host evaluation of the same
// compiled type, the hand-written references of the fixture and the flat SIR
// model, central finite differences, and (case f) the dense Jacobian against
// the CSR values and the Jacobian-vector product.
#include "cases.hpp"
#include "device_support.hpp"

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>  // the host batches it compares with
#include <fluxion/layout/view.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/flat_models.hpp"
#include "support/hierarchy_fixture.hpp"

namespace fx = fluxion;

namespace device_cases {

std::string unavailable() {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(err) + " (" +
           cudaGetErrorString(err) + ")";
  }
  if (devices == 0) return "no CUDA device: cudaGetDeviceCount returned 0 devices";
  return "";
}

namespace {


template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, double> ? 1e-12 : 2e-5;  // device and host differ only by FMA contraction
}

constexpr std::size_t instances = 257;  // not a multiple of the block size

template <class T>
struct fixture_batch {
  std::vector<T> x, p;  // structure-of-arrays
  std::vector<hier::point<T>> points;
};

template <class T>
fixture_batch<T> make_fixture_batch(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  fixture_batch<T> b;
  b.x.resize(hier::flat::n_states * count);
  b.p.resize(hier::flat::n_params_connected * count);
  for (std::size_t i = 0; i < count; ++i) {
    b.points.push_back(hier::random_point<T>(rng, true));
    for (std::size_t j = 0; j < hier::flat::n_states; ++j) b.x[j * count + i] = b.points[i].x[j];
    for (std::size_t j = 0; j < hier::flat::n_params_connected; ++j) b.p[j * count + i] = b.points[i].p[j];
  }
  return b;
}

}  // namespace

template <class T>
result fixture_device_equals_host() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<hier::connected, T>;
  static_assert(std::is_same_v<typename M::scalar, T>, "the compiled type has the declared scalar type");
  const std::size_t B = instances;
  const auto in = make_fixture_batch<T>(B, 11);
  device_buffer<T> x(in.x), p(in.p), dx(M::n_states * B), y(M::n_observables * B);
  fx::cuda::rhs(M{}, T(0.5), B, x.cspan(), p.cspan(), dx.span());
  fx::cuda::observe(M{}, T(0.5), B, x.cspan(), p.cspan(), y.span());
  sync();

  cudaPointerAttributes attr{};
  fx::detail::check_cuda(cudaPointerGetAttributes(&attr, dx.ptr), "cudaPointerGetAttributes");
  if (attr.type != cudaMemoryTypeDevice) r.failures.push_back("the result does not lie in device memory");

  std::vector<T> host_dx(M::n_states * B), host_y(M::n_observables * B);
  fx::host::rhs(M{}, T(0.5), B, fx::soa(in.x), fx::soa(in.p), fx::soa(host_dx));
  fx::host::observe(M{}, T(0.5), B, fx::soa(in.x), fx::soa(in.p), fx::soa(host_y));
  const auto dev_dx = dx.download();
  const auto dev_y = y.download();
  compare(r, "rhs device vs host", dev_dx, host_dx, tolerance<T>());
  compare(r, "observe device vs host", dev_y, host_y, tolerance<T>());

  // Flat ordering and per-symbol shapes: read the device result through the
  // layout's views and compare with the hand-written reference, which is
  // indexed by the documented canonical order.
  const auto entries = M::layout::state::entries();
  if (entries[0].rank != 2 || entries[0].extents[0] != std::size_t(hier::H) || entries[0].extents[1] != std::size_t(hier::S) ||
      entries[1].rank != 1 || entries[1].extents[0] != std::size_t(hier::H))
    r.failures.push_back("the state block does not have the declared shapes X[habitat, stage], F[habitat]");
  const hier::reference<double> ref{true};
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::array<double, hier::flat::n_states> xd{}, want{};
    std::array<double, hier::flat::n_params_connected> pd{};
    for (std::size_t j = 0; j < xd.size(); ++j) xd[j] = double(in.points[b].x[j]);
    for (std::size_t j = 0; j < pd.size(); ++j) pd[j] = double(in.points[b].p[j]);
    ref.rhs(0.5, xd.data(), pd.data(), want.data());
    const auto Xv = fx::view<typename M::layout::state>(hier::X, dev_dx.data() + b, std::ptrdiff_t(B));
    const auto Fv = fx::view<typename M::layout::state>(hier::F, dev_dx.data() + b, std::ptrdiff_t(B));
    for (int hh = 0; hh < hier::H; ++hh) {
      for (int ss = 0; ss < hier::S; ++ss) {
        const double w = want[hier::flat::X + std::size_t(hh * hier::S + ss)];
        worst = std::fmax(worst, std::fabs(double(Xv(hh, ss)) - w) / std::fmax(1.0, std::fabs(w)));
      }
      const double w = want[hier::flat::F + std::size_t(hh)];
      worst = std::fmax(worst, std::fabs(double(Fv(hh)) - w) / std::fmax(1.0, std::fabs(w)));
    }
  }
  const double oracle_tol = std::is_same_v<T, double> ? 1e-12 : 1e-4;
  if (!(worst <= oracle_tol))
    r.failures.push_back("device result vs the hand-written reference through the layout's views: " + std::to_string(worst));

  if (!bitwise_equal(x.download(), in.x) || !bitwise_equal(p.download(), in.p))
    r.failures.push_back("the device inputs were modified");
  r.summary = "fixture (coupled habitats), " + std::to_string(B) + " SoA instances; worst vs reference " + std::to_string(worst);
  return r;
}

template <class T>
result strided_device_state() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<hier::connected, T>;
  const std::size_t B = instances, n = M::n_states;
  const auto in = make_fixture_batch<T>(B, 12);
  device_buffer<T> x(in.x), p(in.p), dx(n * B);
  fx::cuda::rhs(M{}, T(0.25), B, x.cspan(), p.cspan(), dx.span());
  sync();
  const auto soa_dx = dx.download();

  // Each instance's state embedded in a wider record: 3 padding values, the
  // state, 2 padding values; the derivative likewise in its own records.
  const std::size_t record = n + 5, lead = 3;
  const T sentinel = T(-777.25);
  std::vector<T> xr(record * B, sentinel), dxr(record * B, sentinel);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < n; ++j) xr[b * record + lead + j] = in.x[j * B + b];
  device_buffer<T> xrd(xr), dxrd(dxr);
  fx::cuda::rhs(M{}, T(0.25), B, fx::strided(xrd.cspan().subspan(lead), 1, std::ptrdiff_t(record)), fx::soa(p.cspan()),
                fx::strided(dxrd.span().subspan(lead), 1, std::ptrdiff_t(record)));
  sync();
  const auto got = dxrd.download();
  std::size_t mismatches = 0, padding_touched = 0;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < record; ++j) {
      const T v = got[b * record + j];
      if (j < lead || j >= lead + n) padding_touched += !(v == sentinel);
      else mismatches += !(v == soa_dx[(j - lead) * B + b]);
    }
  }
  if (mismatches) r.failures.push_back("embedded-record result differs from SoA in " + std::to_string(mismatches) + " values");
  if (padding_touched) r.failures.push_back("padding around the embedded states was written: " + std::to_string(padding_touched));

  // Pitched structure-of-arrays rows (fx::soa(span, pitch)): the same values,
  // the padding past the B instances of each row untouched.
  const std::size_t pitch = fx::soa_pitch<T>(B + 1);
  std::vector<T> xp(n * pitch, sentinel), dxp(n * pitch, sentinel);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t b = 0; b < B; ++b) xp[j * pitch + b] = in.x[j * B + b];
  device_buffer<T> xpd(xp), dxpd(dxp);
  fx::cuda::rhs(M{}, T(0.25), B, fx::soa(xpd.cspan(), pitch), fx::soa(p.cspan()), fx::soa(dxpd.span(), pitch));
  sync();
  const auto got_pitched = dxpd.download();
  std::size_t pitched_mismatches = 0, pitch_padding_touched = 0;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t b = 0; b < pitch; ++b) {
      const T v = got_pitched[j * pitch + b];
      if (b < B) pitched_mismatches += !(v == soa_dx[j * B + b]);
      else pitch_padding_touched += !(v == sentinel);
    }
  if (pitched_mismatches)
    r.failures.push_back("pitched SoA result differs from SoA in " + std::to_string(pitched_mismatches) + " values");
  if (pitch_padding_touched)
    r.failures.push_back("padding past the pitched rows' instances was written: " + std::to_string(pitch_padding_touched));

  std::vector<T> host(n * B);
  fx::host::rhs(M{}, T(0.25), B, fx::soa(in.x), fx::soa(in.p), fx::soa(host));
  compare(r, "SoA device vs host", soa_dx, host, tolerance<T>());
  r.summary = "SoA, pitched SoA (pitch " + std::to_string(pitch) + ") and padded AoS records (stride " +
              std::to_string(record) + ") agree bitwise";
  return r;
}

template <class T>
result constants_and_time() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using Ref = flat::sir::reference;
  using M = fx::compiled<flat::sir::model, T>;
  const std::size_t B = instances;
  std::mt19937 rng(13);
  std::vector<T> x(Ref::n_states * B), p(Ref::n_params * B);
  std::vector<flat::point<Ref, T>> pts;
  for (std::size_t b = 0; b < B; ++b) {
    pts.push_back(flat::random_point<Ref, T>(rng));
    for (std::size_t j = 0; j < Ref::n_states; ++j) x[j * B + b] = pts[b].x[j];
    for (std::size_t j = 0; j < Ref::n_params; ++j) p[j * B + b] = pts[b].p[j];
  }
  const T t = T(123.375);  // a native scalar of the evaluation's type
  device_buffer<T> xd(x), pd(p), dx(Ref::n_states * B), y(Ref::n_observables * B);
  fx::cuda::rhs(M{}, t, B, xd.cspan(), pd.cspan(), dx.span());
  fx::cuda::observe(M{}, t, B, xd.cspan(), pd.cspan(), y.span());
  sync();
  const auto got = dx.download();
  const auto goty = y.download();
  std::vector<double> want(Ref::n_states * B), wanty(Ref::n_observables * B);
  for (std::size_t b = 0; b < B; ++b) {
    double xs[3], ps[3], d[3], o[2];
    for (int j = 0; j < 3; ++j) xs[j] = double(pts[b].x[j]), ps[j] = double(pts[b].p[j]);
    Ref::rhs(double(t), xs, ps, d);
    Ref::observe(double(t), xs, ps, o);
    for (int j = 0; j < 3; ++j) want[std::size_t(j) * B + b] = d[j];
    for (int j = 0; j < 2; ++j) wanty[std::size_t(j) * B + b] = o[j];
  }
  // Relative to the size of the flows (dS + dI + dR cancels).
  const double tol = std::is_same_v<T, double> ? 1e-10 : 1e-3;
  compare(r, "seasonal SIR rhs on the device vs the hand-written reference", got, want, tol);
  compare(r, "seasonal SIR observables on the device vs the hand-written reference", goty, wanty, tol);
  r.summary = "flat SIR with a named constant, literals and fx::t at t = 123.375";
  return r;
}

template <class T>
result layout_errors_before_launch() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<hier::connected, T>;
  const std::size_t B = instances, n = M::n_states, np = M::n_params;
  const auto in = make_fixture_batch<T>(B, 14);
  device_buffer<T> x(in.x), p(in.p), out(n * B);
  const std::vector<T> sentinel(n * B, T(-5.5));
  out.upload(sentinel);
  std::vector<T> host_x = in.x;
  int rejected = 0;
  auto expect_rejected = [&](const char* what, auto&& call) {
    try {
      call();
      r.failures.push_back(std::string(what) + ": accepted");
    } catch (const fx::layout_error&) {
      ++rejected;
    } catch (const std::exception& e) {
      r.failures.push_back(std::string(what) + ": wrong exception: " + e.what());
    }
    sync();
    if (!bitwise_equal(out.download(), sentinel)) r.failures.push_back(std::string(what) + ": the output was written");
  };
  expect_rejected("output too small", [&] { fx::cuda::rhs(M{}, T(0), B, x.cspan(), p.cspan(), out.span().first(n * B - 1)); });
  expect_rejected("state too small", [&] { fx::cuda::rhs(M{}, T(0), B, x.cspan().first(n), p.cspan(), out.span()); });
  expect_rejected("null parameters", [&] { fx::cuda::rhs(M{}, T(0), B, x.cspan(), std::span<const T>(static_cast<const T*>(nullptr), np * B), out.span()); });
  expect_rejected("host pointer as device state", [&] { fx::cuda::rhs(M{}, T(0), B, std::span<const T>(host_x), p.cspan(), out.span()); });
  expect_rejected("output overlapping the state", [&] {
    fx::cuda::rhs(M{}, T(0), B, fx::soa(std::span<const T>(out.ptr, n * B)), fx::soa(p.cspan()), fx::soa(out.span()));
  });
  expect_rejected("output instance stride 0", [&] { fx::cuda::rhs(M{}, T(0), B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::strided(out.span(), 1, 0)); });
  expect_rejected("element stride 0", [&] { fx::cuda::rhs(M{}, T(0), B, fx::strided(x.cspan(), 0, 1), fx::soa(p.cspan()), fx::soa(out.span())); });
  expect_rejected("misaligned output", [&] {
    auto* bytes = reinterpret_cast<unsigned char*>(out.ptr) + 1;
    fx::cuda::rhs(M{}, T(0), B / 2, x.cspan(), p.cspan(), std::span<T>(reinterpret_cast<T*>(bytes), n * (B / 2)));
  });
  if (!bitwise_equal(x.download(), in.x)) r.failures.push_back("the state input was modified");
  r.summary = std::to_string(rejected) + " of 8 wrong buffers rejected before launch, output bitwise untouched";
  return r;
}

template <class T>
result jacobians_on_device() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<hier::connected, T>;
  using MD = fx::compiled<hier::connected, double>;
  using J = typename M::jacobian;
  const std::size_t B = 33, n = M::n_states, np = M::n_params, no = M::n_observables;
  const auto in = make_fixture_batch<T>(B, 15);
  const auto pattern = fx::jacobian_pattern<M, J::x>();
  device_buffer<T> x(in.x), p(in.p), vals(pattern.nnz() * B), jp(n * np * B), ojx(no * n * B);
  fx::cuda::jacobian_values<M, J::x>(M{}, T(0), B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::soa(vals.span()), pattern.nnz());
  fx::cuda::jacobian_dense<M, J::p>(M{}, T(0), B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::soa(jp.span()));
  fx::cuda::jacobian_dense<M, J::obs_x>(M{}, T(0), B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::soa(ojx.span()));
  sync();
  std::vector<T> hv(pattern.nnz() * B), hjp(n * np * B), hojx(no * n * B);
  fx::host::jacobian_values<M, J::x>(M{}, T(0), B, fx::soa(in.x), fx::soa(in.p), fx::soa(hv), pattern.nnz());
  fx::host::jacobian_dense<M, J::p>(M{}, T(0), B, fx::soa(in.x), fx::soa(in.p), fx::soa(hjp));
  fx::host::jacobian_dense<M, J::obs_x>(M{}, T(0), B, fx::soa(in.x), fx::soa(in.p), fx::soa(hojx));
  const auto dv = vals.download(), djp = jp.download(), dojx = ojx.download();
  compare(r, "jac_x values device vs host", dv, hv, tolerance<T>() * 10);
  compare(r, "jac_p device vs host", djp, hjp, tolerance<T>() * 10);
  compare(r, "obs_jac_x device vs host", dojx, hojx, tolerance<T>() * 10);

  // Central differences of the double-precision rhs and observables at each
  // instance's point (rounded to T), against the device values.
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> xb(n), pb(np);
    for (std::size_t j = 0; j < n; ++j) xb[j] = double(in.x[j * B + b]);
    for (std::size_t j = 0; j < np; ++j) pb[j] = double(in.p[j * B + b]);
    std::vector<double> fp(n), fm(n), op(no), om(no);
    for (std::size_t c = 0; c < n; ++c) {
      const double h = 1e-6 * std::fmax(1.0, std::fabs(xb[c]));
      auto xp = xb, xm = xb;
      xp[c] += h;
      xm[c] -= h;
      MD{}.rhs(0.0, xp.data(), pb.data(), fp.data());
      MD{}.rhs(0.0, xm.data(), pb.data(), fm.data());
      MD{}.observe(0.0, xp.data(), pb.data(), op.data());
      MD{}.observe(0.0, xm.data(), pb.data(), om.data());
      for (std::size_t row = 0; row < n; ++row) {
        const double fd = (fp[row] - fm[row]) / (2 * h);
        double dev = 0;  // the device value, or 0 outside the pattern
        for (int k = pattern.row_ptr[row]; k < pattern.row_ptr[row + 1]; ++k)
          if (std::size_t(pattern.col_idx[std::size_t(k)]) == c) dev = double(dv[std::size_t(k) * B + b]);
        worst = std::fmax(worst, std::fabs(dev - fd) / std::fmax(1.0, std::fabs(fd)));
      }
      for (std::size_t row = 0; row < no; ++row) {
        const double fd = (op[row] - om[row]) / (2 * h);
        worst = std::fmax(worst, std::fabs(double(dojx[(row * n + c) * B + b]) - fd) / std::fmax(1.0, std::fabs(fd)));
      }
    }
    for (std::size_t c = 0; c < np; ++c) {
      const double h = 1e-6 * std::fmax(1.0, std::fabs(pb[c]));
      auto pp = pb, pm = pb;
      pp[c] += h;
      pm[c] -= h;
      MD{}.rhs(0.0, xb.data(), pp.data(), fp.data());
      MD{}.rhs(0.0, xb.data(), pm.data(), fm.data());
      for (std::size_t row = 0; row < n; ++row) {
        const double fd = (fp[row] - fm[row]) / (2 * h);
        worst = std::fmax(worst, std::fabs(double(djp[(row * np + c) * B + b]) - fd) / std::fmax(1.0, std::fabs(fd)));
      }
    }
  }
  // max() of the observables has kinks; random points keep clear of them.
  const double fd_tol = std::is_same_v<T, double> ? 1e-6 : 1e-3;
  if (!(worst <= fd_tol)) r.failures.push_back("device Jacobians vs central differences: " + std::to_string(worst));
  r.summary = "jac_x (CSR, nnz " + std::to_string(pattern.nnz()) + "), jac_p and obs_jac_x; worst vs finite differences " +
              std::to_string(worst);
  return r;
}

// The deduced-model forms (fx::cuda::jacobian_*<J>(m, ...), fx::jacobian_pattern<J>(m))
// called from a non-template function: there the <M, J> forms do not compile
// with nvcc, whose generated host code cannot spell a model type written as a
// template argument. Compiling this file is half of the test.
using deduced_model = fx::compiled<hier::connected, double>;
std::size_t launch_deduced_forms(const double* x, const double* p, double* dense, double* values, std::size_t B) {
  const auto pattern = fx::jacobian_pattern<deduced_model::jacobian::x>(deduced_model{});
  const std::size_t n = deduced_model::n_states, np = deduced_model::n_params;
  fx::cuda::jacobian_dense<deduced_model::jacobian::x>(deduced_model{}, 0.5, B, std::span<const double>(x, n * B),
                                                        std::span<const double>(p, np * B), std::span<double>(dense, n * n * B));
  fx::cuda::jacobian_values<deduced_model::jacobian::x>(deduced_model{}, 0.5, B, fx::soa(std::span<const double>(x, n * B)),
                                                         fx::soa(std::span<const double>(p, np * B)),
                                                         fx::soa(std::span<double>(values, pattern.nnz() * B)), pattern.nnz());
  return pattern.nnz();
}

template <class T>
result jacobian_launchers_spans_and_batches() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<hier::connected, T>;
  using J = typename M::jacobian;
  const std::size_t B = 65, n = M::n_states, np = M::n_params;
  const T t = T(0.5);
  const auto in = make_fixture_batch<T>(B, 16);
  const auto pattern = fx::jacobian_pattern<M, J::x>();
  const std::size_t nnz = pattern.nnz();
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<T> vx(n * B), vp(np * B);
  for (auto& v : vx) v = T(unit(rng));
  for (auto& v : vp) v = T(unit(rng));

  // 1. Plain spans of device memory (structure-of-arrays), as fx::cuda::rhs takes them.
  device_buffer<T> x(in.x), p(in.p), vxd(vx), vpd(vp), jx(n * n * B), vals(nnz * B), ox(n * B), op(n * B);
  fx::cuda::jacobian_dense<M, J::x>(M{}, t, B, x.cspan(), p.cspan(), jx.span());
  fx::cuda::jacobian_values<M, J::x>(M{}, t, B, x.cspan(), p.cspan(), vals.span(), nnz);
  fx::cuda::jvp_x(M{}, t, B, x.cspan(), p.cspan(), vxd.cspan(), ox.span());
  fx::cuda::jvp_p(M{}, t, B, x.cspan(), p.cspan(), vpd.cspan(), op.span());
  sync();
  const auto djx = jx.download(), dvals = vals.download(), dox = ox.download(), dop = op.download();

  std::vector<T> hjx(n * n * B), hvals(nnz * B), hox(n * B), hop(n * B);
  fx::host::jacobian_dense<M, J::x>(M{}, t, B, fx::soa(in.x), fx::soa(in.p), fx::soa(hjx));
  fx::host::jacobian_values<M, J::x>(M{}, t, B, fx::soa(in.x), fx::soa(in.p), fx::soa(hvals), nnz);
  fx::host::jvp_x(M{}, t, B, fx::soa(in.x), fx::soa(in.p), fx::soa(vx), fx::soa(hox));
  fx::host::jvp_p(M{}, t, B, fx::soa(in.x), fx::soa(in.p), fx::soa(vp), fx::soa(hop));
  compare(r, "dense jac_x (spans) device vs host", djx, hjx, tolerance<T>() * 10);
  compare(r, "jac_x values (spans) device vs host", dvals, hvals, tolerance<T>() * 10);
  compare(r, "jvp_x (spans) device vs host", dox, hox, tolerance<T>() * 10);
  compare(r, "jvp_p (spans) device vs host", dop, hop, tolerance<T>() * 10);

  // The device results agree with each other: the CSR values are the dense
  // matrix's entries, bit for bit (and the dense matrix is zero outside the pattern), and
  // jvp_x is the dense matrix times v, summed here in double.
  std::size_t value_mismatches = 0, outside_nonzero = 0;
  double worst_jvp = 0;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t row = 0; row < n; ++row) {
      std::vector<bool> in_pattern(n, false);
      for (int k = pattern.row_ptr[row]; k < pattern.row_ptr[row + 1]; ++k) {
        const std::size_t col = std::size_t(pattern.col_idx[std::size_t(k)]);
        in_pattern[col] = true;
        const double dense = double(djx[(row * n + col) * B + b]), value = double(dvals[std::size_t(k) * B + b]);
        value_mismatches += !(dense == value);  // the same entries, bit for bit
      }
      double sum = 0, scale = 1;
      for (std::size_t col = 0; col < n; ++col) {
        const double e = double(djx[(row * n + col) * B + b]);
        if (!in_pattern[col]) outside_nonzero += !(e == 0);
        sum += e * double(vx[col * B + b]);
        scale += std::fabs(e * double(vx[col * B + b]));
      }
      worst_jvp = std::fmax(worst_jvp, std::fabs(double(dox[row * B + b]) - sum) / scale);
    }
  }
  if (value_mismatches) r.failures.push_back("CSR values differ from the dense entries in " + std::to_string(value_mismatches));
  if (outside_nonzero) r.failures.push_back("dense entries outside the pattern are not zero: " + std::to_string(outside_nonzero));
  if (!(worst_jvp <= tolerance<T>() * 10))
    r.failures.push_back("jvp_x vs dense jac_x times v: relative difference " + std::to_string(worst_jvp));

  // 2. The batch forms give the same values bitwise.
  const T sentinel = T(-333.5);
  // fx::broadcast parameters: instance 0's set for everyone, against spans of it replicated.
  std::vector<T> p0(np), prep(np * B);
  for (std::size_t j = 0; j < np; ++j) {
    p0[j] = in.p[j * B];
    for (std::size_t b = 0; b < B; ++b) prep[j * B + b] = p0[j];
  }
  device_buffer<T> p0d(p0), prepd(prep), jpa(n * np * B), jpb(n * np * B);
  fx::cuda::jacobian_dense<M, J::p>(M{}, t, B, x.cspan(), prepd.cspan(), jpa.span());
  fx::cuda::jacobian_dense<M, J::p>(M{}, t, B, fx::soa(x.cspan()), fx::broadcast(p0d.cspan()), fx::soa(jpb.span()));
  // Pitched structure-of-arrays values, padding past the instances untouched.
  const std::size_t pitch = fx::soa_pitch<T>(B + 1);
  device_buffer<T> valsp(std::vector<T>(nnz * pitch, sentinel));
  fx::cuda::jacobian_values<M, J::x>(M{}, t, B, fx::soa(x.cspan()), fx::soa(p.cspan()), fx::soa(valsp.span(), pitch), nnz);
  // jvp_x with states, direction and result embedded in padded records (fx::strided).
  const std::size_t record = n + 3, lead = 2;
  std::vector<T> xr(record * B, sentinel), vr(record * B, sentinel);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < n; ++j) {
      xr[b * record + lead + j] = in.x[j * B + b];
      vr[b * record + lead + j] = vx[j * B + b];
    }
  device_buffer<T> xrd(xr), vrd(vr), outr(std::vector<T>(record * B, sentinel));
  fx::cuda::jvp_x(M{}, t, B, fx::strided(xrd.cspan().subspan(lead), 1, std::ptrdiff_t(record)), fx::soa(p.cspan()),
                  fx::strided(vrd.cspan().subspan(lead), 1, std::ptrdiff_t(record)),
                  fx::strided(outr.span().subspan(lead), 1, std::ptrdiff_t(record)));
  sync();
  if (!bitwise_equal(jpa.download(), jpb.download()))
    r.failures.push_back("jac_p with fx::broadcast parameters differs from spans of the replicated set");
  const auto gotp = valsp.download();
  std::size_t pitched_mismatch = 0, pitched_padding = 0;
  for (std::size_t k = 0; k < nnz; ++k)
    for (std::size_t b = 0; b < pitch; ++b) {
      if (b < B) pitched_mismatch += !(gotp[k * pitch + b] == dvals[k * B + b]);
      else pitched_padding += !(gotp[k * pitch + b] == sentinel);
    }
  if (pitched_mismatch) r.failures.push_back("pitched jac_x values differ from spans in " + std::to_string(pitched_mismatch));
  if (pitched_padding) r.failures.push_back("padding of the pitched values was written: " + std::to_string(pitched_padding));
  const auto gotr = outr.download();
  std::size_t record_mismatch = 0, record_padding = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < record; ++j) {
      const T v = gotr[b * record + j];
      if (j < lead || j >= lead + n) record_padding += !(v == sentinel);
      else record_mismatch += !(v == dox[(j - lead) * B + b]);
    }
  if (record_mismatch) r.failures.push_back("jvp_x in padded records differs from spans in " + std::to_string(record_mismatch));
  if (record_padding) r.failures.push_back("padding around the jvp_x records was written: " + std::to_string(record_padding));

  // 3. The deduced-model forms give the same values bitwise (double only).
  if constexpr (std::is_same_v<T, double>) {
    device_buffer<T> jd(n * n * B), vd(nnz * B);
    const std::size_t nnz_deduced = launch_deduced_forms(x.cspan().data(), p.cspan().data(), jd.span().data(),
                                                         vd.span().data(), B);
    sync();
    if (nnz_deduced != nnz) r.failures.push_back("jacobian_pattern<J>(m) differs from jacobian_pattern<M, J>()");
    if (!bitwise_equal(jd.download(), djx) || !bitwise_equal(vd.download(), dvals))
      r.failures.push_back("the deduced-model Jacobian launchers differ from the <M, J> forms");
  }

  // 4. A host span, a short output and a wrong nnz are rejected before launch, the output untouched.
  device_buffer<T> untouched(std::vector<T>(n * B, sentinel)), untouched_vals(std::vector<T>(nnz * B, sentinel));
  try {
    fx::cuda::jvp_x(M{}, t, B, x.cspan(), p.cspan(), std::span<const T>(vx), untouched.span());
    r.failures.push_back("jvp_x accepted a host direction");
  } catch (const fx::layout_error&) {
  }
  try {
    fx::cuda::jacobian_values<M, J::x>(M{}, t, B, x.cspan(), p.cspan(), untouched_vals.span().first(nnz * B - 1), nnz);
    r.failures.push_back("jacobian_values accepted a too small output span");
  } catch (const fx::layout_error&) {
  }
  try {  // room enough, but not the pattern's nnz (the count of nvcc's host pass)
    fx::cuda::jacobian_values<M, J::x>(M{}, t, B, x.cspan(), p.cspan(), untouched_vals.span(), nnz - 1);
    r.failures.push_back("jacobian_values accepted an nnz other than the pattern's");
  } catch (const fx::layout_error&) {
  }
  sync();
  if (!bitwise_equal(untouched.download(), std::vector<T>(n * B, sentinel)) ||
      !bitwise_equal(untouched_vals.download(), std::vector<T>(nnz * B, sentinel)))
    r.failures.push_back("a rejected launch wrote its output");
  if (!bitwise_equal(x.download(), in.x) || !bitwise_equal(vxd.download(), vx))
    r.failures.push_back("the device inputs were modified");
  r.summary = "jacobian_dense, jacobian_values, jvp_x, jvp_p over spans == host; CSR == dense, jvp_x == J v (worst " +
              std::to_string(worst_jvp) + "); broadcast, pitched SoA and strided records bitwise equal";
  return r;
}

#define FLUXION_INSTANTIATE(T)                              \
  template result fixture_device_equals_host<T>();          \
  template result strided_device_state<T>();                \
  template result constants_and_time<T>();                  \
  template result layout_errors_before_launch<T>();         \
  template result jacobians_on_device<T>();                 \
  template result jacobian_launchers_spans_and_batches<T>();
FLUXION_INSTANTIATE(float)
FLUXION_INSTANTIATE(double)
#undef FLUXION_INSTANTIATE

}  // namespace device_cases
