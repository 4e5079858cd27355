#pragma once
// integrate and log_density from Python. The problem (span, save times,
// tolerances) is plain Python values and arrays; the batches are NumPy or
// GPU arrays as for the evaluators, and the results are new arrays where
// the inputs live:
//
//   r = m.integrate(x0, p, t_span=(0, 10), save_times=ts, method="rodas5p", rtol=1e-8, atol=1e-10)
//   r.saved      (B, n_save, n_states)   views of one [save][state][trajectory] buffer
//   r.final      (B, n_states)
//   r.status     (B,) int32: 0 success, 1 max_steps, 2 step_too_small, 3 non_finite (m.status_names)
//   r.stats      {"accepted": (B,) int32, "rejected", "rhs_evaluations", "jacobian_evaluations", "factorizations"}
//
//   d = m.log_density(x0, p, data=[{"values": y, "mask": seen}], t_span=(0, 70), save_times=days)
//   d.value (B,), d.gradient (B, n_params + n_states) (parameters, then initial states), d.status,
//   d.stats (None with stats=False)
//
// Binding unit only.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <fluxion/infer/log_density.hpp>
#include <fluxion/layout/describe.hpp>
#include <fluxion/python/detail/module.hpp>
#include <fluxion/solve/events.hpp>
#include <fluxion/solve/problem.hpp>
#include <fluxion/solve/status.hpp>

// Hidden, as pybind11 is: the module's own symbols, never another module's.
#pragma GCC visibility push(hidden)

