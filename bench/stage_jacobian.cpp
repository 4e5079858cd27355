// The stiff stage model (tests/support/stage_model.hpp: 3 compartments x 5
// stages, transport, index conditions) written with index spaces, written
// out state by state, and by hand: what the hierarchical form costs against
// the flat one (issue 41, item 1). On one thread, double:
//   rhs, jac_x_dense    ns per call, median of R repeats over B instances
//                       (AoS, one instance's inputs after the other);
//   rodas5p, rosenbrock23   a host ensemble of N trajectories over t in [0, 10]
//                       (fx::host::integrate, one thread, lanes as the library
//                       picks them; rtol 1e-6, atol 1e-8), ns per trajectory,
//                       with the steps taken (accepted + rejected) and the
//                       largest relative error of the final states of the
//                       first 16 trajectories against RK4 at h = 1e-5;
//   odeint-rosenbrock4  the same by Boost.Odeint's rosenbrock4 and its
//                       controller on the hand-written rhs and Jacobian, one
//                       trajectory a call (where Boost.Odeint was found).
// One JSON object per line:
//   {"bench": "jac_x_dense", "form": "hierarchical", "dtype": "f64", "B": 4096, "repeats": 7, "ns": ...}
//   {"bench": "rodas5p", "form": "flat", "dtype": "f64", "N": 256, "repeats": 5, "ns": ..., "steps": ..., "error": ...}
// Usage: fluxion-bench-stage [B [N [repeats]]]     (defaults 4096, 256, 7)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <vector>

#include <fluxion/fluxion.hpp>

#include "support/stage_model.hpp"
#ifdef FLUXION_BENCH_ODEINT
#  include "solvers_host_odeint.hpp"
#endif

namespace fx = fluxion;
namespace sm = stage_model;

