// Device case g: ensembles integrated on the device (fx::cuda::integrate)
// agree with the same integration on the host (fx::host::integrate), which
// tests/solve checks against closed forms and published values; Robertson
// also against the IVP test set's value at t = 40. Tsit5 and Vern7 on Lorenz,
// Rodas5P and Rosenbrock23 on Robertson with per-trajectory rate constants;
// Tsit5 and Vern7 a warp a trajectory on Lorenz and on ten decays with an alias;
// saved and final states, statuses and step counts, with and without events
// at given times and with an input from data (a parameter a table drives);
// bouncing balls (crossing events, Tsit5 and Rodas5P) and
// their first bounce's time; a bad problem and bad buffers refused before launch with
// the outputs untouched.
#include "cases.hpp"
#include "device_support.hpp"

#include <fluxion/cuda.hpp>
#include <fluxion/fluxion.hpp>  // the host batches it compares with
#include <fluxion/infer/philox.hpp>
#include <fluxion/infer/samplers.hpp>

#include <random>
#include <string>
#include <vector>

#include "support/group_decays.hpp"
#include "support/lorenz63.hpp"
#include "support/stiff_models.hpp"

namespace fx = fluxion;

namespace device_cases {

namespace {

using lorenz63::lorenz;
using stiff_models::robertson;

// A ball: h' = v, v' = -g, observed as its height (for crossing events).
constexpr fx::state<"h"> ball_height;
constexpr fx::state<"v"> ball_speed;
constexpr fx::param<"g"> gravity;
constexpr auto bouncing_ball = fx::model(fx::states(ball_height, ball_speed), fx::params(gravity),
                                         fx::d(ball_height) = ball_speed, fx::d(ball_speed) = -gravity,
                                         fx::observe<"altitude">() = ball_height);

// y_i' = -c k_i y_i over ten states, the rate an alias (a scratch step that
// a warp's lanes sync after): a warp per trajectory leaves 22 lanes padding.
using group_decays::decays;

// One method on one model: device against host for B trajectories (a thread
// or a warp a trajectory on the device, as Policy says).
template <class M, class Policy = fx::cuda::thread_per_trajectory, class Method, class T = typename M::scalar>
void device_against_host(result& r, const std::string& what, Method method, const fx::ode_problem<T>& pr,
                         std::size_t B, const std::vector<T>& x0, const std::vector<T>& p, double tol,
                         std::vector<T>* device_saved = nullptr, int step_spread = 2) {
  constexpr std::size_t n = M::n_states;
  const std::size_t n_save = pr.save_times.size();
  const auto host = fx::host::integrate(M{}, method, pr, B, fx::soa(std::span<const T>(x0)),
                                        fx::soa(std::span<const T>(p)));
  device_buffer<T> dx(x0), dp(p), saved(n_save * n * B), fin(n * B);
  device_buffer<fx::solve_status> status(B);
  device_buffer<fx::solve_statistics> stats(B);
  fx::cuda::integrate(M{}, method, pr, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                      fx::ensemble_buffers<T>{saved.span(), fin.span(), status.span(), stats.span()}, Policy{});
  sync();
  const auto ds = saved.download(), df = fin.download();
  const auto dst = status.download();
  const auto dstat = stats.download();
  compare(r, what + ": saved states, device vs host", ds, host.saved_states, tol);
  compare(r, what + ": final states, device vs host", df, host.final_state, tol);
  int status_mismatch = 0, far_steps = 0;
  for (std::size_t b = 0; b < B; ++b) {
    status_mismatch += dst[b] != host.status[b] || dst[b] != fx::solve_status::success;
    const int d = dstat[b].accepted - host.stats[b].accepted;
    far_steps += d > step_spread || d < -step_spread;
  }
  if (status_mismatch) r.failures.push_back(what + ": " + std::to_string(status_mismatch) + " statuses differ or failed");
  if (far_steps)
    r.failures.push_back(what + ": " + std::to_string(far_steps) + " trajectories took more than " +
                         std::to_string(step_spread) + " steps more or fewer");
  if (!bitwise_equal(dx.download(), x0) || !bitwise_equal(dp.download(), p))
    r.failures.push_back(what + ": the device inputs were modified");
  if (device_saved) *device_saved = ds;
  // Without save times the launcher runs its second kernel (the driver
  // without its save-time code): the same trajectories.
  if (n_save > 0) {
    fx::ode_problem<T> bare = pr;
    bare.save_times = {};
    device_against_host<M, Policy>(r, what + " without save times", method, bare, B, x0, p, tol,
                                   static_cast<std::vector<T>*>(nullptr), step_spread);
  }
}

}  // namespace

template <class T>
result ensembles_match_host() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  constexpr bool f64 = std::is_same_v<T, double>;
  const std::size_t B = 97;
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(0.5, 1.5);