namespace fluxion::python {

namespace detail {

inline method method_of(const std::string& name) {
  for (int k = 0; k < method_count; ++k)
    if (name == method_names[k]) return method(k);
  throw py::value_error("method must be one of 'tsit5', 'vern7', 'rosenbrock23', 'rodas5p', got '" + name + "'");
}

inline gpu_policy policy_of(const std::string& name, bool log_density) {
  if (name == "thread") return gpu_policy::thread;
  if (!log_density && name == "warp") return gpu_policy::warp;
  if (log_density && name == "lanes") return gpu_policy::lanes;
  if (log_density && name == "adjoint") return gpu_policy::adjoint;
  throw py::value_error(std::string("policy must be one of ") +
                        (log_density ? "'thread', 'lanes', 'adjoint'" : "'thread', 'warp'") + ", got '" + name + "'");
}

// A host vector of T from a Python sequence or array (host or GPU: the
// problem's small arrays are copied to the host, as the C++ problem holds
// them there).
template <class T>
std::vector<T> host_values(const py::object& o, const char* name) {
  py::object a = o;
  if (py::hasattr(o, "__cuda_array_interface__")) {
    const std::string top = py::type::handle_of(o).attr("__module__").cast<std::string>();
    if (top.rfind("torch", 0) == 0)
      a = o.attr("cpu")().attr("numpy")();
    else
      a = cupy_api(array_family::cupy).asnumpy(o);
  }
  py::array_t<double, py::array::c_style | py::array::forcecast> d;
  try {
    d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  } catch (py::error_already_set&) {
  }
  if (!d) throw py::type_error(std::string(name) + " must be a sequence of numbers or a 1-d array");
  if (d.ndim() != 1) throw py::value_error(std::string(name) + " must be one-dimensional, got " + std::to_string(d.ndim()) + " dimensions");
  std::vector<T> v(std::size_t(d.shape(0)));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = T(d.data()[k]);
  return v;
}

// What a problem's Python arguments hold, kept alive for the call.
template <class T>
struct problem_values {
  std::vector<T> save_times, atol_per_state;
  std::vector<timed_event<T>> events;
  std::vector<crossing_event<T>> crossings;
  ode_problem<T> problem;
};

// The flat names of a model's states and parameters, to read events by name.
struct element_names_of {
  std::vector<std::string> states, parameters, observables;
};

// A state or parameter of an event: a flat name ("y", "S[2][0]") or index.
inline int element_index(const py::handle& v, const std::vector<std::string>& names, const char* block,
                         const std::string& where) {
  if (py::isinstance<py::str>(v)) {
    const std::string name = v.cast<std::string>();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return int(i);
    throw py::value_error(where + ": the model has no " + block + " named '" + name + "'");
  }
  try {
    return py::int_(py::reinterpret_borrow<py::object>(v)).cast<int>();
  } catch (py::error_already_set&) {
    throw py::type_error(where + ": a " + std::string(block) + " is a name or a flat index, got " + type_text(v));
  }
}

// How many of the actions a dict names (add, set, scale, add_parameter,
// set_parameter, move), and the refusal of any other number than one.
inline int action_count(const py::dict& d) {
  static constexpr const char* actions[] = {"add", "set", "scale", "add_parameter", "set_parameter", "move"};
  int found = 0;
  for (const char* a : actions) found += d.contains(a) ? 1 : 0;
  return found;
}
inline void require_one_action(const py::dict& d, const std::string& where) {
  if (action_count(d) != 1)
    throw py::value_error(where + " needs exactly one action: add, set, scale, add_parameter, set_parameter or move");
}

// An event's action from a Python dict (the keys besides "time", checked by
// the caller): "state" and one of "add", "set", "scale" (a number),
// "add_parameter" (a parameter, with an optional "weight") or
// "set_parameter" (a parameter); or "move": fraction with "from" and "to"
// (two events). Appended to `list` at `time`.
template <class T>
void add_action(timed_events<T>& list, T time, const py::dict& d, const std::string& where,
                const element_names_of& names) {
  const auto number = [&](const char* key) { return T(time_value(d[key], (where + "[\"" + key + "\"]").c_str())); };
  const auto state = [&](const char* key) {
    if (!d.contains(key)) throw py::value_error(where + " has no \"" + std::string(key) + "\"");
    return element_index(d[key], names.states, "state", where);
  };
  require_one_action(d, where);
  if (d.contains("move")) {
    list.move(time, state("from"), state("to"), number("move"));
    return;
  }
  const int i = state("state");
  if (d.contains("weight") && !d.contains("add_parameter"))
    throw py::value_error(where + ": \"weight\" goes with \"add_parameter\" only");
  if (d.contains("add")) list.add(time, i, number("add"));
  else if (d.contains("set")) list.set(time, i, number("set"));
  else if (d.contains("scale")) list.scale(time, i, number("scale"));
  else if (d.contains("add_parameter"))
    list.add_parameter(time, i, element_index(d["add_parameter"], names.parameters, "parameter", where),
                       d.contains("weight") ? number("weight") : T(1));
  else list.set_parameter(time, i, element_index(d["set_parameter"], names.parameters, "parameter", where));
}

// The number of an action's keys in d: the action, "state" or "from" and
// "to", and "weight" where given.
inline std::size_t action_keys(const py::dict& d) {
  return (d.contains("move") ? 3 : 2) + (d.contains("weight") ? 1 : 0);
}

// The dicts of a list argument (`what`), each checked to be a dict.
inline std::vector<py::dict> dicts_of(const py::object& list, const char* what) {
  if (!py::isinstance<py::sequence>(list) || py::isinstance<py::str>(list))
    throw py::type_error(std::string(what) + " must be a list of dicts, got " + type_text(list));
  std::vector<py::dict> out;
  std::size_t k = 0;
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(list)) {
    if (!py::isinstance<py::dict>(item))
      throw py::type_error(std::string(what) + "[" + std::to_string(k) + "] must be a dict, got " + type_text(item));
    out.push_back(py::reinterpret_borrow<py::dict>(item));
    ++k;
  }
  return out;
}

// Inputs from data (solve/events.hpp) from Python: a list of dicts, each
// {"parameter", "times", "values"} (piecewise constant) or {"level",
// "slope", "times", "values"} (piecewise linear, the model reading
// level + slope * t), parameters by name or flat index.
template <class T>
void fill_inputs(timed_events<T>& list, const py::object& inputs, const element_names_of& names) {
  if (inputs.is_none()) return;
  const std::vector<py::dict> given = dicts_of(inputs, "inputs");
  for (std::size_t k = 0; k < given.size(); ++k) {
    const py::dict& d = given[k];
    const std::string where = "inputs[" + std::to_string(k) + "]";
    const bool linear = d.contains("level") || d.contains("slope");
    if (!d.contains("times") || !d.contains("values") ||
        (linear ? !(d.contains("level") && d.contains("slope")) : !d.contains("parameter")) ||
        d.size() != (linear ? 4u : 3u))
      throw py::value_error(where + " must be {'parameter', 'times', 'values'} (piecewise constant) or {'level', "
                                    "'slope', 'times', 'values'} (piecewise linear)");
    const std::vector<T> times = host_values<T>(d["times"], (where + "[\"times\"]").c_str());
    const std::vector<T> values = host_values<T>(d["values"], (where + "[\"values\"]").c_str());
    try {
      if (linear)
        list.piecewise_linear(element_index(d["level"], names.parameters, "parameter", where),
                              element_index(d["slope"], names.parameters, "parameter", where), times, values);
      else
        list.piecewise_constant(element_index(d["parameter"], names.parameters, "parameter", where), times, values);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(where + ": " + e.what());
    }
  }
}

// Events from Python (solve/events.hpp): a list of dicts, each with "time"
// and an action (add_action). Kept in time order, the events of one time in
// the order given.
template <class T>
void fill_events(problem_values<T>& v, const py::object& events, const py::object& inputs,
                 const element_names_of& names) {
  if (events.is_none() && inputs.is_none()) return;
  timed_events<T> list;
  fill_inputs(list, inputs, names);
  const std::vector<py::dict> given = events.is_none() ? std::vector<py::dict>{} : dicts_of(events, "events");
  for (std::size_t k = 0; k < given.size(); ++k) {
    const py::dict& d = given[k];
    const std::string where = "events[" + std::to_string(k) + "]";
    if (!d.contains("time")) throw py::value_error(where + " has no \"time\"");
    require_one_action(d, where);
    if (d.size() != 1 + action_keys(d))
      throw py::value_error(where + " has keys that are not time, state, the action, weight (add_parameter) or from "
                                    "and to (move)");
    add_action(list, T(time_value(d["time"], (where + "[\"time\"]").c_str())), d, where, names);
  }
  v.events.assign(list.events().begin(), list.events().end());
  v.problem.events = v.events;
}

// Crossing events from Python: a list of dicts, each with "observable" (a
// name or flat index), "level", optionally "direction" ("up", "down" or
// "either", the default) and either "stop": True (the default without an
// action) or an action (add_action, not "move") applied at the crossing.
template <class T>
void fill_crossings(problem_values<T>& v, const py::object& crossings, const element_names_of& names) {
  if (crossings.is_none()) return;
  const std::vector<py::dict> given = dicts_of(crossings, "crossings");
  for (std::size_t k = 0; k < given.size(); ++k) {
    const py::dict& d = given[k];
    const std::string where = "crossings[" + std::to_string(k) + "]";
    if (!d.contains("observable") || !d.contains("level"))
      throw py::value_error(where + " needs \"observable\" and \"level\"");
    crossing_event<T> c;
    c.observable = element_index(d["observable"], names.observables, "observable", where);
    c.level = T(time_value(d["level"], (where + "[\"level\"]").c_str()));
    std::size_t keys = 2;
    if (d.contains("direction")) {
      ++keys;
      const std::string dir = py::str(d["direction"]);
      if (dir == "up") c.direction = crossing_direction::up;
      else if (dir == "down") c.direction = crossing_direction::down;
      else if (dir == "either") c.direction = crossing_direction::either;
      else throw py::value_error(where + "[\"direction\"] must be 'up', 'down' or 'either', got '" + dir + "'");
    }
    const bool acts = action_count(d) > 0;
    if (d.contains("stop")) {
      ++keys;
      c.stop = d["stop"].cast<bool>();
      if (c.stop == acts)
        throw py::value_error(where + ": a crossing either stops the trajectory (\"stop\": True) or changes its "
                                      "state (an action), not both or neither");
    } else {
      c.stop = !acts;
    }
    if (acts) {
      if (d.contains("move")) throw py::value_error(where + ": a crossing's change is one action, not \"move\"");
      timed_events<T> one;
      add_action(one, T(0), d, where, names);
      c.change = one.events()[0];
      keys += action_keys(d);
    }
    if (d.size() != keys)
      throw py::value_error(where + " has keys that are not observable, level, direction, stop, state, the action "
                                    "or weight (add_parameter)");
    v.crossings.push_back(c);
  }
  v.problem.crossings = v.crossings;
}

template <class T>
void fill_problem(problem_values<T>& v, const py::object& t_span, const py::object& save_times, double rtol, double atol,
                  const py::object& atol_per_state, double initial_step, long long max_steps, bool adaptive,
                  bool step_to_save_times) {
  const py::sequence span = py::reinterpret_borrow<py::sequence>(t_span);
  if (!py::isinstance<py::sequence>(t_span) || span.size() != 2)
    throw py::value_error("t_span must be a pair (t0, t1)");
  v.problem.t0 = T(time_value(span[0], "t_span[0]"));
  v.problem.t1 = T(time_value(span[1], "t_span[1]"));
  if (!save_times.is_none()) v.save_times = host_values<T>(save_times, "save_times");
  if (!atol_per_state.is_none()) v.atol_per_state = host_values<T>(atol_per_state, "atol_per_state");
  v.problem.save_times = v.save_times;
  v.problem.rtol = T(rtol);
  v.problem.atol = T(atol);
  v.problem.atol_per_state = v.atol_per_state;
  v.problem.initial_step = T(initial_step);
  v.problem.max_steps = max_steps;
  v.problem.adaptive = adaptive;
  v.problem.step_to_save_times = step_to_save_times;
}

inline py::dict stats_dict(const call_arrays& c, const py::object& stats) {
  static constexpr const char* names[5] = {"accepted", "rejected", "rhs_evaluations", "jacobian_evaluations",
                                           "factorizations"};
  py::dict d;
  for (py::ssize_t k = 0; k < 5; ++k)
    d[names[k]] = as_result(c.first(), stats[py::make_tuple(py::slice(py::none(), py::none(), py::none()), k)]);
  return d;
}

// A call's status (B,) int32 and, unless left out, statistics (B, 5) int32,
// where the inputs live: declared among its results, pointed to by the
// call's outputs, and handed out as "status" and "stats" (None when left out).
struct status_results {
  std::size_t status, stats;
  bool with_stats;

