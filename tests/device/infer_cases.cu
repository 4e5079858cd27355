// Device case i: the six observation densities, exact and censored, with
// their partials, and trajectory log-densities and their gradients on the device
// (fx::cuda::log_density) agree with the host's (fx::host::log_density),
// which tests/infer/log_density.cpp checks against closed forms and the
// complex step of a hand-written solver. An SEIR observed through a
// negative binomial (exact, masked, right-, left- and interval-censored
// points) and a log-normal series, with priors, 256 parameter sets; the
// value-only path; series at their own times, events at given times and an
// input from data by every strategy; bad data and host pointers refused before launch with the
// outputs untouched.
#include "cases.hpp"
#include "device_support.hpp"

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>  // the host batches it compares with

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fx = fluxion;

namespace device_cases {

namespace {

// SEIR with two observables: reported incidence rho sigma E and prevalence I.
constexpr fx::state<"S"> S;
constexpr fx::state<"E"> E;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"phi"> phi;
constexpr fx::param<"tau"> tau;
constexpr auto force = fx::alias<"force">(beta * I / (S + E + I + R));
constexpr auto seir2 = fx::model(fx::states(S, E, I, R), fx::params(beta, sigma, gam, rho, phi, tau),  //
                                 fx::d(S) = -force * S,                                                 //
                                 fx::d(E) = force * S - sigma * E,                                      //
                                 fx::d(I) = sigma * E - gam * I,                                        //
                                 fx::d(R) = gam * I,                                                    //
                                 fx::observe<"reported">() = rho * sigma * E,                           //
                                 fx::observe<"prevalence">() = I);

// Every observation density on the device: exact and censored
// log-likelihoods with their partials through the same function the
// log-density uses (detail::observation_term), on a grid of data,
// locations and the densities' other parameters.
template <class Family, class T, int E = Family::parameter_count - 1>
__global__ void family_kernel(const fx::observation<T>* obs, const T* trials, const T* mu, const T* extra, int count,
                              T* out) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  const auto r = fx::detail::observation_term<Family>(obs[i], trials[i], mu[i], extra + i,
                                                      std::make_integer_sequence<int, E>{});
  out[3 * i] = r.value;
  for (int g = 0; g < 2; ++g) out[3 * i + 1 + g] = g < Family::parameter_count ? r.grad[g] : T(0);
}

template <class Family, class T>
void family_on_device(result& r, const std::vector<double>& ys, const std::vector<double>& mus,
                      const std::vector<double>& extras, double trials) {
  constexpr int E = Family::parameter_count - 1;
  using O = fx::observation<T>;
  std::vector<O> obs;
  std::vector<T> tr, mu, ex;
  for (double yv : ys)
    for (double m : mus)
      for (double e : extras)
        for (int kind = 0; kind < 4; ++kind) {
          obs.push_back(kind == 0   ? O::exact(T(yv))
                        : kind == 1 ? O::left(T(yv))
                        : kind == 2 ? O::right(T(yv))
                                    : O::interval(T(yv - 3), T(yv + 4)));
          tr.push_back(T(trials));
          mu.push_back(T(m));
          ex.push_back(T(e));
        }
  const int count = int(obs.size());
  std::vector<T> want(3 * std::size_t(count), T(0));
  for (int i = 0; i < count; ++i) {
    const auto h = fx::detail::observation_term<Family>(obs[std::size_t(i)], tr[std::size_t(i)], mu[std::size_t(i)],
                                                        ex.data() + i, std::make_integer_sequence<int, E>{});
    want[3 * std::size_t(i)] = h.value;
    for (int g = 0; g < Family::parameter_count; ++g) want[3 * std::size_t(i) + 1 + std::size_t(g)] = h.grad[g];
  }
  device_buffer<O> dobs(obs.size());
  fx::detail::check_cuda(cudaMemcpy(dobs.ptr, obs.data(), obs.size() * sizeof(O), cudaMemcpyHostToDevice), "cudaMemcpy");
  device_buffer<T> dtr(tr), dmu(mu), dex(ex), dout(want.size());
  family_kernel<Family, T><<<unsigned((count + 127) / 128), 128>>>(dobs.ptr, dtr.ptr, dmu.ptr, dex.ptr, count, dout.ptr);
  sync();
  auto got = dout.download();
  std::size_t finite = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (std::isfinite(double(want[k]))) ++finite;
    // -inf (outside the support) must be -inf on both sides; compare finite values.
    if (!std::isfinite(double(want[k])) && !std::isfinite(double(got[k])) &&
        std::signbit(double(want[k])) == std::signbit(double(got[k])))
      got[k] = want[k];
  }
  if (finite < want.size() / 2) r.failures.push_back(std::string(Family::name) + ": the grid gives too few finite values");
  compare(r, std::string(Family::name) + " log-likelihoods and partials, exact and censored", got, want,
          sizeof(T) == 8 ? 1e-11 : 1e-4);
}

}  // namespace