  // Lorenz, Tsit5 (Model B's inputs).
  {
    using M = fx::compiled<lorenz, T>;
    std::vector<T> x0(3 * B), p(3 * B);
    for (auto& v : x0) v = T(u(rng));
    for (std::size_t b = 0; b < B; ++b)
      p[b] = T(10 * u(rng)), p[B + b] = T(20 + 10 * (u(rng) - 0.5)), p[2 * B + b] = T(2 + (u(rng) - 0.5));
    const std::vector<T> ts = {T(0.125), T(0.5), T(1)};
    const fx::ode_problem<T> pr{.t0 = 0, .t1 = 1, .save_times = ts, .rtol = T(f64 ? 1e-8 : 1e-5),
                                .atol = T(f64 ? 1e-8 : 1e-5)};
    // Rounding differs (fused multiply-adds), so trajectories drift apart by
    // about the tolerance over the chaotic span.
    device_against_host<M>(r, "lorenz tsit5", fx::tsit5{}, pr, B, x0, p, f64 ? 1e-6 : 1e-2);
    // Vern7: save times inside steps take its extra stages.
    device_against_host<M>(r, "lorenz vern7", fx::vern7{}, pr, B, x0, p, f64 ? 1e-6 : 1e-2);
    // A warp a trajectory (one lane holds each state, 29 lanes padding).
    using warp = fx::cuda::warp_per_trajectory;
    device_against_host<M, warp>(r, "lorenz tsit5, a warp a trajectory", fx::tsit5{}, pr, B, x0, p, f64 ? 1e-6 : 1e-2);
    device_against_host<M, warp>(r, "lorenz vern7, a warp a trajectory", fx::vern7{}, pr, B, x0, p, f64 ? 1e-6 : 1e-2);
    // Events at given times (solve/events.hpp): staged with the save times;
    // a kick at a save time (read after it), a reset and a move between them.
    fx::timed_events<T> ev;
    ev.add(T(0.5), 0, T(2)).set(T(0.3), 2, T(10)).move(T(0.75), 1, 0, T(0.5));
    fx::ode_problem<T> with_events = pr;
    with_events.events = ev;
    device_against_host<M>(r, "lorenz tsit5 with events", fx::tsit5{}, with_events, B, x0, p, f64 ? 1e-6 : 1e-2);
    device_against_host<M>(r, "lorenz vern7 with events", fx::vern7{}, with_events, B, x0, p, f64 ? 1e-6 : 1e-2);
    device_against_host<M, warp>(r, "lorenz tsit5 with events, a warp a trajectory", fx::tsit5{}, with_events, B,
                                 x0, p, f64 ? 1e-6 : 1e-2);
    // An input from data (a parameter a table drives): rho (p[1]) 28, then 20
    // from t = 0.4, in the thread's registers and in the warp's shared memory.
    const std::vector<T> rho_times = {T(0), T(0.4)}, rho_values = {T(28), T(20)};
    fx::timed_events<T> input;
    input.piecewise_constant(1, rho_times, rho_values);
    fx::ode_problem<T> with_input = pr;
    with_input.events = input;
    device_against_host<M>(r, "lorenz tsit5 with an input", fx::tsit5{}, with_input, B, x0, p, f64 ? 1e-6 : 1e-2);
    device_against_host<M, warp>(r, "lorenz tsit5 with an input, a warp a trajectory", fx::tsit5{}, with_input, B,
                                 x0, p, f64 ? 1e-6 : 1e-2);
  }
  // Ten decays with an alias, a warp a trajectory.
  {
    using M = fx::compiled<decays, T>;
    std::vector<T> x0(10 * B), p(11 * B);
    for (auto& v : x0) v = T(u(rng));
    for (std::size_t j = 0; j < 10 * B; ++j) p[j] = T(u(rng));
    for (std::size_t b = 0; b < B; ++b) p[10 * B + b] = T(1.5);
    const std::vector<T> ts = {T(0), T(0.3), T(2)};
    std::vector<T> atol(10);
    for (std::size_t j = 0; j < 10; ++j) atol[j] = T((f64 ? 1e-9 : 1e-5) * double(1 + j % 3));
    // atol = 0: unused (and unchecked) with per-state tolerances; the padding lanes must not read it.
    const fx::ode_problem<T> pr{.t0 = 0, .t1 = 2, .save_times = ts, .rtol = T(f64 ? 1e-8 : 1e-5), .atol = 0,
                                .atol_per_state = atol};
    device_against_host<M, fx::cuda::warp_per_trajectory>(r, "decays tsit5, a warp a trajectory", fx::tsit5{}, pr, B,
                                                          x0, p, f64 ? 1e-7 : 1e-3);
  }
  // Crossing events (solve/crossings.hpp): balls bouncing on the floor, each
  // crossing of height 0 downwards reversing and damping the speed; the
  // first bounce's time recorded; Tsit5 and Rodas5P against the host.
  {
    using M = fx::compiled<bouncing_ball, T>;
    std::vector<T> x0(2 * B), p(B, T(9.81));
    for (std::size_t b = 0; b < B; ++b) x0[b] = T(1 + u(rng)), x0[B + b] = T(u(rng) - 1);
    const fx::crossing_event<T> bounce{.observable = 0,
                                       .level = 0,
                                       .direction = fx::crossing_direction::down,
                                       .stop = false,
                                       .change = {.state = 1, .scale = T(-0.8)}};
    const std::vector<T> ts = {T(0.5), T(1.5), T(3)};
    const fx::ode_problem<T> pr{.t0 = 0, .t1 = 3, .save_times = ts, .rtol = T(f64 ? 1e-9 : 1e-5),
                                .atol = T(f64 ? 1e-10 : 1e-6), .crossings = std::span(&bounce, 1)};
    const auto both = [&](auto method, const char* what) {
      // In float each bounce's rounding (fused multiply-adds on the device)
      // moves the crossing and the steps after it: 34 of 97 Rodas5P balls
      // took more than 2 steps more or fewer on an H100; the states and the
      // first bounce are compared, not the step counts.
      device_against_host<M>(r, what, method, pr, B, x0, p, f64 ? 1e-7 : 1e-3, static_cast<std::vector<T>*>(nullptr),
                             f64 ? 2 : 1000);
      const auto host = fx::host::integrate(M{}, method, pr, B, fx::soa(std::span<const T>(x0)),
                                            fx::soa(std::span<const T>(p)));
      device_buffer<T> dx(x0), dp(p), saved(ts.size() * 2 * B), fin(2 * B), first(B);
      device_buffer<fx::solve_status> status(B);
      fx::cuda::integrate(M{}, method, pr, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{saved.span(), fin.span(), status.span(), {}, first.span()});
      sync();
      compare(r, std::string(what) + ": first bounce, device vs host", first.download(), host.crossing_times,
              f64 ? 1e-9 : 1e-4);
    };
    both(fx::tsit5{}, "bouncing balls tsit5");
    both(fx::rodas5p{}, "bouncing balls rodas5p");
    // Not with a warp a trajectory (yet): refused before launch.
    device_buffer<T> dx(x0), dp(p), fin(2 * B);
    device_buffer<fx::solve_status> status(B);
    try {
      fx::cuda::integrate(M{}, fx::tsit5{}, pr, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{{}, fin.span(), status.span(), {}},
                          fx::cuda::warp_per_trajectory{});
      r.failures.push_back("crossings with a warp a trajectory were not refused");
    } catch (const fx::problem_error&) {
    }
  }
  // Robertson, Rodas5P and Rosenbrock23, rate constants scaled per trajectory.
  {
    using M = fx::compiled<robertson, T>;
    std::vector<T> x0(3 * B, T(0)), p(3 * B);
    for (std::size_t b = 0; b < B; ++b) {
      x0[b] = T(1);
      p[b] = T(0.04 * u(rng)), p[B + b] = T(3e7 * u(rng)), p[2 * B + b] = T(1e4 * u(rng));
    }
    p[0] = T(0.04), p[B] = T(3e7), p[2 * B] = T(1e4);  // trajectory 0: the test set's constants
    const std::vector<T> ts = {T(40), T(1e5)};
    fx::ode_problem<T> pr{.t0 = 0, .t1 = T(1e5), .save_times = ts, .rtol = T(f64 ? 1e-6 : 1e-4),
                          .atol = T(f64 ? 1e-10 : 1e-7), .initial_step = T(1e-6)};
    std::vector<T> saved;
    device_against_host<M>(r, "robertson rodas5p", fx::rodas5p{}, pr, B, x0, p, f64 ? 1e-8 : 1e-3, &saved);
    // y1(40) of the test set (0.7158270687193685), to the method's accuracy.
    if (!(std::fabs(double(saved[0]) - 0.7158270687193685) <= (f64 ? 1e-5 : 2e-3)))
      r.failures.push_back("robertson rodas5p: y1(40) = " + std::to_string(double(saved[0])) +
                           " on the device, the test set says 0.7158270687");
    device_against_host<M>(r, "robertson rosenbrock23", fx::rosenbrock23{}, pr, B, x0, p, f64 ? 1e-8 : 1e-3);
    // Events: y1 topped up at the save time t = 40 and y3 halved at t = 1000
    // (t = 100 in float: the fast transient the halving starts needs steps
    // below float's resolution of t = 1000, 16 eps t = 2e-3, and ends most
    // trajectories with step_too_small on the host as on the device).
    fx::timed_events<T> ev;
    ev.add(T(40), 0, T(0.5)).scale(T(f64 ? 1000 : 100), 2, T(0.5));
    fx::ode_problem<T> with_events = pr;
    with_events.events = ev;
    device_against_host<M>(r, "robertson rodas5p with events", fx::rodas5p{}, with_events, B, x0, p,
                           f64 ? 1e-8 : 1e-3);
    device_against_host<M>(r, "robertson rosenbrock23 with events", fx::rosenbrock23{}, with_events, B, x0, p,
                           f64 ? 1e-8 : 1e-3);
    // An input: k1 (p[0]) 0.04, then 0.02 from t = 500.
    const std::vector<T> k1_times = {T(0), T(500)}, k1_values = {T(0.04), T(0.02)};
    fx::timed_events<T> input;
    input.piecewise_constant(0, k1_times, k1_values);
    fx::ode_problem<T> with_input = pr;
    with_input.events = input;
    device_against_host<M>(r, "robertson rodas5p with an input", fx::rodas5p{}, with_input, B, x0, p,
                           f64 ? 1e-8 : 1e-3);

    // Refused before launch, outputs untouched: a host pointer, a short output, a bad problem.
    device_buffer<T> dx(x0), dp(p), fin(3 * B);
    device_buffer<fx::solve_status> status(B);
    const std::vector<T> sentinel(3 * B, T(-7));
    fin.upload(sentinel);
    std::vector<T> host_fin(3 * B);
    int refused = 0;
    auto attempt = [&](auto&& call) {
      try {
        call();
      } catch (const fx::layout_error&) {
        ++refused;
      } catch (const fx::problem_error&) {
        ++refused;
      }
    };
    const fx::ode_problem<T> ok{.t0 = 0, .t1 = 1};
    attempt([&] {
      fx::cuda::integrate(M{}, fx::rodas5p{}, ok, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{{}, std::span<T>(host_fin), status.span(), {}});
    });
    attempt([&] {
      fx::cuda::integrate(M{}, fx::rodas5p{}, ok, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{{}, fin.span().first(3 * B - 1), status.span(), {}});
    });
    const std::vector<T> unsorted = {T(0.5), T(0.25)};
    attempt([&] {
      fx::cuda::integrate(M{}, fx::rodas5p{}, fx::ode_problem<T>{.t0 = 0, .t1 = 1, .save_times = unsorted}, B,
                          fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{{}, fin.span(), status.span(), {}});
    });
    // A status buffer laid over the parameters.
    attempt([&] {
      fx::cuda::integrate(M{}, fx::rodas5p{}, ok, B, fx::soa(dx.cspan()), fx::soa(dp.cspan()),
                          fx::ensemble_buffers<T>{{}, fin.span(),
                                                  std::span<fx::solve_status>(
                                                      reinterpret_cast<fx::solve_status*>(dp.ptr), B),
                                                  {}});
    });
    sync();
    if (refused != 4) r.failures.push_back(std::to_string(refused) + " of 4 bad calls were refused");
    if (!bitwise_equal(dp.download(), p)) r.failures.push_back("a refused integration changed its parameters");
    if (!bitwise_equal(fin.download(), sentinel)) r.failures.push_back("a refused integration wrote its output");
  }
  r.summary = "Lorenz (Tsit5, Vern7; a thread and a warp a trajectory), ten decays (a warp) and Robertson (Rodas5P, Rosenbrock23) ensembles on the device == host, statuses and "
              "steps alike, y1(40) as the test set; with events at given times and inputs from data too (a thread and a warp a trajectory), bouncing balls (crossings; refused a warp a trajectory) and their first bounces; bad calls refused before launch";
  return r;
}