  status_results(result_arrays& out, std::size_t count, bool with)
      : status(out.add("int32", {py::ssize_t(count)})),
        stats(with ? out.add("int32", {py::ssize_t(count), py::ssize_t(5)}) : 0),
        with_stats(with) {}

  template <class Outputs>
  void point(const result_arrays& out, Outputs& o, std::size_t count) const {
    o.status = std::span<solve_status>(out.data<solve_status>(status), count);
    if (with_stats) o.stats = std::span<solve_statistics>(out.data<solve_statistics>(stats), count);
  }

  void hand_out(py::dict& r, const call_arrays& c, result_arrays& out) const {
    r["status"] = as_result(c.first(), out.array(status));
    r["stats"] = with_stats ? py::object(stats_dict(c, out.array(stats))) : py::object(py::none());
  }
};

// The batch's inputs x0 and p: (n,) or (B, n); B is 1 when neither is batched.
inline call_arrays ensemble_inputs(const py::object& x0, const py::object& p, std::size_t n_states, std::size_t n_params) {
  call_arrays c;
  c.add(x0, "x0");
  c.add(p, "p");
  c.size_batch(c.inputs[0], n_states);
  c.size_batch(c.inputs[1], n_params);
  c.batched = true;  // an ensemble always has a trajectory dimension
  return c;
}

}  // namespace detail