namespace {

volatile double sink;  // keeps results observable

template <class F>
double median_ns(std::size_t per, int repeats, F&& run) {
  run();  // warm-up
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(per));
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

void emit(const char* bench, const char* form, std::size_t B, int repeats, double ns) {
  std::printf("{\"bench\": \"%s\", \"form\": \"%s\", \"dtype\": \"f64\", \"B\": %zu, \"repeats\": %d, \"ns\": %.1f}\n",
              bench, form, B, repeats, ns);
}

constexpr int n = sm::n_states, np = sm::n_params;

struct instances {
  std::vector<double> x, p;
  explicit instances(std::size_t B) : x(B * n), p(B * np) {
    std::mt19937_64 rng(41);
    for (std::size_t b = 0; b < B; ++b) sm::draw_stiff(rng, x.data() + b * n, p.data() + b * np);
  }
};

template <class Rhs, class Jac>
void evaluators(const char* form, const instances& in, std::size_t B, int repeats, Rhs rhs, Jac jac) {
  std::vector<double> dx(B * n), J(n * n);
  emit("rhs", form, B, repeats, median_ns(B, repeats, [&] {
         for (std::size_t b = 0; b < B; ++b) rhs(in.x.data() + b * n, in.p.data() + b * np, dx.data() + b * n);
         sink = dx[B * n - 1];
       }));
  emit("jac_x_dense", form, B, repeats, median_ns(B, repeats, [&] {
         double acc = 0;
         for (std::size_t b = 0; b < B; ++b) {
           jac(in.x.data() + b * n, in.p.data() + b * np, J.data());
           acc += J[b % (n * n)];
         }
         sink = acc;
       }));
}

template <class M>
void evaluators_of(const char* form, const instances& in, std::size_t B, int repeats) {
  evaluators(
      form, in, B, repeats, [](const double* x, const double* p, double* dx) { M{}.rhs(0.0, x, p, dx); },
      [](const double* x, const double* p, double* J) {
        M{}.template jacobian_dense<M::jacobian::x>(0.0, x, 1, p, 1, J, 1);
      });
}

constexpr double t_end = 10.0, rtol = 1e-6, atol = 1e-8;
constexpr std::size_t checked = 16;  // trajectories compared with the RK4 reference

// The largest relative error of trajectory b's final state (final(i) its
// state i) against the reference, over the first `checked` trajectories.
template <class Final>
double worst_error(const std::vector<std::vector<double>>& ref, const Final& final_state) {
  double worst = 0;
  for (std::size_t b = 0; b < ref.size(); ++b)
    for (int i = 0; i < n; ++i)
      worst = std::max(worst, std::abs(final_state(b, i) - ref[b][std::size_t(i)]) / std::max(std::abs(ref[b][std::size_t(i)]), 1e-6));
  return worst;
}

void emit_ensemble(const char* bench, const char* form, std::size_t N, int repeats, double ns, long long steps, bool ok,
                   double error) {
  std::printf(
      "{\"bench\": \"%s\", \"form\": \"%s\", \"dtype\": \"f64\", \"N\": %zu, \"repeats\": %d, \"ns\": %.1f, "
      "\"steps\": %lld, \"succeeded\": %s, \"error\": %.3g}\n",
      bench, form, N, repeats, ns, steps, ok ? "true" : "false", error);
}

// N trajectories from the instances' states and parameters, in SoA.
template <class M, class Method>
void ensemble(const char* bench, const char* form, Method method, const instances& in, std::size_t N, int repeats,
              const std::vector<std::vector<double>>& ref) {
  std::vector<double> x0(n * N), p(np * N), final_state;
  for (std::size_t b = 0; b < N; ++b) {
    for (int i = 0; i < n; ++i) x0[i * N + b] = in.x[b * n + i];
    for (int j = 0; j < np; ++j) p[j * N + b] = in.p[b * np + j];
  }
  const fx::ode_problem<double> pr{.t0 = 0, .t1 = t_end, .rtol = rtol, .atol = atol};
  long long steps = 0;
  bool ok = true;
  const double ns = median_ns(N, repeats, [&] {
    const auto r = fx::host::integrate(M{}, method, pr, N, fx::soa(std::span<const double>(x0)),
                                       fx::soa(std::span<const double>(p)), fx::host::threads(1));
    steps = 0;
    for (const auto& s : r.stats) steps += s.accepted + s.rejected;
    ok = r.all_succeeded();
    final_state = r.final_state;
  });
  emit_ensemble(bench, form, N, repeats, ns, steps, ok,
                worst_error(ref, [&](std::size_t b, int i) { return final_state[std::size_t(i) * N + b]; }));
}

#ifdef FLUXION_BENCH_ODEINT
// Odeint's rosenbrock4 on the hand-written model, one trajectory a call.
void odeint_ensemble(const instances& in, std::size_t N, int repeats, const std::vector<std::vector<double>>& ref) {
  std::vector<double> final_state(n * N);
  long long steps = 0;
  bool ok = true;
  const auto rhs = static_cast<void (*)(const double*, const double*, double*)>(&sm::hand::rhs<double>);
  const auto jac = static_cast<void (*)(const double*, const double*, double*)>(&sm::hand::jac_x<double>);
  const double ns = median_ns(N, repeats, [&] {
    steps = 0;
    ok = true;
    for (std::size_t b = 0; b < N; ++b) {
      const auto s = odeint_peer::system_rosenbrock4(n, rhs, jac, &in.x[b * n], &in.p[b * np], t_end, 1e-6, atol, rtol,
                                                     &final_state[b * n]);
      steps += s.accepted + s.rejected;
      ok = ok && s.ok;
    }
  });
  emit_ensemble("odeint-rosenbrock4", "hand", N, repeats, ns, steps, ok,
                worst_error(ref, [&](std::size_t b, int i) { return final_state[b * n + std::size_t(i)]; }));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::size_t B = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4096;
  const std::size_t N = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 7;
  if (B == 0 || N == 0 || N > B || repeats < 1) {
    std::fprintf(stderr, "usage: fluxion-bench-stage [B [N <= B [repeats]]]\n");
    return 2;
  }
  using H = fx::compiled<sm::hierarchical, double>;
  using F = fx::compiled<sm::flat, double>;
  const instances in(B);
  evaluators_of<H>("hierarchical", in, B, repeats);
  evaluators_of<F>("flat", in, B, repeats);
  evaluators("hand", in, B, repeats, [](const double* x, const double* p, double* dx) { sm::hand::rhs(x, p, dx); },
             [](const double* x, const double* p, double* J) { sm::hand::jac_x(x, p, J); });
  std::vector<std::vector<double>> ref;
  for (std::size_t b = 0; b < std::min(N, checked); ++b) ref.push_back(sm::rk4_final(&in.x[b * n], &in.p[b * np], t_end, 1e-5));
  const int r = std::max(1, repeats / 2);
  ensemble<H>("rodas5p", "hierarchical", fx::rodas5p{}, in, N, r, ref);
  ensemble<F>("rodas5p", "flat", fx::rodas5p{}, in, N, r, ref);
  ensemble<H>("rosenbrock23", "hierarchical", fx::rosenbrock23{}, in, N, r, ref);
  ensemble<F>("rosenbrock23", "flat", fx::rosenbrock23{}, in, N, r, ref);
#ifdef FLUXION_BENCH_ODEINT
  odeint_ensemble(in, N, r, ref);
#endif
  return 0;
}