template result ensembles_match_host<float>();
template result ensembles_match_host<double>();

// Device case h: keyed draw streams (infer/philox.hpp) and the samplers of
// replayed observations (infer/samplers.hpp) give the device the host's
// bits, whatever the launch shape: Philox words, uniforms and one draw of
// every sampler for 2000 keys (trajectory x series x time), drawn by a kernel in two launch shapes
// (a thread a key; 96 threads striding over them in reverse order), against
// the same streams drawn on the host.
namespace {
constexpr int draws_per_key = 24;
__host__ __device__ fx::draw_key key_of(std::size_t i) {
  return {.seed = 0x5eed0123456789ull, .trajectory = std::uint32_t(i / 40), .series = std::uint32_t(i / 10 % 4),
          .time = std::uint32_t(i % 10)};
}
constexpr int samples_per_key = 9;
template <class T>
__host__ __device__ void draw_key_stream(std::size_t i, std::uint32_t* words, T* uniforms, T* samples) {
  fx::draw_stream s(key_of(i));
  for (int d = 0; d < draws_per_key; ++d) words[i * draws_per_key + d] = s.next_u32();
  for (int d = 0; d < draws_per_key; ++d) uniforms[i * draws_per_key + d] = s.template uniform<T>();
  // Every sampler, through the portable elementary functions.
  T* out = samples + i * samples_per_key;
  out[0] = fx::sample_normal<T>(s, T(1), T(2));
  out[1] = fx::sample_lognormal<T>(s, T(0.5), T(0.3));
  out[2] = fx::sample_gamma<T>(s, T(0.7), T(1.5));
  out[3] = fx::sample_beta<T>(s, T(2), T(3));
  out[4] = T(fx::sample_poisson<T>(s, T(3.2)));
  out[5] = T(fx::sample_poisson<T>(s, T(55) + T(i % 7)));
  out[6] = T(fx::sample_neg_binomial_2<T>(s, T(12), T(2.5)));
  out[7] = T(fx::sample_binomial<T>(s, 20, T(0.3)));
  out[8] = T(fx::sample_beta_binomial<T>(s, 20, T(0.3), T(4)));
}
template <class T>
__global__ void draws_kernel(std::size_t n, bool reverse, std::uint32_t* words, T* uniforms, T* samples) {
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += std::size_t(gridDim.x) * blockDim.x)
    draw_key_stream(reverse ? n - 1 - j : j, words, uniforms, samples);
}
}  // namespace