template <class Spec>
struct bound_solvers {
  using B = bound_model<Spec>;

  template <class T>
  static py::object integrate(detail::call_arrays& c, detail::problem_values<T>& pv, method how, gpu_policy policy,
                              const py::object& threads) {
    const bool device = c.device >= 0;
    const std::size_t n = B::n_states, count = c.count, n_save = pv.save_times.size();
    integrate_call<T> call;
    call.how = how;
    call.policy = policy;
    call.problem = pv.problem;
    call.count = count;
    call.x0 = detail::input_batch<T>(c.inputs[0], n, count);
    call.p = detail::input_batch<T>(c.inputs[1], B::n_params, count);
    call.threads = detail::thread_count(threads);
    detail::choose_stream(c);
    call.stream = c.stream;
    const char* dt = detail::float_name(c.dtype);
    // [save][state][trajectory] and [state][trajectory], as the C++ results.
    result_arrays out(c.first());
    const std::size_t saved = out.add(dt, {py::ssize_t(n_save), py::ssize_t(n), py::ssize_t(count)});
    const std::size_t final_state = out.add(dt, {py::ssize_t(n), py::ssize_t(count)});
    const std::size_t n_crossings = pv.crossings.size();
    const std::size_t crossings = n_crossings ? out.add(dt, {py::ssize_t(n_crossings), py::ssize_t(count)}) : 0;
    const detail::status_results st(out, count, true);
    out.make();
    call.out.saved = std::span<T>(out.data<T>(saved), n_save * n * count);
    call.out.final_state = std::span<T>(out.data<T>(final_state), n * count);
    if (n_crossings) call.out.crossing_times = std::span<T>(out.data<T>(crossings), n_crossings * count);
    st.point(out, call.out, count);
    const auto& table = B::template solvers<T>(device);
    const auto integrate = is_stiff(how) ? table.integrate_stiff : table.integrate;
    if (device) {
      detail::device_scope on(c.device);
      integrate(call);
    } else {
      py::gil_scoped_release unlocked;
      integrate(call);
    }
    py::dict r;
    r["saved"] = as_result(c.first(), permuted(c.first(), out.array(saved), {2, 0, 1}));
    r["final"] = as_result(c.first(), permuted(c.first(), out.array(final_state), {1, 0}));
    r["crossing_times"] = n_crossings ? as_result(c.first(), permuted(c.first(), out.array(crossings), {1, 0}))
                                      : py::object(py::none());
    st.hand_out(r, c, out);
    return detail::simple_namespace(r);
  }

