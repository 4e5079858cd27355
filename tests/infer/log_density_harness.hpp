// What the log-density tests share besides their models and oracles: the
// data_error a call raises, and one trajectory's log-density computed by a
// member per sensitivity column (the GPU's lane-per-column protocol,
// infer/log_density_columns.hpp) run by host threads meeting at a barrier.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_columns.hpp>

#include "support/host_members.hpp"

#include <barrier>
#include <cmath>
#include <cstddef>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace log_density_harness {

namespace fx = fluxion;

// The data_error's message that f throws (fails when it throws none).
template <class F>
std::string data_error_of(const F& f) {
  try {
    f();
  } catch (const fx::data_error& e) {
    return e.what();
  } catch (const std::exception& other) {
    FAIL("expected fluxion::data_error, got " << other.what());
  }
  FAIL("expected fluxion::data_error, nothing was thrown");
  return {};
}

// One trajectory (x0, p contiguous) of model M under the likelihood and
// data, integrated and summed by 1 + n_params + n_states members of model
// E, the model the log-density integrates (fx::detail::integrated_model_t):
// *value and grad[j grad_stride] as the members write them, and each
// member's status (all the same when the protocol holds).
template <class Method, class M, class Lik, class Pri>
std::vector<fx::solve_status> members_log_density(const fx::ode_problem<double>& problem, const Lik& lik,
                                                  const std::vector<fx::series_data<double>>& data, const Pri& pri,
                                                  const double* x0, const double* p, double* value, double* grad,
                                                  std::ptrdiff_t grad_stride, fx::term_outputs<double> terms = {}) {
  using E = fx::detail::integrated_model_t<M, Lik>;
  using Sink = fx::detail::member_log_density_sink<E, Lik, support::host_members<double>>;
  constexpr int G = 1 + int(E::n_params + E::n_states);
  fx::detail::log_density_setup<double> setup;
  const auto checked = fx::detail::check_log_density<M>(problem, lik, std::span(data), pri, true, setup);
  const auto views = fx::detail::host_series_views(std::span<const fx::series_data<double>>(data), setup.timeline);
  const auto o = fx::check_problem(checked, fx::sensitivity_system<E>::n_states, E::n_params);
  std::vector<double> scratch(G * Sink::slot_values(o.n_save), std::nan("")), slots(G);
  std::vector<fx::solve_status> status(G);
  std::vector<fx::solve_statistics> stats(G);
  std::barrier<> meet(G);
  std::vector<std::thread> members;
  for (unsigned r = 0; r < unsigned(G); ++r)
    members.emplace_back([&, r] {
      const support::host_members<double> g{r, unsigned(G), &meet, slots.data()};
      status[r] = fx::detail::trajectory_log_density_members<Method>(
          E{}, g, o, lik, views.data(), pri, x0, 1, p, 1, value, grad, grad_stride, stats[r],
          fx::detail::deferred_terms<double>{scratch.data() + r, std::ptrdiff_t(G)}, terms);
    });
  for (auto& t : members) t.join();
  return status;
}

}  // namespace log_density_harness