template <class T>
result draws_match_host() {
  result r;
  FLUXION_SKIP_WITHOUT_DEVICE(r)
  const std::size_t n = 2000;
  std::vector<std::uint32_t> words(n * draws_per_key);
  std::vector<T> uniforms(n * draws_per_key), samples(n * samples_per_key);
  for (std::size_t i = 0; i < n; ++i) draw_key_stream(i, words.data(), uniforms.data(), samples.data());
  const struct {
    unsigned blocks, threads;
    bool reverse;
  } shapes[] = {{unsigned((n + 127) / 128), 128, false}, {1, 96, true}};
  for (const auto& shape : shapes) {
    device_buffer<std::uint32_t> dw(words.size());
    device_buffer<T> du(uniforms.size()), ds(samples.size());
    draws_kernel<T><<<shape.blocks, shape.threads>>>(n, shape.reverse, dw.ptr, du.ptr, ds.ptr);
    sync();
    const std::string how = std::to_string(shape.blocks) + " x " + std::to_string(shape.threads) + " threads";
    if (!bitwise_equal(dw.download(), words)) r.failures.push_back("Philox words differ from the host's, " + how);
    if (!bitwise_equal(du.download(), uniforms)) r.failures.push_back("uniforms differ from the host's, " + how);
    const auto got = ds.download();
    for (int k = 0; k < samples_per_key; ++k) {
      std::size_t differ = 0;
      for (std::size_t i = 0; i < n; ++i)
        differ += std::memcmp(&got[i * samples_per_key + k], &samples[i * samples_per_key + k], sizeof(T)) != 0;
      if (differ)
        r.failures.push_back("sampler " + std::to_string(k) + ": " + std::to_string(differ) + " of " +
                             std::to_string(n) + " draws differ from the host's, " + how);
    }
  }
  r.summary = "keyed Philox4x32-10 draw streams: words, uniforms and the draws of every sampler (normal, log-normal, "
              "gamma, beta, Poisson both ways, negative binomial, binomial, beta-binomial) of 2000 keys bit for bit the "
              "host's, in two launch shapes";
  return r;
}

template result draws_match_host<float>();
template result draws_match_host<double>();

}  // namespace device_cases