  template <class T>
  static py::object log_density(detail::call_arrays& c, detail::problem_values<T>& pv, const py::object& data,
                                method how, gpu_policy policy, bool gradient, bool stats, const std::string& terms,
                                const py::object& threads);
};

namespace detail {

// The problem's settings as integrate and log_density take them from Python.
struct problem_settings {
  py::object t_span, save_times, atol_per_state;
  double rtol, atol, initial_step;
  long long max_steps;
  bool adaptive, step_to_save_times;
  py::object events, crossings = py::none(), inputs = py::none();
};

// What integrate and log_density share: the arrays checked, the method and
// the GPU policy read (log_density's policies where for_log_density), the
// problem filled in the arrays' dtype T, then f(c, pv, how, policy) for T.
template <class B, class F>
py::object with_problem(const py::object& x0, const py::object& p, const std::string& method_name,
                        const std::string& policy, bool for_log_density, const problem_settings& s,
                        const element_names_of& names, F&& f) {
  auto c = ensemble_inputs(x0, p, B::n_states, B::n_params);
  const method how = method_of(method_name);
  const gpu_policy pol = policy_of(policy, for_log_density);
  return for_dtype(c.dtype, [&](auto zero) {
    using T = decltype(zero);
    problem_values<T> pv;
    fill_problem(pv, s.t_span, s.save_times, s.rtol, s.atol, s.atol_per_state, s.initial_step, s.max_steps,
                 s.adaptive, s.step_to_save_times);
    fill_events(pv, s.events, s.inputs, names);
    fill_crossings(pv, s.crossings, names);
    return f(c, pv, how, pol);
  });
}

// The number of series of a spec's likelihood (0 without one).
template <class Spec>
constexpr std::size_t series_count() {
  if constexpr (has_log_density<Spec>) return std::remove_cvref_t<decltype(Spec::likelihood)>::size;
  else return 0;
}

// One series' data from a dict: "values" (n,), one per save time (n_save)
// or per time of the series' own, "times" (n,), and optionally "mask" (n,)
// of 0 (missing) and 1, "trials" (n,), "censoring" (n,) of 0 exact, 1 left
// (Y <= value), 2 right (Y > value), 3 interval (value < Y <= upper),
// "upper" (n,), "parameter_values" (n,) for a density parameter given as
// fx::from_data.
template <class T>
struct series_values {
  std::vector<observation<T>> values;
  std::vector<unsigned char> mask;
  std::vector<T> trials;
  std::vector<T> parameter_values;
  std::vector<T> times;
};

template <class T>
series_values<T> read_series(const py::handle& item, std::size_t k) {
  const std::string where = "data[" + std::to_string(k) + "]";
  if (!py::isinstance<py::dict>(item))
    throw py::type_error(where + " must be a dict with 'values' and optionally 'times', 'mask', 'trials', 'censoring', "
                         "'upper', 'parameter_values'");
  const py::dict d = py::reinterpret_borrow<py::dict>(item);
  for (auto kv : d) {
    const std::string key = py::str(kv.first).cast<std::string>();
    if (key != "values" && key != "times" && key != "mask" && key != "trials" && key != "censoring" &&
        key != "upper" && key != "parameter_values")
      throw py::value_error(where + " has an unknown key '" + key +
                            "' (known: 'values', 'times', 'mask', 'trials', 'censoring', 'upper', 'parameter_values')");
  }
  if (!d.contains("values")) throw py::value_error(where + " has no 'values'");
  series_values<T> s;
  const auto values = host_values<double>(d["values"], (where + "['values']").c_str());
  std::vector<double> kinds(values.size(), 0.0), upper(values.size(), 0.0);
  const auto same_length = [&](const std::vector<double>& v, const char* key) {
    if (v.size() != values.size())
      throw py::value_error(where + "['" + key + "'] has " + std::to_string(v.size()) + " values but 'values' has " +
                            std::to_string(values.size()));
  };
  if (d.contains("censoring")) {
    kinds = host_values<double>(d["censoring"], (where + "['censoring']").c_str());
    same_length(kinds, "censoring");
  }
  if (d.contains("upper")) {
    upper = host_values<double>(d["upper"], (where + "['upper']").c_str());
    same_length(upper, "upper");
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double kd = kinds[i];
    if (!(kd == 0 || kd == 1 || kd == 2 || kd == 3))
      throw py::value_error(where + "['censoring'][" + std::to_string(i) + "] must be 0 (exact), 1 (left), 2 (right) or "
                            "3 (interval), got " + std::to_string(kd));
    s.values.push_back({censoring(int(kd)), T(values[i]), T(upper[i])});
  }
  if (d.contains("mask")) {
    const auto m = host_values<double>(d["mask"], (where + "['mask']").c_str());
    same_length(m, "mask");
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (!(m[i] == 0 || m[i] == 1))
        throw py::value_error(where + "['mask'][" + std::to_string(i) + "] must be 0 (missing) or 1 (observed), got " +
                              std::to_string(m[i]));
      s.mask.push_back(m[i] != 0 ? 1 : 0);
    }
  }
  if (d.contains("trials")) {
    const auto t = host_values<double>(d["trials"], (where + "['trials']").c_str());
    same_length(t, "trials");
    for (double v : t) s.trials.push_back(T(v));
  }
  if (d.contains("parameter_values")) {
    const auto v = host_values<double>(d["parameter_values"], (where + "['parameter_values']").c_str());
    same_length(v, "parameter_values");
    for (double e : v) s.parameter_values.push_back(T(e));
  }
  if (d.contains("times")) {
    const auto v = host_values<double>(d["times"], (where + "['times']").c_str());
    same_length(v, "times");
    for (double e : v) s.times.push_back(T(e));
  }
  return s;
}

}  // namespace detail

