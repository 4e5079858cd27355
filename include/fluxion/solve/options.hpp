#pragma once
// What every trajectory of an integration shares (ode_options, made from an
// ode_problem by check_problem, solve/problem.hpp) and where one trajectory
// reads its inputs and writes its outputs (trajectory_io): the arguments of
// the adaptive driver (solve/driver.hpp) and of the host lanes' ensemble
// (solve/lane_ensemble.hpp). Passed to kernels by value.
#include <cstddef>

#include <fluxion/config/macros.hpp>
#include <fluxion/solve/events.hpp>

namespace fluxion {

template <class T>
struct ode_options {
  T t0 = 0, t1 = 0;
  T rtol = T(1e-6), atol = T(1e-6);
  const T* atol_per_state = nullptr;  // n_states values, or null for `atol`
  const T* save_times = nullptr;      // sorted, inside [t0, t1]
  std::size_t n_save = 0;
  T initial_step = 0;            // 0: chosen per trajectory
  long long max_steps = 100000;  // accepted + rejected, at most 1e8 (checked with the problem)
  bool adaptive = true;          // false: every step initial_step long (the last one shortened to end on t1)
  bool step_to_save_times = false;  // true: steps end on save times instead of interpolating there
  const timed_event<T>* events = nullptr;  // in time order, inside [t0, t1] (solve/events.hpp)
  std::size_t n_events = 0;
  bool sets_params = false;  // some events set parameters (inputs): the integration reads its own copy of them
  const crossing_event<T>* crossings = nullptr;  // at most max_crossings (solve/crossings.hpp)
  std::size_t n_crossings = 0;
};

namespace detail {
// The parameters inputs drive are those an event at or before t0 sets
// (check_events requires each driven parameter's first event there), so
// these read the events before t0 alone, not a whole table.
// Whether an input drives parameter k.
template <class T>
FLUXION_HOST_DEVICE bool drives(const ode_options<T>& o, int k) {
  if (!o.sets_params) return false;
  for (std::size_t i = 0; i < o.n_events && o.events[i].time <= o.t0; ++i)
    if (o.events[i].sets_param == k) return true;
  return false;
}
// The gradient entries of the parameters inputs drive set to 0 (entries
// `stride` apart): the trajectory's own values of them are never read.
template <class T>
FLUXION_HOST_DEVICE void zero_driven(const ode_options<T>& o, T* grad, std::ptrdiff_t stride) {
  if (!o.sets_params) return;
  for (std::size_t i = 0; i < o.n_events && o.events[i].time <= o.t0; ++i)
    if (o.events[i].sets_param >= 0) grad[std::ptrdiff_t(o.events[i].sets_param) * stride] = T(0);
}
}  // namespace detail

// Where one trajectory reads its inputs and writes its outputs (strides in
// values between consecutive elements or save times).
template <class T>
struct trajectory_io {
  const T* x0;
  std::ptrdiff_t x0_stride;
  const T* p;
  std::ptrdiff_t p_stride;
  T* saved;  // may be null when there are no save times
  std::ptrdiff_t saved_state_stride;
  std::ptrdiff_t saved_time_stride;
  T* final_state;
  std::ptrdiff_t final_stride;
  T* crossing_times = nullptr;  // the time each crossing event first fired (NaN: never), or null
  std::ptrdiff_t crossing_stride = 0;
};

}  // namespace fluxion