// Host against device where both only add priors: rounding alone.
template <class T>
inline constexpr double tol0 = sizeof(T) == 8 ? 1e-12 : 1e-5;

template <class T>
result log_densities_match_host() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  using M = fx::compiled<seir2, T>;
  constexpr std::size_t B = 256, ns = M::n_states, np = M::n_params, columns = np + ns;
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<T> x0(ns * B), th(np * B);
  for (std::size_t b = 0; b < B; ++b) {
    const double i0 = 5 + 10 * u(rng);
    const double xb[ns] = {1e5 - i0, 0, i0, 0};
    const double tb[np] = {0.4 + 0.4 * u(rng), 0.2 + 0.1 * u(rng), 0.15 + 0.1 * u(rng),
                           0.2 + 0.2 * u(rng), 5 + 15 * u(rng),    0.2 + 0.3 * u(rng)};
    for (std::size_t i = 0; i < ns; ++i) x0[i * B + b] = T(xb[i]);
    for (std::size_t j = 0; j < np; ++j) th[j * B + b] = T(tb[j]);
  }
  using O = fx::observation<T>;
  const std::vector<T> save = {10, 20, 30, 40, 50, 60};
  const std::vector<O> nb = {O::exact(37), O::exact(0), O::right(600), O::interval(300, 550), O::left(400), O::exact(120)};
  const std::vector<unsigned char> nb_mask = {1, 0, 1, 1, 1, 1};
  std::vector<O> ln = {O::exact(60), O::exact(400), O::exact(T(std::nan(""))), O::exact(4500), O::exact(4100), O::exact(3000)};
  const std::vector<unsigned char> ln_mask = {1, 1, 0, 1, 1, 1};
  const fx::likelihood lik(fx::series<fx::neg_binomial_2>{.name = "new infections", .observable = 0, .parameters = {4}},
                           fx::series<fx::lognormal>{.name = "prevalence", .observable = 1, .parameters = {5}});
  const std::vector<fx::series_data<T>> data = {{.values = nb, .mask = nb_mask}, {.values = ln, .mask = ln_mask}};
  const fx::priors pri(fx::prior_on{2, fx::lognormal_prior{T(std::log(0.2)), T(0.5)}},
                       fx::prior_on{4, fx::gamma_prior{T(2), T(0.1)}});
  const bool is_double = sizeof(T) == 8;
  const fx::ode_problem<T> pr{.t0 = 0, .t1 = 60, .save_times = save, .rtol = T(is_double ? 1e-10 : 1e-5),
                              .atol = T(is_double ? 1e-8 : 1e-3)};
  const auto xs_h = fx::soa(std::span<const T>(x0));
  const auto ps_h = fx::soa(std::span<const T>(th));
  const auto host = fx::host::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, xs_h, ps_h);
  for (std::size_t b = 0; b < B; ++b)
    if (host.status[b] != fx::solve_status::success) r.failures.push_back("host trajectory did not succeed");

  device_buffer<T> dx(x0), dp(th), value(B), grad(columns * B), value_only(B);
  device_buffer<fx::solve_status> status(B), status_v(B);
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value.span(), grad.span(), status.span()});
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value_only.span(), {}, status_v.span()});
  // A lane a sensitivity column (11 lanes a trajectory, 2 trajectories a warp).
  device_buffer<T> value_l(B), grad_l(columns * B);
  device_buffer<fx::solve_status> status_l(B);
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value_l.span(), grad_l.span(), status_l.span()},
                        fx::cuda::lane_per_column{});
  // The discrete adjoint (a thread a trajectory, a tape each); and with a
  // tape too short for any trajectory: max_steps, -inf, a zero gradient.
  device_buffer<T> value_a(B), grad_a(columns * B), value_short(B), grad_short(columns * B);
  device_buffer<fx::solve_status> status_a(B), status_short(B);
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value_a.span(), grad_a.span(), status_a.span()},
                        fx::discrete_adjoint{});
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value_short.span(), grad_short.span(), status_short.span()},
                        fx::discrete_adjoint{.recorded_steps = 3});
  sync();
  // The pool keeps the adjoint's tapes for the next call (and 256 MiB more
  // here, so that a miss cannot hide in the slack); the memory a chunk may
  // take counts what it keeps as free: what cudaMemGetInfo reports once the
  // pool has returned it (within the driver's 2 MiB granularity).
  constexpr std::size_t extra = std::size_t(256) << 20;
  fx::detail::check_cuda(cudaFreeAsync(fx::cuda::detail::scratch_alloc(extra, cudaStream_t{}, "test"), cudaStream_t{}),
                         "cudaFreeAsync");
  sync();
  std::size_t free_kept = 0, free_released = 0, total = 0;
  fx::detail::check_cuda(cudaMemGetInfo(&free_kept, &total), "cudaMemGetInfo");
  const std::size_t available_kept = fx::cuda::detail::scratch_available_bytes("test");
  // The scratch pool's memory returned to the driver, then the adjoint again:
  // the same values and gradients, bit for bit.
  fx::cuda::release_scratch();
  fx::detail::check_cuda(cudaMemGetInfo(&free_released, &total), "cudaMemGetInfo");
  const std::size_t available_released = fx::cuda::detail::scratch_available_bytes("test");
  const auto near = [](std::size_t a, std::size_t b) { return (a > b ? a - b : b - a) <= (std::size_t(2) << 20); };
  if (free_released < free_kept + extra)
    r.failures.push_back("release_scratch returned less than the 256 MiB the pool kept");
  if (!near(available_kept, free_released) || !near(available_released, free_released))
    r.failures.push_back("scratch memory available with the pool's memory kept (" + std::to_string(available_kept) +
                         ") and returned (" + std::to_string(available_released) +
                         ") is not the free memory after its return (" + std::to_string(free_released) + ")");
  device_buffer<T> value_r(B), grad_r(columns * B);
  device_buffer<fx::solve_status> status_r(B);
  fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                        fx::log_density_buffers<T>{value_r.span(), grad_r.span(), status_r.span()},
                        fx::discrete_adjoint{});
  sync();
  compare(r, "log-density (the discrete adjoint after release_scratch)", value_r.download(), value_a.download(), 0.0);
  compare(r, "gradient (the discrete adjoint after release_scratch)", grad_r.download(), grad_a.download(), 0.0);
  // The backward pass in order of the trajectories' steps: the same results
  // bit for bit, with a full tape and with one too short for any trajectory;
  // the backward pass not aligned to each warp's longest lane (the default
  // aligns it), the same.
  {
    device_buffer<T> value_s(B), grad_s(columns * B), value_ss(B), grad_ss(columns * B);
    device_buffer<fx::solve_status> status_s(B), status_ss(B);
    device_buffer<T> value_un(B), grad_un(columns * B);
    device_buffer<fx::solve_status> status_un(B);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()),
                          fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value_un.span(), grad_un.span(), status_un.span()},
                          fx::discrete_adjoint{.aligned_backward = false});
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()),
                          fx::soa(dp.cspan()), fx::log_density_buffers<T>{value_s.span(), grad_s.span(), status_s.span()},
                          fx::discrete_adjoint{.backward_by_steps = true});
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()),
                          fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value_ss.span(), grad_ss.span(), status_ss.span()},
                          fx::discrete_adjoint{.recorded_steps = 3, .backward_by_steps = true});
    sync();
    if (!bitwise_equal(value_s.download(), value_a.download()) || !bitwise_equal(grad_s.download(), grad_a.download()) ||
        !bitwise_equal(status_s.download(), status_a.download()))
      r.failures.push_back("the discrete adjoint's results differ with its backward pass by steps");
    if (!bitwise_equal(value_un.download(), value_a.download()) ||
        !bitwise_equal(grad_un.download(), grad_a.download()) || !bitwise_equal(status_un.download(), status_a.download()))
      r.failures.push_back("the discrete adjoint's results differ with its backward pass not aligned in warps");
    // The same with a last warp of 26 lanes (250 trajectories).
    constexpr std::size_t Bp = 250;
    std::vector<T> x0p(ns * Bp), thp(np * Bp);
    for (std::size_t b = 0; b < Bp; ++b) {
      for (std::size_t i = 0; i < ns; ++i) x0p[i * Bp + b] = x0[i * B + b];
      for (std::size_t j = 0; j < np; ++j) thp[j * Bp + b] = th[j * B + b];
    }
    device_buffer<T> dxp(x0p), dpp(thp), value_p(Bp), grad_p(columns * Bp);
    device_buffer<fx::solve_status> status_p(Bp);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, Bp, fx::soa(dxp.cspan()),
                          fx::soa(dpp.cspan()), fx::log_density_buffers<T>{value_p.span(), grad_p.span(), status_p.span()},
                          fx::discrete_adjoint{});
    sync();
    const auto va = value_a.download(), ga = grad_a.download(), vp = value_p.download(), gp = grad_p.download();
    bool same = true;
    for (std::size_t b = 0; b < Bp; ++b) {
      same = same && std::memcmp(&vp[b], &va[b], sizeof(T)) == 0;
      for (std::size_t j = 0; j < columns; ++j) same = same && std::memcmp(&gp[j * Bp + b], &ga[j * B + b], sizeof(T)) == 0;
    }
    if (!same) r.failures.push_back("the discrete adjoint over 250 trajectories (a partial last warp) differs from the same over 256");
    // In chunks of 100 trajectories (100, 100, 56: max_chunk), in the
    // default order and by steps: the same bit for bit, statistics included.
    for (const bool by_steps : {false, true}) {
      device_buffer<T> value_c(B), grad_c(columns * B);
      device_buffer<fx::solve_status> status_c(B);
      device_buffer<fx::solve_statistics> stats_c(B), stats_1(B);
      fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()),
                            fx::soa(dp.cspan()),
                            fx::log_density_buffers<T>{value_c.span(), grad_c.span(), status_c.span(), stats_c.span()},
                            fx::discrete_adjoint{.max_chunk = 100, .backward_by_steps = by_steps});
      fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()),
                            fx::soa(dp.cspan()),
                            fx::log_density_buffers<T>{value_un.span(), grad_un.span(), status_un.span(), stats_1.span()},
                            fx::discrete_adjoint{.backward_by_steps = by_steps});
      sync();
      const auto s_c = stats_c.download(), s_1 = stats_1.download();
      bool same_stats = true;
      for (std::size_t b = 0; b < B; ++b)
        same_stats = same_stats && s_c[b].accepted == s_1[b].accepted && s_c[b].rejected == s_1[b].rejected &&
                     s_c[b].rhs_evaluations == s_1[b].rhs_evaluations;
      if (!bitwise_equal(value_c.download(), value_a.download()) ||
          !bitwise_equal(grad_c.download(), grad_a.download()) ||
          !bitwise_equal(status_c.download(), status_a.download()) || !same_stats)
        r.failures.push_back(std::string("the discrete adjoint in chunks of 100 differs from one chunk") +
                             (by_steps ? " (backward by steps)" : ""));
    }
    if (!bitwise_equal(value_ss.download(), value_short.download()) ||
        !bitwise_equal(grad_ss.download(), grad_short.download()) ||
        !bitwise_equal(status_ss.download(), status_short.download()))
      r.failures.push_back("the discrete adjoint's results with a 3-step tape differ with its backward pass by steps");
  }
  // No save times: no terms (the terms kernel is not launched), the priors alone.
  {
    const std::vector<T> none;
    const std::vector<O> no_values;
    const std::vector<fx::series_data<T>> no_data = {{.values = no_values}, {.values = no_values}};
    const fx::ode_problem<T> pr0{.t0 = 0, .t1 = 60, .save_times = none, .rtol = pr.rtol, .atol = pr.atol};
    const auto host0 = fx::host::log_density(M{}, fx::tsit5{}, pr0, lik, std::span(no_data), pri, B, xs_h, ps_h,
                                             fx::discrete_adjoint{});
    device_buffer<T> value0(B), grad0(columns * B);
    device_buffer<fx::solve_status> status0(B);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr0, lik, std::span(no_data), pri, B, fx::soa(dx.cspan()),
                          fx::soa(dp.cspan()), fx::log_density_buffers<T>{value0.span(), grad0.span(), status0.span()},
                          fx::discrete_adjoint{});
    sync();
    compare(r, "log-density without save times (the discrete adjoint)", value0.download(), host0.value, tol0<T>);
    compare(r, "gradient without save times (the discrete adjoint)", grad0.download(), host0.gradients, tol0<T>);
  }
  {
    const auto st = status_short.download();
    const auto v = value_short.download();
    const auto g = grad_short.download();
    bool all = true;
    for (std::size_t b = 0; b < B; ++b) all = all && st[b] == fx::solve_status::max_steps && v[b] == -std::numeric_limits<T>::infinity();
    for (T e : g) all = all && e == T(0);
    if (!all) r.failures.push_back("the adjoint with a 3-step tape did not end every trajectory with max_steps, -inf, 0");
  }
  const double tol = is_double ? 1e-7 : 2e-3;
  compare(r, "log-density (with gradient)", value.download(), host.value, tol);
  compare(r, "log-density (value only)", value_only.download(), host.value, tol);
  compare(r, "log-density (a lane a column)", value_l.download(), host.value, tol);
  compare(r, "log-density (the discrete adjoint)", value_a.download(), host.value, tol);
  // Gradient entries compared relative to the trajectory's largest one.
  for (const auto& [g, what] : {std::pair{grad.download(), "gradient"}, std::pair{grad_l.download(), "gradient (a lane a column)"},
                                  std::pair{grad_a.download(), "gradient (the discrete adjoint)"}}) {
    double worst = 0;
    for (std::size_t b = 0; b < B; ++b) {
      double scale = 1;
      for (std::size_t j = 0; j < columns; ++j) scale = std::fmax(scale, std::fabs(double(host.gradient(j, b))));
      for (std::size_t j = 0; j < columns; ++j)
        worst = std::fmax(worst, std::fabs(double(g[j * B + b]) - double(host.gradient(j, b))) / scale);
    }
    if (!(worst <= (is_double ? 1e-6 : 2e-2)))
      r.failures.push_back(std::string(what) + " differs from the host's by " + std::to_string(worst) +
                           " of its largest entry");
  }
  for (const auto& s : {status.download(), status_v.download(), status_l.download(), status_a.download()})
    for (auto st : s)
      if (st != fx::solve_status::success) r.failures.push_back("a device trajectory did not succeed");
  // Density parameters that are not model parameters (a fixed dispersion,
  // an sd per observation from the data, staged to the device with the
  // series), series at their own times (prevalence between the save times,
  // counts over the intervals between every other save time: the model
  // integrated with its observables accumulated, at the merged save
  // times), by each strategy against the host.
  {
    const std::vector<T> sds = {T(20), T(80), T(std::nan("")), T(500), T(400), T(300)};
    const std::vector<T> prevalence_days = {5, 15, 25, 35, 45, 55}, count_days = {20, 40, 60};
    const fx::likelihood lik_known(
        fx::series<fx::neg_binomial_2>{.name = "new infections", .observable = 0, .parameters = {fx::fixed(8.0)}},
        fx::series<fx::normal>{.name = "prevalence", .observable = 1, .parameters = {fx::from_data}},
        fx::interval_series<fx::neg_binomial_2>{.name = "infections in 20 days", .observable = 0, .parameters = {4}});
    const std::vector<O> twenty_days = {O::exact(900), O::right(2500), O::interval(1500, 3000)};
    const std::vector<unsigned char> twenty_days_mask = {1, 0, 1};
    const std::vector<fx::series_data<T>> known = {
        {.values = nb, .mask = nb_mask},
        {.values = ln, .mask = ln_mask, .parameter_values = sds, .times = prevalence_days},
        {.values = twenty_days, .mask = twenty_days_mask, .times = count_days}};
    // The host's value, gradient and terms (each series' sum, each observation's).
    constexpr std::size_t K = 3;
    const std::size_t S = nb.size() + ln.size() + twenty_days.size();  // the observations' terms
    std::vector<T> hv(B), hg(columns * B), hs(K * B), ho(S * B);
    std::vector<fx::solve_status> hst(B);
    fx::host::log_density(M{}, fx::tsit5{}, pr, lik_known, std::span(known), pri, B, xs_h, ps_h,
                          fx::log_density_buffers<T>{.value = hv, .gradients = hg, .status = hst, .series_values = hs,
                                                     .observation_values = ho});
    device_buffer<fx::solve_status> status_k(B);
    struct outputs {
      device_buffer<T> value, grad, series, observations;
    };
    const auto run_known = [&](outputs& out, auto how) {
      fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik_known, std::span(known), pri, B, fx::soa(dx.cspan()),
                            fx::soa(dp.cspan()),
                            fx::log_density_buffers<T>{.value = out.value.span(),
                                                       .gradients = out.grad.span(),
                                                       .status = status_k.span(),
                                                       .series_values = out.series.span(),
                                                       .observation_values = out.observations.span()},
                            how);
    };
    outputs by_thread{device_buffer<T>(B), device_buffer<T>(columns * B), device_buffer<T>(K * B),
                      device_buffer<T>(S * B)};
    outputs by_lanes{device_buffer<T>(B), device_buffer<T>(columns * B), device_buffer<T>(K * B),
                     device_buffer<T>(S * B)};
    outputs by_adjoint{device_buffer<T>(B), device_buffer<T>(columns * B), device_buffer<T>(K * B),
                       device_buffer<T>(S * B)};
    run_known(by_thread, fx::cuda::thread_per_trajectory{});
    run_known(by_lanes, fx::cuda::lane_per_column{});
    run_known(by_adjoint, fx::discrete_adjoint{});
    sync();
    for (const auto& [out, what] : {std::pair{&by_thread, "a thread a trajectory"}, std::pair{&by_lanes, "a lane a column"},
                                    std::pair{&by_adjoint, "the discrete adjoint"}}) {
      compare(r, std::string("log-density with known density parameters (") + what + ")", out->value.download(), hv,
              tol);
      // In float, the discrete adjoint (the exact gradient of the steps taken)
      // and the host's forward sensitivities (controlled at rtol 1e-5) differ
      // by up to 2.2% on the 20-day counts (d/d beta of a few trajectories, an
      // H100); in double the two agree to 1e-6 here.
      const bool adjoint = out == &by_adjoint;
      compare(r, std::string("gradient with known density parameters (") + what + ")", out->grad.download(), hg,
              is_double ? 1e-6 : adjoint ? 3e-2 : 2e-2);
      compare(r, std::string("series values (") + what + ")", out->series.download(), hs, tol);
      compare(r, std::string("observation values (") + what + ")", out->observations.download(), ho, tol);
    }
    // Events at given times (solve/events.hpp), staged with the data: a
    // vaccination pulse (20% of S to R) on day 30 and 100 exposures imported
    // on day 12.5; then an input from data, beta (parameter 0: no prior, no
    // observable reads it) 0.6, 0.3 from day 15 and 0.45 from day 40, its
    // gradient entry 0; every strategy against the host.
    const auto with_events_against_host = [&](const fx::timed_events<T>& ev, const std::string& label) {
      fx::ode_problem<T> with_events = pr;
      with_events.events = ev;
      std::vector<T> ev_v(B), ev_g(columns * B);
      fx::host::log_density(M{}, fx::tsit5{}, with_events, lik_known, std::span(known), pri, B, xs_h, ps_h,
                            fx::log_density_buffers<T>{.value = ev_v, .gradients = ev_g, .status = hst});
      const auto by = [&](auto how, const char* what) {
        device_buffer<T> v(B), g(columns * B);
        fx::cuda::log_density(M{}, fx::tsit5{}, with_events, lik_known, std::span(known), pri, B, fx::soa(dx.cspan()),
                              fx::soa(dp.cspan()),
                              fx::log_density_buffers<T>{.value = v.span(), .gradients = g.span(), .status = status_k.span()},
                              how);
        sync();
        compare(r, "log-density with " + label + " (" + what + ")", v.download(), ev_v, tol);
        compare(r, "gradient with " + label + " (" + what + ")", g.download(), ev_g, is_double ? 1e-6 : 3e-2);
      };
      by(fx::cuda::thread_per_trajectory{}, "a thread a trajectory");
      by(fx::cuda::lane_per_column{}, "a lane a column");
      by(fx::discrete_adjoint{}, "the discrete adjoint");
      if (ev_v == hv) r.failures.push_back("the " + label + " did not change the host's log-density");
      return ev_g;
    };
    {
      fx::timed_events<T> ev;
      ev.move(T(30), 0, 3, T(0.2)).add(T(12.5), 1, T(100));
      with_events_against_host(ev, "events");
    }
    {
      const std::vector<T> times = {T(0), T(15), T(40)}, values = {T(0.6), T(0.3), T(0.45)};
      fx::timed_events<T> input;
      input.piecewise_constant(0, times, values);
      const std::vector<T> g = with_events_against_host(input, "an input");
      for (std::size_t b = 0; b < B; ++b)
        if (g[b] != T(0)) r.failures.push_back("a driven parameter has a non-zero gradient entry on the host");
    }
    const auto host_k = fx::host::log_density(M{}, fx::tsit5{}, pr, lik_known, std::span(known), pri, B, xs_h, ps_h);
    // The sd parameter (5, under no prior) is not read: its column is zero.
    bool zero = true;
    for (std::size_t b = 0; b < B; ++b) zero = zero && host_k.gradient(5, b) == T(0);
    if (!zero) r.failures.push_back("a known density parameter has a non-zero gradient column on the host");
  }

  // Bad data and host pointers: refused before launch, outputs untouched.
  const std::vector<T> sentinel(B, T(-7));
  value.upload(sentinel);
  std::vector<O> negative = nb;
  negative[3] = O::exact(-2);
  const std::vector<fx::series_data<T>> bad = {{.values = negative, .mask = nb_mask}, {.values = ln, .mask = ln_mask}};
  bool refused = false;
  try {
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(bad), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value.span(), grad.span(), status.span()});
  } catch (const fx::data_error& e) {
    refused = e.series() == "new infections" && e.index() == 3;
  }
  if (!refused) r.failures.push_back("a negative count was not refused with the series and time index");
  refused = false;
  try {
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, xs_h, fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value.span(), grad.span(), status.span()});
  } catch (const fx::layout_error&) {
    refused = true;
  }
  if (!refused) r.failures.push_back("host initial states were not refused");
  // Outputs over the inputs: a status buffer laid over the parameters, and
  // statistics over the initial states.
  refused = false;
  try {
    const std::span<fx::solve_status> on_parameters(reinterpret_cast<fx::solve_status*>(dp.ptr), B);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value.span(), grad.span(), on_parameters},
                          fx::discrete_adjoint{});
  } catch (const fx::layout_error& e) {
    refused = e.block() == "status";
  }
  if (!refused) r.failures.push_back("a status buffer over the parameters was not refused");
  refused = false;
  try {
    // (B records from the states' first byte: never touched, since refused.)
    const std::span<fx::solve_statistics> on_states(reinterpret_cast<fx::solve_statistics*>(dx.ptr), B);
    fx::cuda::log_density(M{}, fx::tsit5{}, pr, lik, std::span(data), pri, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::log_density_buffers<T>{value.span(), {}, status.span(), on_states});
  } catch (const fx::layout_error& e) {
    refused = e.block() == "statistics";
  }
  if (!refused) r.failures.push_back("statistics over the initial states were not refused");
  sync();
  compare(r, "log-density after refused calls", value.download(), sentinel, 0.0);
  if (!bitwise_equal(dp.download(), th) || !bitwise_equal(dx.download(), x0))
    r.failures.push_back("a refused call changed its inputs");

  // The backward pass's order by steps (detail::order_by_steps) against a
  // stable sort on the host: a permutation, steps never increasing along it.
  // Counts not a multiple of a warp; more bins than the scan's threads.
  for (const auto& [count, recorded] : {std::pair<std::size_t, std::int32_t>{1, 3}, {1000, 60}, {40001, 5000}}) {
    std::vector<std::int32_t> steps(count);
    std::uniform_int_distribution<std::int32_t> pick(0, recorded);
    for (auto& v : steps) v = count > 1000 && u(rng) < 0.5 ? recorded / 3 : pick(rng);  // many ties, and spread
    device_buffer<std::int32_t> d_steps(steps);
    device_buffer<std::uint32_t> bins(std::size_t(recorded) + 1), order(count);
    fx::detail::check_cuda(fx::cuda::detail::order_by_steps(d_steps.ptr, count, recorded, bins.ptr,
                                                            order.ptr, nullptr),
                           "order_by_steps");
    sync();
    const auto got = order.download();
    std::vector<std::uint32_t> want(count);
    for (std::size_t b = 0; b < count; ++b) want[b] = std::uint32_t(b);
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) { return steps[a] > steps[b]; });
    std::vector<std::uint32_t> sorted_got = got, identity = want;
    std::sort(sorted_got.begin(), sorted_got.end());
    std::sort(identity.begin(), identity.end());
    bool ordered = sorted_got == identity;
    for (std::size_t k = 0; ordered && k < count; ++k) ordered = steps[got[k]] == steps[want[k]];
    if (!ordered)
      r.failures.push_back("order_by_steps over " + std::to_string(count) + " trajectories (" +
                           std::to_string(recorded) + " steps at most) is not a permutation by steps, most first");
  }

  // Every density, exact and censored, with partials.
  family_on_device<fx::normal, T>(r, {-2, 0.5, 3, 10}, {0.3, 2}, {0.7, 3}, 0);
  family_on_device<fx::lognormal, T>(r, {0.2, 1, 5, 40}, {1.5, 8}, {0.4, 1.2}, 0);
  family_on_device<fx::poisson, T>(r, {0, 3, 12, 60}, {2.5, 30}, {0}, 0);
  family_on_device<fx::neg_binomial_2, T>(r, {0, 3, 12, 60}, {2.5, 30}, {0.8, 20}, 0);
  family_on_device<fx::binomial, T>(r, {0, 3, 12, 20}, {0.1, 0.6}, {0}, 20);
  family_on_device<fx::beta_binomial, T>(r, {0, 3, 12, 20}, {0.1, 0.6}, {0.5, 10}, 20);

  r.summary = "the six observation densities (exact, left-, right-, interval-censored, with partials) and "
              "log-densities and gradients (10 columns; a thread, a lane a column and the discrete adjoint) of 256 SEIR trajectories under negative binomial "
              "(masked, right-, left-, interval-censored) and log-normal series with priors: the device's equal the "
              "host's, value-only path too, the adjoint's the same after release_scratch (the pool's kept memory counted free), without save times, with its backward pass by steps (its order against a host sort), not aligned in warps, over a partial last warp and in chunks of 100; bad data, host pointers and outputs over inputs refused before launch";
  return r;
}

template result log_densities_match_host<float>();
template result log_densities_match_host<double>();

}  // namespace device_cases