template <class Spec>
template <class T>
py::object bound_solvers<Spec>::log_density(detail::call_arrays& c, detail::problem_values<T>& pv, const py::object& data,
                                            method how, gpu_policy policy, bool gradient, bool stats,
                                            const std::string& terms, const py::object& threads) {
  const bool device = c.device >= 0;
  const auto& table = B::template solvers<T>(device);
  if (!has_log_density<Spec>)
    throw py::type_error("this module has no likelihood: give its spec a likelihood and priors to offer log_density");
  if (!table.log_density)
    throw std::runtime_error("fluxion: this module's spec has a likelihood but its device log-density table has no "
                             "entry: its units were built from different specs; rebuild the module");
  if (!py::isinstance<py::sequence>(data) || py::isinstance<py::str>(data) || py::isinstance<py::dict>(data))
    throw py::type_error("data must be a sequence (a list or tuple) of dicts, one a series of the likelihood, got " +
                         detail::type_text(data));
  const auto items = py::reinterpret_borrow<py::sequence>(data);
  std::vector<detail::series_values<T>> held;
  for (std::size_t k = 0; k < items.size(); ++k) held.push_back(detail::read_series<T>(items[k], k));
  std::vector<series_data<T>> series;
  bool own_times = false;
  for (const auto& s : held) {
    series.push_back({s.values, s.mask, s.trials, s.parameter_values, s.times});
    own_times = own_times || !s.times.empty();
  }
  const std::size_t count = c.count, columns = B::n_params + B::n_states;
  log_density_call<T> call;
  call.how = how;
  call.policy = policy;
  call.problem = pv.problem;
  call.data = series;
  call.count = count;
  call.x0 = detail::input_batch<T>(c.inputs[0], B::n_states, count);
  call.p = detail::input_batch<T>(c.inputs[1], B::n_params, count);
  call.threads = detail::thread_count(threads);
  detail::choose_stream(c);
  call.stream = c.stream;
  const char* dt = detail::float_name(c.dtype);
  result_arrays out(c.first());
  const std::size_t value = out.add(dt, {py::ssize_t(count)});
  const std::size_t grad = gradient ? out.add(dt, {py::ssize_t(columns), py::ssize_t(count)}) : 0;
  // The terms, when asked: [series][trajectory] and [observation][trajectory],
  // the observations in the order of the data (series_data.hpp): with a
  // value per save time each, [series][save time][trajectory].
  const std::size_t n_series = detail::series_count<Spec>(), n_save = pv.save_times.size();
  std::size_t n_terms = 0;
  for (const auto& d : series) n_terms += fluxion::detail::series_length(d, n_save);
  const bool with_series = terms != "none", with_observations = terms == "observations";
  if (terms != "none" && terms != "series" && terms != "observations")
    throw py::value_error("terms must be 'none', 'series' or 'observations', got '" + terms + "'");
  const std::size_t series_at = with_series ? out.add(dt, {py::ssize_t(n_series), py::ssize_t(count)}) : 0;
  const std::size_t observations_at =
      !with_observations ? 0
      : own_times        ? out.add(dt, {py::ssize_t(n_terms), py::ssize_t(count)})
                         : out.add(dt, {py::ssize_t(n_series), py::ssize_t(n_save), py::ssize_t(count)});
  const detail::status_results st(out, count, stats);
  out.make();
  call.out.value = std::span<T>(out.data<T>(value), count);
  if (gradient) call.out.gradients = std::span<T>(out.data<T>(grad), columns * count);
  if (with_series) call.out.series_values = std::span<T>(out.data<T>(series_at), n_series * count);
  if (with_observations)
    call.out.observation_values = std::span<T>(out.data<T>(observations_at), n_terms * count);
  st.point(out, call.out, count);
  if (device) {
    detail::device_scope on(c.device);
    table.log_density(call);
  } else {
    py::gil_scoped_release unlocked;
    table.log_density(call);
  }
  py::dict r;
  r["value"] = as_result(c.first(), out.array(value));
  r["gradient"] = gradient ? as_result(c.first(), permuted(c.first(), out.array(grad), {1, 0})) : py::object(py::none());
  st.hand_out(r, c, out);
  r["series_values"] = with_series ? as_result(c.first(), permuted(c.first(), out.array(series_at), {1, 0}))
                                   : py::object(py::none());
  if (!with_observations) {
    r["observation_values"] = py::none();
  } else if (!own_times) {
    r["observation_values"] = as_result(c.first(), permuted(c.first(), out.array(observations_at), {2, 0, 1}));
  } else {  // a (B, n) array a series, its observations' terms: views of one allocation
    const py::object all = out.array(observations_at);
    py::list per_series;
    std::size_t first = 0;
    for (const auto& d : series) {
      const std::size_t n = fluxion::detail::series_length(d, n_save);
      const py::object rows = all[py::slice(py::ssize_t(first), py::ssize_t(first + n), 1)];
      per_series.append(as_result(c.first(), permuted(c.first(), rows, {1, 0})));
      first += n;
    }
    r["observation_values"] = per_series;
  }
  return detail::simple_namespace(r);
}

