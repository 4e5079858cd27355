#pragma once
// Log-densities and their gradients on the GPU: one thread a trajectory,
// each with its own steps. At the save times a thread records only the
// observables (and their derivatives) in its slot of a scratch buffer, and
// evaluates the densities after its integration, when the warp's threads
// run together (no trajectory is written to memory). CUDA translation units
// only; each strategy's launcher is a header of infer/cuda/.
//
//   fx::log_density_buffers<double> out{value_dev, gradients_dev, status_dev};
//   fx::cuda::log_density(M{}, fx::tsit5{}, problem, lik, data, pri, B, fx::soa(x0_dev), fx::soa(p_dev), out, stream);
//
// The likelihood, priors, problem and data are host objects, checked on the
// host before anything is launched (as fx::host::log_density checks them);
// the data, save times and tolerances travel to the device in one
// stream-ordered allocation with the scratch (for every resident thread:
// save times x observables values, x (1 + columns) with the gradient), freed
// after the kernel into fluxion's pool, which keeps it for the next call
// (exec/cuda/scratch.hpp; fx::cuda::release_scratch() returns it). The
// scratch takes at most half the free device memory: fewer threads are
// launched beyond, and cuda_error is raised before any work when not even
// one block's scratch fits. x0, p and the outputs
// are device memory the caller owns: value[b]; gradients [column][trajectory]
// (the parameters, then the initial states; an empty span asks for the
// value alone, which integrates the model without sensitivities); status[b];
// optionally statistics.
//
// With the gradient, fx::cuda::lane_per_column{} (before the stream) spreads
// each trajectory over 1 + n_params + n_states lanes of a warp, one a
// sensitivity column (infer/log_density_columns.hpp), for models of up to 31
// columns: a lane integrates n_states values instead of a thread's
// n_states (1 + columns), and the densities' terms are shared among the
// lanes by save time. Its scratch is a lane's records and terms:
// save times x (observables + the series' partials) values a lane.
//
// With the gradient, fx::discrete_adjoint{} (before the stream) computes it
// backward through each trajectory's recorded steps
// (infer/log_density_adjoint.hpp), in three kernels: the integrations of
// the model alone onto tapes, the densities' terms of every trajectory and
// save time in parallel, the backward passes. Every trajectory has a tape of
// save times x n_states + recorded_steps x (n_states + 2) values (and its
// terms' sums, a value and n_params derivatives for every 8 save times); when
// those of all trajectories exceed half the free device memory, the kernels
// take them in chunks that fit. A trajectory taking more accepted steps than
// recorded_steps ends with status max_steps.
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include <fluxion/exec/cuda/launch.hpp>
#include <fluxion/infer/buffers.hpp>  // log_density_buffers
#include <fluxion/infer/concepts.hpp>
#include <fluxion/infer/cuda/discrete_adjoint.hpp>
#include <fluxion/infer/cuda/lane_per_column.hpp>
#include <fluxion/infer/cuda/launch.hpp>
#include <fluxion/infer/cuda/thread_per_trajectory.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/solve/cuda.hpp>  // thread_per_trajectory
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/sensitivity.hpp>

namespace fluxion::cuda {

template <class M, class Method, class Lik, class Pri>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri>
void log_density(const M& m, Method method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, cudaStream_t stream = nullptr) {
  log_density(m, method, pr, lik, data, pri, count, x0, p, out, thread_per_trajectory{}, stream);
}

template <class M, class Method, class Lik, class Pri, class Policy>
  requires fluxion::detail::log_density_parts<M, Method, Lik, Pri> &&
           (std::is_same_v<Policy, thread_per_trajectory> || std::is_same_v<Policy, lane_per_column> ||
            std::is_same_v<Policy, discrete_adjoint>)
void log_density(const M& m, Method, const ode_problem<typename M::scalar>& pr, const Lik& lik,
                 std::span<const series_data<typename M::scalar>> data, const Pri& pri, std::size_t count,
                 batch<const typename M::scalar> x0, batch<const typename M::scalar> p,
                 const log_density_buffers<typename M::scalar>& out, Policy policy, cudaStream_t stream = nullptr) {
  using T = typename M::scalar;
  // The model integrated: M, or M with its observables accumulated for a
  // series over intervals (its states after M's; x0 and the gradient keep M's).
  using E = fluxion::detail::integrated_model_t<M, Lik>;
  const bool gradient = !out.gradients.empty();
  constexpr bool by_adjoint = std::is_same_v<Policy, discrete_adjoint>;
  if constexpr (by_adjoint) fluxion::detail::check_adjoint_settings(policy);
  const bool adjoint_kernel = by_adjoint && gradient;
  // Forward sensitivities integrate the augmented system (its tolerances);
  // the adjoint and the value alone, the model.
  const bool sensitivities = gradient && !adjoint_kernel;
  fluxion::detail::log_density_setup<T> setup;
  const ode_problem<T> aug = fluxion::detail::check_log_density<M>(pr, lik, data, pri, sensitivities, setup);
  const std::size_t n_system = sensitivities ? sensitivity_system<E>::n_states : E::n_states;
  const ode_options<T> o = check_problem(aug, n_system, E::n_params);
  const auto c = fluxion::detail::check_log_density_buffers<T>(M::n_states, M::n_params, count, x0, p, out, Lik::size,
                                                               setup.timeline.n_terms);
  detail::check_device_memory(c);
  if (count == 0) return;
  // The strategy: a launcher (infer/cuda/) plans its grids and scratch, then
  // launch_log_density stages the data and runs it. A lane a column holds a
  // trajectory's 1 + columns lanes in one warp (up to 31 columns); the value
  // alone always runs a thread a trajectory.
  const auto run = [&](const auto& launcher) {
    detail::launch_log_density(launcher, fluxion::detail::integrated_model(m, lik), o, n_system, lik, data,
                               setup.timeline, pri, count, c, stream);
  };
  constexpr bool by_column = std::is_same_v<Policy, lane_per_column> && 1 + E::n_params + E::n_states <= 32;
  if (!gradient) return run(detail::thread_per_trajectory_launcher<Method, false, E, Lik, Pri>(o, count));
  if constexpr (by_adjoint)
    run(detail::discrete_adjoint_launcher<Method, E, Lik, Pri>(o, count, policy, !out.series_values.empty()));
  else if constexpr (by_column)
    run(detail::lane_per_column_launcher<Method, E, Lik, Pri>(o, count));
  else
    run(detail::thread_per_trajectory_launcher<Method, true, E, Lik, Pri>(o, count));
}

// A model, method, likelihood or priors that are not ones: one sentence
// naming the concept (infer/concepts.hpp) instead of errors from inside.
template <class M, class Method, class Problem, class Lik, class Data, class Pri, class... Rest>
  requires(!fluxion::detail::log_density_parts<M, Method, Lik, Pri>)
auto log_density(const M&, Method, const Problem&, const Lik&, const Data&, const Pri&, Rest&&...) {
  return fluxion::detail::require_log_density<M, Method, Lik, Pri>();
}

}  // namespace fluxion::cuda