template <class Spec>
void define_solvers(py::module_& m) {
  using S = bound_solvers<Spec>;
  using B = bound_model<Spec>;
  py::list status_names;
  for (int s = 0; s < 4; ++s) status_names.append(fluxion::to_string(solve_status(s)));
  m.attr("status_names") = status_names;
  m.attr("methods") = py::make_tuple("tsit5", "vern7", "rosenbrock23", "rodas5p");
  using L = typename Spec::template compiled<double>::layout;
  const detail::element_names_of names{fluxion::element_names<typename L::state>(),
                                       fluxion::element_names<typename L::param>(),
                                       fluxion::element_names<typename L::observable>()};
  m.def(
      "integrate",
      [names](const py::object& x0, const py::object& p, const py::object& t_span, const py::object& save_times,
              const std::string& method_name, double rtol, double atol, const py::object& atol_per_state,
              double initial_step, long long max_steps, bool adaptive, bool step_to_save_times,
              const py::object& events, const py::object& crossings, const py::object& inputs,
              const std::string& policy, const py::object& threads) {
        const detail::problem_settings settings{t_span,       save_times, atol_per_state, rtol,
                                                atol,         initial_step, max_steps,    adaptive,
                                                step_to_save_times, events, crossings, inputs};
        return detail::with_problem<B>(
            x0, p, method_name, policy, false, settings, names,
            [&]<class T>(detail::call_arrays& c, detail::problem_values<T>& pv, method how, gpu_policy pol) {
              return S::template integrate<T>(c, pv, how, pol, threads);
            });
      },
      py::arg("x0"), py::arg("p"), py::kw_only(), py::arg("t_span"), py::arg("save_times") = py::none(),
      py::arg("method") = "tsit5", py::arg("rtol") = 1e-6, py::arg("atol") = 1e-6,
      py::arg("atol_per_state") = py::none(), py::arg("initial_step") = 0.0, py::arg("max_steps") = 100000,
      py::arg("adaptive") = true, py::arg("step_to_save_times") = false, py::arg("events") = py::none(),
      py::arg("crossings") = py::none(), py::arg("inputs") = py::none(), py::arg("policy") = "thread",
      py::arg("threads") = py::none(),
      "Integrates an ensemble, every trajectory with its own steps, from x0 (B, n_states) with parameters p "
      "(B, n_params) (either may be one row for all) over t_span, saving at save_times. events: a list of dicts "
      "{'time', 'state', and 'add', 'set', 'scale', 'add_parameter' (with 'weight') or 'set_parameter'} or "
      "{'time', 'move', 'from', 'to'}, states and parameters by name or flat index; the integration stops at each, "
      "and a save at its time reads the state after it. crossings: a list of dicts {'observable', 'level', "
      "'direction' ('up', 'down', 'either'), and 'stop': True or an action as events'}: where the observable "
      "crosses the level the trajectory stops there or the action is applied. inputs: a list of dicts "
      "{'parameter', 'times', 'values'} (piecewise constant) or {'level', 'slope', 'times', 'values'} (piecewise "
      "linear, the model reading level + slope * t): parameters a table drives from its first time (at or before "
      "t0) on; the integration stops at each of its times. Returns a namespace "
      "with saved (B, n_save, n_states), final (B, n_states), status (B,) int32, stats and crossing_times "
      "(B, n_crossings), the first time each crossing fired (NaN: never; None without crossings).");
  m.attr("has_log_density") = has_log_density<Spec>;
  m.def(
      "log_density",
      [names](const py::object& x0, const py::object& p, const py::object& data, const py::object& t_span,
              const py::object& save_times, const std::string& method_name, double rtol, double atol,
              const py::object& atol_per_state, double initial_step, long long max_steps, const py::object& events,
              const py::object& inputs, bool gradient, bool stats, const std::string& terms, const std::string& policy,
              const py::object& threads) {
        const detail::problem_settings settings{t_span,       save_times, atol_per_state, rtol,  atol,
                                                initial_step, max_steps,  true,           false, events,
                                                py::none(),   inputs};
        return detail::with_problem<B>(
            x0, p, method_name, policy, true, settings, names,
            [&]<class T>(detail::call_arrays& c, detail::problem_values<T>& pv, method how, gpu_policy pol) {
              return S::template log_density<T>(c, pv, data, how, pol, gradient, stats, terms, threads);
            });
      },
      py::arg("x0"), py::arg("p"), py::kw_only(), py::arg("data"), py::arg("t_span"),
      py::arg("save_times") = py::none(), py::arg("method") = "tsit5", py::arg("rtol") = 1e-6,
      py::arg("atol") = 1e-6, py::arg("atol_per_state") = py::none(), py::arg("initial_step") = 0.0,
      py::arg("max_steps") = 100000, py::arg("events") = py::none(), py::arg("inputs") = py::none(),
      py::arg("gradient") = true, py::arg("stats") = true, py::arg("terms") = "none", py::arg("policy") = "thread",
      py::arg("threads") = py::none(),
      "The log-density of every trajectory given the data (one dict a series of the module's likelihood: a value "
      "per save time, or per time of the series' own 'times') and the priors, and its gradient (B, n_params + n_states): the parameters, then the initial states. "
      "terms='series' adds series_values (B, n_series), each series' log-likelihood; 'observations' also "
      "observation_values (B, n_series, n_save), each observation's term (0 where missing; where a series has its "
      "own 'times', a list of one (B, n) array a series); events and inputs as integrate's (a save at an event's "
      "time reads the state after it; a driven parameter's gradient entry is 0, and no observable, density "
      "parameter or prior may read it); stats=False leaves "
      "the step statistics out (stats is None), work a fit does not need. A trajectory "
      "whose integration fails has value -inf (and terms -inf), gradient 0, and its status says why.");
}

}  // namespace fluxion::python

#pragma GCC visibility pop
