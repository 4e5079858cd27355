// The checks of the generated-model suite: gen::suite::run<model, ref>(info)
// compares fluxion's compiled model with its plain C++ reference (written by
// tests/generated/gen.py from the same random tree; see README.md here).
//
// At several random points (states and parameters in [0.5, 2], time in
// [0.1, 2], no comparison of the reference within 1e-3 (relative) of a tie):
//   values      rhs, observe                     vs the reference
//   Jacobians   jac_x, jac_p, obs_jac_x, obs_jac_p (dense)
//                                                vs complex-step of the reference
//                                                vs central differences of the reference
//   values      *_values (CSR order)             vs the dense Jacobian at the pattern
//   outside     the dense Jacobian is exactly 0 outside the pattern
//   jvp         jvp_x, jvp_p, obs_jvp_x, obs_jvp_p along a random direction
//                                                vs complex-step along it, and vs J v
//   (second executable, GEN_EXTRA, every third model: fluxion compiled for
//   std::complex<double>, the host batch drivers, and rhs_cooperative shared
//   among 1, 2, 3 and 7 threads, bit for bit with rhs, and the discrete
//   adjoint of a fixed-step run against central differences of the run; see
//   check_extra)
// and once per model, for each of the four patterns (fx::jacobian_pattern):
//   sound       every entry that changes numerically (a small move of one
//               input at any point changes an output, or its complex-step
//               derivative is non-zero) is in the pattern;
//   exact       every pattern entry is in the exact structural dependence
//               (the reference evaluated with gen::dep): no extra entries;
//   oracle      (a check of the generator itself) what changes numerically is
//               in the structural dependence;
// and for each fx::independent group: no entry of jac_x (numeric, pattern or
// structural) joins two different elements of its space.
//
// Tolerances (row = the largest |entry| of the oracle's row):
//   values       |got - want| <= 1e-10 (1 + |want|)
//   complex-step |got - want| <= 1e-9 (|want| + row) + 1e-13
//   central      |got - want| <= 1e-6 (|want| + row) + 1e-6   (h = 1e-6 (1 + |u|))
#pragma once

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "reference.hpp"

// GEN_EXTRA=1 builds the second executable of each source (run_extra.py):
// fluxion in std::complex<double> and the host batch drivers (SIMD lanes).
#ifndef GEN_EXTRA
#define GEN_EXTRA 0
#endif

namespace gen {

namespace fx = fluxion;
using Z = std::complex<double>;

struct group_table {
  const char* space;
  const int* element;  // per flat state: its element of the space, or -1
};

struct model_info {
  int index;
  int seed;
  const char* source;
  const char* state_names;  // '|'-separated, in flat order
  const char* param_names;
  const char* obs_names;
  std::vector<group_table> groups;
};

inline std::vector<std::string> split_names(const char* s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* c = s; *c; ++c) {
    if (*c == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += *c;
    }
  }
  if (!cur.empty() || !out.empty()) out.push_back(cur);
  return out;
}

inline constexpr int n_points = 3;
inline constexpr double tie_margin = 1e-3;
inline constexpr double cs_step = 1e-25;

enum class jac { x, p, obs_x, obs_p };
inline const char* jac_name(jac w) {
  switch (w) {
    case jac::x: return "jac_x";
    case jac::p: return "jac_p";
    case jac::obs_x: return "obs_jac_x";
    default: return "obs_jac_p";
  }
}
inline const char* jvp_name(jac w) {
  switch (w) {
    case jac::x: return "jvp_x";
    case jac::p: return "jvp_p";
    case jac::obs_x: return "obs_jvp_x";
    default: return "obs_jvp_p";
  }
}
inline bool of_obs(jac w) { return w == jac::obs_x || w == jac::obs_p; }
inline bool of_x(jac w) { return w == jac::x || w == jac::obs_x; }
inline constexpr jac all_jacs[] = {jac::x, jac::p, jac::obs_x, jac::obs_p};

// One model's entry points as plain function pointers, so that the checks
// below are compiled once per translation unit, not once per model.
struct model_ops {
  std::size_t ns, np, no;
  using eval_d = void (*)(double, const double*, const double*, double*);
  using jvp_d = void (*)(double, const double*, const double*, const double*, double*);
  eval_d rhs, observe;
  eval_d dense[4], values[4];  // in the order of all_jacs
  jvp_d jvp[4];
  fx::csr_pattern (*pattern[4])();
  // The reference: [0] rhs, [1] observe.
  void (*ref_d[2])(const double&, const double*, const double*, double*);
  void (*ref_z[2])(const Z&, const Z*, const Z*, Z*);
  void (*ref_dep[2])(const dep&, const dep*, const dep*, dep*);
  // The forward sensitivity system's right-hand side (fx::sensitivity_system<M>):
  // z = (x, S), S = d x / d(p, x0) column by column.
  eval_d sensitivity_rhs;
};

// The entry points the second executable checks (GEN_EXTRA).
struct extra_ops {
  std::size_t ns, np, no;
  void (*complex[2])(Z, const Z*, const Z*, Z*);         // fluxion in std::complex<double>: rhs, observe
  void (*ref_z[2])(const Z&, const Z*, const Z*, Z*);    // the reference in std::complex<double>
  void (*ref_d[2])(const double&, const double*, const double*, double*);  // and in double
  void (*single[2])(double, const double*, const double*, double*);  // fluxion, one instance
  using batch_fn = void (*)(double, std::size_t, std::vector<double>&, std::vector<double>&, std::vector<double>&);
  batch_fn rhs_soa, rhs_aos, observe_soa;               // fx::host::rhs / observe over batches
  // fx::compiled::rhs_cooperative by a group of `members` host threads
  void (*rhs_cooperative)(double, const double*, const double*, double*, unsigned members);
  // L = sum_s w_s . y(t_s) of a fixed-step Tsit5 run and its gradient (the
  // parameters, then x0) by the discrete adjoint (adjoint_functional below)
  bool (*adjoint)(const double* x0, const double* p, const double* w, double* L, double* grad);
};

// Fixed-step Tsit5 from t = 0 to 0.4 in steps of 0.05, save times at t0,
// inside steps (two in one) and at steps' ends; L = sum_s w_s . y(t_s) and,
// when `grad`, its gradient in (p, x0) by the discrete adjoint
// (fx::detail::adjoint_backward, solve/adjoint.hpp). False when the run fails.
inline constexpr double adjoint_save_times[] = {0.0, 0.1, 0.12, 0.14, 0.25, 0.4};
inline constexpr std::size_t adjoint_saves = 6;
template <class M>
bool adjoint_functional(const double* x0, const double* p, const double* w, double* L, double* grad) {
  constexpr std::size_t ns = M::n_states, np = M::n_params;
  fx::ode_options<double> o;
  o.t0 = 0;
  o.t1 = 0.4;
  o.save_times = adjoint_save_times;
  o.n_save = adjoint_saves;
  o.initial_step = 0.05;
  o.adaptive = false;
  constexpr std::int32_t steps = 16;
  std::vector<double> tape(fx::detail::adjoint_tape<double>::values<M>(adjoint_saves, steps));
  fx::detail::adjoint_recorder<M> rec{fx::detail::adjoint_tape<double>::contiguous<M>(tape.data(), adjoint_saves, steps),
                                    adjoint_saves};
  std::vector<double> last(ns + 1), pb(p, p + np);
  pb.push_back(0.0);
  const fx::trajectory_io<double> io{x0, 1, pb.data(), 1, nullptr, 0, 0, last.data(), 1};
  fx::solve_statistics st{};
  if (fx::stepper_of<fx::tsit5, M>::type::run(M{}, o, io, st, rec) != fx::solve_status::success || rec.full)
    return false;
  *L = 0;
  for (std::size_t k = 0; k < adjoint_saves * ns; ++k) {
    *L += w[k] * tape[k];
    tape[k] = w[k];  // the seeds: d L / d y(t_s)
  }
  if (!std::isfinite(*L)) return false;
  if (grad) {
    std::vector<double> pbar(np + 1, 0.0), xbar(ns + 1, 0.0);
    fx::detail::adjoint_backward<fx::tsit5>(M{}, o, pb.data(), 1, rec, xbar.data(), pbar.data(), st);
    for (std::size_t j = 0; j < np; ++j) grad[j] = pbar[j];
    for (std::size_t i = 0; i < ns; ++i) grad[np + i] = xbar[i];
    // Started from a later record, as a GPU lane aligned to a longer one in
    // its warp is (aligned_to), the pass must give the same gradient bit for
    // bit; where it does not, the gradient reads NaN and fails its check.
    std::vector<double> pbar2(np + 1, 0.0), xbar2(ns + 1, 0.0);
    fx::detail::adjoint_backward<fx::tsit5>(M{}, o, pb.data(), 1, rec, xbar2.data(), pbar2.data(), st,
                                            rec.steps + 5);
    if (std::memcmp(pbar.data(), pbar2.data(), np * sizeof(double)) != 0 ||
        std::memcmp(xbar.data(), xbar2.data(), ns * sizeof(double)) != 0)
      for (std::size_t k = 0; k < np + ns; ++k) grad[k] = std::nan("");
  }
  return true;
}

// A group for rhs_cooperative: host threads meeting at a barrier.
struct thread_group {
  unsigned r, n;
  std::barrier<>* meet;
  unsigned rank() const { return r; }
  unsigned size() const { return n; }
  void sync() const { meet->arrive_and_wait(); }
};
template <class M>
void cooperative_rhs(double t, const double* x, const double* p, double* dx, unsigned members) {
  std::vector<double> scratch(M::rhs_scratch_size + 1, -777.0);
  std::barrier<> meet(members);
  std::vector<std::thread> group;
  for (unsigned r = 0; r < members; ++r)
    group.emplace_back([&, r] { M{}.rhs_cooperative(thread_group{r, members, &meet}, t, x, p, scratch.data(), dx); });
  for (auto& th : group) th.join();
}

// The reference's outputs (rhs or observables) in scalar T.
template <class T, class Ops>
std::vector<T> outputs(const Ops& ops, bool obs, const T& t, const std::vector<T>& x,
                       const std::vector<T>& p) {
  std::vector<T> out(obs ? ops.no : ops.ns, T(-12345.0));
  std::vector<T> xs = x, ps = p;  // never empty: valid pointers for the reference
  xs.push_back(T(0.0));
  ps.push_back(T(0.0));
  out.push_back(T(0.0));
  if constexpr (std::is_same_v<T, double>) ops.ref_d[obs](t, xs.data(), ps.data(), out.data());
  else if constexpr (std::is_same_v<T, Z>) ops.ref_z[obs](t, xs.data(), ps.data(), out.data());
  else if constexpr (requires { ops.ref_dep; }) ops.ref_dep[obs](t, xs.data(), ps.data(), out.data());
  out.pop_back();
  return out;
}

inline std::vector<char> to_table(const fx::csr_pattern& pat) {
  std::vector<char> t(pat.rows * pat.columns, 0);
  for (std::size_t r = 0; r < pat.rows; ++r)
    for (int k = pat.row_ptr[r]; k < pat.row_ptr[r + 1]; ++k)
      t[r * pat.columns + std::size_t(pat.col_idx[std::size_t(k)])] = 1;
  return t;
}

class suite {
 public:
  explicit suite(const char* name) : name_(name) {}

#if !GEN_EXTRA
  template <auto Model, template <class> class Ref>
  void run(const model_info& info) {
    using M = fx::compiled<Model, double>;
    using J = typename M::jacobian;
    static_assert(M::n_states == Ref<double>::ns && M::n_params == Ref<double>::np &&
                      M::n_observables == Ref<double>::no,
                  "gen: the generator's layout sizes differ from fluxion's");
    static_assert(M::n_states <= 64 && M::n_params <= 64,
                  "gen: the structural oracle holds at most 64 states and 64 parameters");
    model_ops ops{
        M::n_states,
        M::n_params,
        M::n_observables,
        [](double t, const double* x, const double* p, double* o) { M{}.rhs(t, x, p, o); },
        [](double t, const double* x, const double* p, double* o) { M{}.observe(t, x, p, o); },
        {[](double t, const double* x, const double* p, double* o) { M{}.jac_x(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.jac_p(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.obs_jac_x(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.obs_jac_p(t, x, p, o); }},
        {[](double t, const double* x, const double* p, double* o) { M{}.jac_x_values(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.jac_p_values(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.obs_jac_x_values(t, x, p, o); },
         [](double t, const double* x, const double* p, double* o) { M{}.obs_jac_p_values(t, x, p, o); }},
        {[](double t, const double* x, const double* p, const double* v, double* o) { M{}.jvp_x(t, x, p, v, o); },
         [](double t, const double* x, const double* p, const double* v, double* o) { M{}.jvp_p(t, x, p, v, o); },
         [](double t, const double* x, const double* p, const double* v, double* o) {
           M{}.obs_jvp_x(t, x, p, v, o);
         },
         [](double t, const double* x, const double* p, const double* v, double* o) {
           M{}.obs_jvp_p(t, x, p, v, o);
         }},
        {&fx::jacobian_pattern<M, J::x>, &fx::jacobian_pattern<M, J::p>, &fx::jacobian_pattern<M, J::obs_x>,
         &fx::jacobian_pattern<M, J::obs_p>},
        {&Ref<double>::rhs, &Ref<double>::observe},
        {&Ref<Z>::rhs, &Ref<Z>::observe},
        {&Ref<dep>::rhs, &Ref<dep>::observe},
        [](double t, const double* z, const double* p, double* o) { fx::sensitivity_system<M>{}.rhs(t, z, p, o); },
    };
    check_model(ops, info);
  }
#else
  template <auto Model, template <class> class Ref>
  void run(const model_info& info) {
    using M = fx::compiled<Model, double>;
    using MC = fx::compiled<Model, Z>;
    static_assert(M::n_states == Ref<double>::ns && M::n_params == Ref<double>::np &&
                      M::n_observables == Ref<double>::no,
                  "gen: the generator's layout sizes differ from fluxion's");
    using D = const double*;
    extra_ops ops{
        M::n_states,
        M::n_params,
        M::n_observables,
        {[](Z t, const Z* x, const Z* p, Z* o) { MC{}.rhs(t, x, p, o); },
         [](Z t, const Z* x, const Z* p, Z* o) { MC{}.observe(t, x, p, o); }},
        {&Ref<Z>::rhs, &Ref<Z>::observe},
        {&Ref<double>::rhs, &Ref<double>::observe},
        {[](double t, D x, D p, double* o) { M{}.rhs(t, x, p, o); },
         [](double t, D x, D p, double* o) { M{}.observe(t, x, p, o); }},
        [](double t, std::size_t B, std::vector<double>& x, std::vector<double>& p, std::vector<double>& o) {
          fx::host::rhs(M{}, t, B, fx::soa(x), fx::soa(p), fx::soa(o));
        },
        [](double t, std::size_t B, std::vector<double>& x, std::vector<double>& p, std::vector<double>& o) {
          fx::host::rhs(M{}, t, B, fx::aos(x), fx::aos(p), fx::aos(o));
        },
        [](double t, std::size_t B, std::vector<double>& x, std::vector<double>& p, std::vector<double>& o) {
          fx::host::observe(M{}, t, B, fx::soa(x), fx::soa(p), fx::soa(o));
        },
        &cooperative_rhs<M>,
        &adjoint_functional<M>,
    };
    check_extra(ops, info);
  }
#endif

  int finish() const {
    std::printf("%s: %d models, %ld checks, %ld failed checks in %d models\n", name_.c_str(), models_, checks_,
                failures_, failed_models_);
    if (adjoint_checked_ + adjoint_skipped_ > 0)
      std::printf("%s: discrete adjoint checked on %d models, skipped on %d (the run left the model's domain)\n",
                  name_.c_str(), adjoint_checked_, adjoint_skipped_);
    return failures_ == 0 ? 0 : 1;
  }

 private:
  std::string name_;
  int models_ = 0, failed_models_ = 0, adjoint_checked_ = 0, adjoint_skipped_ = 0;
  long checks_ = 0, failures_ = 0;

  // Per model: failures are printed (the model's source once, then at most
  // max_lines lines) and counted.
  const model_info* info_ = nullptr;
  long model_failures_ = 0;
  static constexpr long max_lines = 25;
  std::vector<std::string> xn_, pn_, on_;

  void check_model(const model_ops& ops, const model_info& info);
  void check_extra(const extra_ops& ops, const model_info& info);
  void begin(const model_info& info, std::size_t ns, std::size_t np, std::size_t no) {
    info_ = &info;
    model_failures_ = 0;
    ++models_;
    xn_ = split_names(info.state_names);
    pn_ = split_names(info.param_names);
    on_ = split_names(info.obs_names);
    xn_.resize(ns, "?");
    pn_.resize(np, "?");
    on_.resize(no, "?");
  }
  void end() {
    if (model_failures_ > 0) std::printf("  model %d: %ld failed checks\n", info_->index, model_failures_);
  }
  // A point of the reference's inputs with finite outputs and no comparison
  // within tie_margin of a tie; false (a failure) if none is found.
  template <class Ops>
  bool draw_point(const Ops& ops, std::mt19937_64& rng, double& t, std::vector<double>& x, std::vector<double>& p) {
    std::uniform_real_distribution<double> in_range(0.5, 2.0), in_time(0.1, 2.0);
    x.assign(ops.ns, 0.0);
    p.assign(ops.np, 0.0);
    double best = 0;
    for (int attempt = 0; attempt < 2000; ++attempt) {
      t = in_time(rng);
      for (auto& v : x) v = in_range(rng);
      for (auto& v : p) v = in_range(rng);
      noting = true;
      margin = 1.0;
      const auto f = outputs<double>(ops, false, t, x, p);
      const auto y = outputs<double>(ops, true, t, x, p);
      noting = false;
      best = std::max(best, margin);
      bool finite = true;
      for (double v : f) finite = finite && std::isfinite(v);
      for (double v : y) finite = finite && std::isfinite(v);
      if (finite && margin >= tie_margin) return true;
    }
    return check(false, "generator: no point with finite values away from ties in 2000 draws (best margin " +
                            num(best) + ")");
  }

  const std::string& row_name(jac w, std::size_t r) const { return of_obs(w) ? on_[r] : xn_[r]; }
  const std::string& col_name(jac w, std::size_t c) const { return of_x(w) ? xn_[c] : pn_[c]; }

  void fail(const std::string& what) {
    ++failures_;
    if (model_failures_++ == 0) {
      ++failed_models_;
      std::printf("\n=== FAILED: generated model %d (seed %d); reproduce its source with\n"
                  "    python3 tests/generated/gen.py --show %d --seed %d\n%s\n---\n",
                  info_->index, info_->seed, info_->index, info_->seed, info_->source);
    }
    if (model_failures_ <= max_lines) std::printf("  %s\n", what.c_str());
    else if (model_failures_ == max_lines + 1) std::printf("  ... (more failures of this model not printed)\n");
  }
  bool check(bool ok, const std::string& what) {
    ++checks_;
    if (!ok) fail(what);
    return ok;
  }
  static std::string num(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
  }
  static std::string point_text(double t, const std::vector<double>& x, const std::vector<double>& p) {
    std::string s = "t = " + num(t) + ", x = {";
    for (std::size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + num(x[i]);
    s += "}, p = {";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + num(p[i]);
    return s + "}";
  }
};


inline void suite::check_model(const model_ops& ops, const model_info& info) {
  const std::size_t ns = ops.ns, np = ops.np, no = ops.no;
  begin(info, ns, np, no);
  auto rows = [&](jac w) { return of_obs(w) ? no : ns; };
  auto cols = [&](jac w) { return of_x(w) ? ns : np; };
  auto at = [&](jac w, std::size_t r, std::size_t c) {
    return std::string(jac_name(w)) + " d(" + row_name(w, r) + ")/d(" + col_name(w, c) + ") [row " +
           std::to_string(r) + ", column " + std::to_string(c) + "]";
  };

  // --- the exact structural dependence (reference in gen::dep) -------------------------
  std::vector<char> S[4];
  {
    std::vector<dep> xd(ns), pd(np);
    for (std::size_t i = 0; i < ns; ++i) xd[i].x = std::uint64_t(1) << i;
    for (std::size_t i = 0; i < np; ++i) pd[i].p = std::uint64_t(1) << i;
    for (jac w : all_jacs) {
      const auto out = outputs<dep>(ops, of_obs(w), dep(0.5), xd, pd);
      S[int(w)].assign(rows(w) * cols(w), 0);
      for (std::size_t r = 0; r < rows(w); ++r)
        for (std::size_t c = 0; c < cols(w); ++c)
          S[int(w)][r * cols(w) + c] = char(((of_x(w) ? out[r].x : out[r].p) >> c) & 1u);
    }
  }

  // --- the patterns ---------------------------------------------------------------------------
  fx::csr_pattern pat[4];
  std::vector<char> P[4], numeric[4];
  for (jac w : all_jacs) {
    pat[int(w)] = ops.pattern[int(w)]();
    check(pat[int(w)].rows == rows(w) && pat[int(w)].columns == cols(w),
          std::string(jac_name(w)) + " pattern has the wrong shape");
    P[int(w)] = to_table(pat[int(w)]);
    P[int(w)].resize(rows(w) * cols(w), 0);
    numeric[int(w)].assign(rows(w) * cols(w), 0);
  }

  std::mt19937_64 rng(0x9e3779b97f4a7c15ull ^ (std::uint64_t(info.index) * 1000003ull + std::uint64_t(info.seed)));
  std::uniform_real_distribution<double> dir(-1.0, 1.0);

  for (int point = 0; point < n_points; ++point) {
    double t = 0;
    std::vector<double> x, p;
    if (!draw_point(ops, rng, t, x, p)) break;
    const std::string pt_at = " at " + point_text(t, x, p);

    const std::vector<double> ref_out[2] = {outputs<double>(ops, false, t, x, p),
                                            outputs<double>(ops, true, t, x, p)};

    // --- values --------------------------------------------------------------------------
    {
      std::vector<double> dx(ns + 1, -777.0), y(no + 1, -777.0);
      ops.rhs(t, x.data(), p.data(), dx.data());
      ops.observe(t, x.data(), p.data(), y.data());
      check(dx[ns] == -777.0, "rhs wrote past its " + std::to_string(ns) + " outputs");
      check(y[no] == -777.0, "observe wrote past its " + std::to_string(no) + " outputs");
      for (std::size_t r = 0; r < ns; ++r) {
        const double want = ref_out[0][r];
        check(std::fabs(dx[r] - want) <= 1e-10 * (1 + std::fabs(want)),
              "rhs " + xn_[r] + " = " + num(dx[r]) + ", reference " + num(want) + pt_at);
      }
      for (std::size_t r = 0; r < no; ++r) {
        const double want = ref_out[1][r];
        check(std::fabs(y[r] - want) <= 1e-10 * (1 + std::fabs(want)),
              "observe " + on_[r] + " = " + num(y[r]) + ", reference " + num(want) + pt_at);
      }
    }

    // --- the sensitivity system: S' = J_x S + [J_p | 0] -------------------------------------
    // Column j of J_x S + J_p e_j is the derivative of the reference's rhs along
    // (S_j, e_j): one complex step each. S random; z = (x, S).
    {
      const std::size_t C = np + ns;
      std::vector<double> z(ns * (1 + C) + 1), dz(ns * (1 + C) + 1, -777.0);
      for (std::size_t i = 0; i < ns; ++i) z[i] = x[i];
      for (std::size_t k = ns; k < ns * (1 + C); ++k) z[k] = dir(rng);
      ops.sensitivity_rhs(t, z.data(), p.data(), dz.data());
      check(dz[ns * (1 + C)] == -777.0, "the sensitivity system's rhs wrote past its end");
      for (std::size_t r = 0; r < ns; ++r)
        check(std::fabs(dz[r] - ref_out[0][r]) <= 1e-10 * (1 + std::fabs(ref_out[0][r])),
              "sensitivity system: rhs " + xn_[r] + " = " + num(dz[r]) + ", reference " + num(ref_out[0][r]) + pt_at);
      for (std::size_t j = 0; j < C; ++j) {
        std::vector<Z> xz(x.begin(), x.end()), pz(p.begin(), p.end());
        for (std::size_t i = 0; i < ns; ++i) xz[i] += Z(0.0, cs_step * z[ns + j * ns + i]);
        if (j < np) pz[j] += Z(0.0, cs_step);
        const auto fz = outputs<Z>(ops, false, Z(t), xz, pz);
        for (std::size_t r = 0; r < ns; ++r) {
          const double want = fz[r].imag() / cs_step, got = dz[ns + j * ns + r];
          check(std::fabs(got - want) <= 1e-9 * (1 + std::fabs(want)),
                "sensitivity system: d(" + xn_[r] + ")/d(" + (j < np ? pn_[j] : xn_[j - np] + "(0)") + ")' = " +
                    num(got) + ", complex step " + num(want) + pt_at);
        }
      }
    }

    // --- Jacobians ------------------------------------------------------------------------
    for (jac w : all_jacs) {
      const std::size_t R = rows(w), C = cols(w);
      if (R == 0) continue;
      const bool obs = of_obs(w);
      std::vector<double> cs(R * C, 0.0), cd(R * C, 0.0);
      for (std::size_t c = 0; c < C; ++c) {
        // complex step
        std::vector<Z> xz(x.begin(), x.end()), pz(p.begin(), p.end());
        (of_x(w) ? xz : pz)[c] += Z(0.0, cs_step);
        const auto fz = outputs<Z>(ops, obs, Z(t), xz, pz);
        for (std::size_t r = 0; r < R; ++r) cs[r * C + c] = fz[r].imag() / cs_step;
        // central differences
        std::vector<double> xu = x, pu = p;
        auto& u = of_x(w) ? xu : pu;
        const double u0 = u[c], h = 1e-6 * (1 + std::fabs(u0));
        u[c] = u0 + h;
        const double up = u[c];
        const auto fp = outputs<double>(ops, obs, t, xu, pu);
        u[c] = u0 - h;
        const double down = u[c];
        const auto fm = outputs<double>(ops, obs, t, xu, pu);
        for (std::size_t r = 0; r < R; ++r) cd[r * C + c] = (fp[r] - fm[r]) / (up - down);
        // numeric dependence: a small move changes the output, or a non-zero complex-step derivative
        u[c] = u0 + 1e-7 * (1 + std::fabs(u0));
        const auto fs = outputs<double>(ops, obs, t, xu, pu);
        for (std::size_t r = 0; r < R; ++r)
          if (!(fs[r] == ref_out[obs][r]) || cs[r * C + c] != 0.0) numeric[int(w)][r * C + c] = 1;
      }
      std::vector<double> J(R * C + 1, -999.0);
      ops.dense[int(w)](t, x.data(), p.data(), J.data());
      check(J[R * C] == -999.0, std::string(jac_name(w)) + " wrote past its end");
      for (std::size_t r = 0; r < R; ++r) {
        double row_cs = 0, row_cd = 0;
        for (std::size_t c = 0; c < C; ++c) {
          row_cs = std::max(row_cs, std::fabs(cs[r * C + c]));
          row_cd = std::max(row_cd, std::fabs(cd[r * C + c]));
        }
        for (std::size_t c = 0; c < C; ++c) {
          const double got = J[r * C + c], a = cs[r * C + c], b = cd[r * C + c];
          check(std::fabs(got - a) <= 1e-9 * (std::fabs(a) + row_cs) + 1e-13,
                at(w, r, c) + " = " + num(got) + ", complex step " + num(a) + pt_at);
          check(std::fabs(got - b) <= 1e-6 * (std::fabs(b) + row_cd) + 1e-6,
                at(w, r, c) + " = " + num(got) + ", central difference " + num(b) + pt_at);
          if (!P[int(w)][r * C + c])
            check(got == 0.0, at(w, r, c) + " = " + num(got) + " outside the pattern" + pt_at);
        }
      }
      // CSR values against the dense Jacobian
      const auto& pt = pat[int(w)];
      std::vector<double> vals(pt.nnz() + 1, -555.0);
      ops.values[int(w)](t, x.data(), p.data(), vals.data());
      check(vals[pt.nnz()] == -555.0, std::string(jac_name(w)) + "_values wrote past its nnz");
      for (std::size_t r = 0; r < R; ++r)
        for (int k = pt.row_ptr[r]; k < pt.row_ptr[r + 1]; ++k) {
          const std::size_t c = std::size_t(pt.col_idx[std::size_t(k)]);
          const double d = J[r * C + c];
          check(std::fabs(vals[std::size_t(k)] - d) <= 1e-12 * (1 + std::fabs(d)),
                at(w, r, c) + ": values " + num(vals[std::size_t(k)]) + ", dense " + num(d) + pt_at);
        }

      // --- Jacobian-vector product along a random direction ------------------------------------
      if (C == 0) continue;
      std::vector<double> v(C);
      for (auto& e : v) e = dir(rng);
      std::vector<Z> xz(x.begin(), x.end()), pz(p.begin(), p.end());
      for (std::size_t c = 0; c < C; ++c) (of_x(w) ? xz : pz)[c] += Z(0.0, cs_step * v[c]);
      const auto fz = outputs<Z>(ops, obs, Z(t), xz, pz);
      std::vector<double> out(R + 1, -333.0);
      ops.jvp[int(w)](t, x.data(), p.data(), v.data(), out.data());
      check(out[R] == -333.0, std::string(jvp_name(w)) + " wrote past its end");
      for (std::size_t r = 0; r < R; ++r) {
        double scale = 0, jv = 0;
        for (std::size_t c = 0; c < C; ++c) {
          scale += std::fabs(cs[r * C + c] * v[c]);
          jv += J[r * C + c] * v[c];
        }
        const double want = fz[r].imag() / cs_step;
        const std::string what = std::string(jvp_name(w)) + " " + row_name(w, r) + " = " + num(out[r]);
        check(std::fabs(out[r] - want) <= 1e-9 * scale + 1e-13, what + ", complex step " + num(want) + pt_at);
        check(std::fabs(out[r] - jv) <= 1e-9 * scale + 1e-13, what + ", J v " + num(jv) + pt_at);
      }
    }

  }

  // --- patterns: sound (numeric in pattern), exact (pattern in structure), oracle ---------------
  for (jac w : all_jacs) {
    const std::size_t R = rows(w), C = cols(w);
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) {
        const std::size_t k = r * C + c;
        if (numeric[int(w)][k]) check(P[int(w)][k], at(w, r, c) + " changes numerically but is not in the pattern");
        if (P[int(w)][k])
          check(S[int(w)][k], at(w, r, c) + " is in the pattern but not in the exact structural dependence");
        if (numeric[int(w)][k])
          check(S[int(w)][k], "generator (oracle): " + at(w, r, c) +
                                  " changes numerically but the reference's structure (gen::dep) lacks it");
      }
  }

  // --- independent groups -------------------------------------------------------------------
  for (const auto& g : info.groups) {
    for (std::size_t r = 0; r < ns; ++r)
      for (std::size_t c = 0; c < ns; ++c) {
        const int er = g.element[r], ec = g.element[c];
        if (er < 0 || ec < 0 || er == ec) continue;
        const std::size_t k = r * ns + c;
        const std::string what = std::string("independent group over '") + g.space + "': " + at(jac::x, r, c);
        check(!numeric[int(jac::x)][k], what + " changes numerically (elements " + std::to_string(er) + " and " +
                                             std::to_string(ec) + ")");
        check(!P[int(jac::x)][k], what + " is in the pattern");
        check(!S[int(jac::x)][k], "generator (oracle): " + what + " is in the structural dependence");
      }
  }

  end();
}

// The second executable (GEN_EXTRA): fluxion compiled for std::complex<double>
// (rhs and observe at u + i h v against the reference in complex: real parts
// are the values, Im / h the directional derivatives), and the host batch
// drivers fx::host::rhs (SoA and AoS batches, through SIMD lanes) and
// fx::host::observe (SoA) over batch_size instances, each against the
// single-instance evaluators.
inline constexpr std::size_t batch_size = 11;  // not a multiple of any lane count

inline void suite::check_extra(const extra_ops& ops, const model_info& info) {
  const std::size_t ns = ops.ns, np = ops.np, no = ops.no;
  begin(info, ns, np, no);
  std::mt19937_64 rng(0x51ed27ull ^ (std::uint64_t(info.index) * 1000003ull + std::uint64_t(info.seed)));
  std::uniform_real_distribution<double> dir(-1.0, 1.0);

  for (int point = 0; point < n_points; ++point) {
    double t = 0;
    std::vector<double> x, p;
    if (!draw_point(ops, rng, t, x, p)) break;
    const std::string pt_at = " at " + point_text(t, x, p);
    std::vector<Z> xz(x.begin(), x.end()), pz(p.begin(), p.end());
    for (auto& e : xz) e += Z(0.0, cs_step * dir(rng));
    for (auto& e : pz) e += Z(0.0, cs_step * dir(rng));
    for (int obs = 0; obs < 2; ++obs) {
      const std::size_t R = obs ? no : ns;
      const auto want = outputs<Z>(ops, obs, Z(t), xz, pz);
      std::vector<Z> got(R + 1, Z(-777.0)), xs = xz, ps = pz;
      xs.push_back(Z(0.0));
      ps.push_back(Z(0.0));
      ops.complex[obs](Z(t), xs.data(), ps.data(), got.data());
      check(got[R] == Z(-777.0),
            std::string(obs ? "observe" : "rhs") + " in std::complex<double> wrote past its end");
      for (std::size_t r = 0; r < R; ++r) {
        const std::string what = std::string(obs ? "observe " : "rhs ") + (obs ? on_[r] : xn_[r]) +
                                 " in std::complex<double> = (" + num(got[r].real()) + ", " + num(got[r].imag()) +
                                 "), reference (" + num(want[r].real()) + ", " + num(want[r].imag()) + ")";
        const double re_w = want[r].real(), im_w = want[r].imag() / cs_step, im_g = got[r].imag() / cs_step;
        check(std::fabs(got[r].real() - re_w) <= 1e-10 * (1 + std::fabs(re_w)), what + pt_at);
        check(std::fabs(im_g - im_w) <= 1e-9 * (1 + std::fabs(im_w)), what + " (imaginary part)" + pt_at);
      }
    }
    // The right-hand side shared among 1, 2, 3 and 7 threads: each writes its
    // share of the elements, after every alias step a barrier; the same
    // values as one instance, bit for bit.
    std::vector<double> one(ns + 1), xb = x, pb = p;
    xb.push_back(0.0);
    pb.push_back(0.0);
    ops.single[0](t, xb.data(), pb.data(), one.data());
    for (unsigned members : {1u, 2u, 3u, 7u}) {
      std::vector<double> got(ns + 1, -777.0);
      ops.rhs_cooperative(t, xb.data(), pb.data(), got.data(), members);
      check(got[ns] == -777.0, "rhs_cooperative wrote past its end");
      for (std::size_t r = 0; r < ns; ++r)
        check(got[r] == one[r] || (std::isnan(got[r]) && std::isnan(one[r])),
              "rhs_cooperative (" + std::to_string(members) + " threads) " + xn_[r] + " = " + num(got[r]) +
                  ", rhs " + num(one[r]) + pt_at);
    }
  }

  // The discrete adjoint of a fixed-step run against central differences of
  // the run itself (the steps fixed, the computed L is smooth in x0 and p):
  // |adjoint - fd| <= 1e-5 (|fd| + the largest |fd|) + 1e-7. A point where
  // the run leaves the model's domain is skipped (a printed count).
  {
    double t = 0;
    std::vector<double> x, p;
    if (draw_point(ops, rng, t, x, p)) {
      std::vector<double> w(adjoint_saves * ns), grad(np + ns + 1);
      for (auto& e : w) e = dir(rng);
      double L = 0;
      if (ops.adjoint(x.data(), p.data(), w.data(), &L, grad.data())) {
        std::vector<double> fd(np + ns);
        bool all = true;
        for (std::size_t j = 0; j < np + ns && all; ++j) {
          std::vector<double> xu = x, xd = x, pu = p, pd = p;
          double& up = j < np ? pu[j] : xu[j - np];
          double& dn = j < np ? pd[j] : xd[j - np];
          const double h = 1e-6 * (1 + std::fabs(up));
          up += h, dn -= h;
          double Lu = 0, Ld = 0;
          all = ops.adjoint(xu.data(), pu.data(), w.data(), &Lu, nullptr) &&
                ops.adjoint(xd.data(), pd.data(), w.data(), &Ld, nullptr);
          fd[j] = (Lu - Ld) / (2 * h);
        }
        if (all) {
          ++adjoint_checked_;
          double scale = 0;
          for (double v : fd) scale = std::max(scale, std::fabs(v));
          for (std::size_t j = 0; j < np + ns; ++j)
            check(std::fabs(grad[j] - fd[j]) <= 1e-5 * (std::fabs(fd[j]) + scale) + 1e-7,
                  "discrete adjoint d L / d " + (j < np ? pn_[j] : xn_[j - np] + "(0)") + " = " + num(grad[j]) +
                      ", central differences " + num(fd[j]) + " at " + point_text(0.0, x, p));
        } else {
          ++adjoint_skipped_;
        }
      } else {
        ++adjoint_skipped_;
      }
    }
  }

  // Batches: instance b is a random point; SoA buffers hold element e of
  // instance b at [e * B + b], AoS at [b * n + e].
  const std::size_t B = batch_size;
  std::vector<double> xs(ns * B), ps(np * B), xa(ns * B), pa(np * B);
  std::vector<std::vector<double>> X(B), P(B);
  double t = 0;
  for (std::size_t b = 0; b < B; ++b) {
    if (!draw_point(ops, rng, t, X[b], P[b])) return end();
    for (std::size_t e = 0; e < ns; ++e) xs[e * B + b] = xa[b * ns + e] = X[b][e];
    for (std::size_t e = 0; e < np; ++e) ps[e * B + b] = pa[b * np + e] = P[b][e];
  }
  t = 0.75;
  for (int kind = 0; kind < 3; ++kind) {
    const bool obs = kind == 2, soa = kind != 1;
    const std::size_t R = obs ? no : ns;
    const char* name = kind == 0   ? "fx::host::rhs (SoA)"
                       : kind == 1 ? "fx::host::rhs (AoS)"
                                   : "fx::host::observe (SoA)";
    std::vector<double> out(R * B, -777.0);
    try {
      (kind == 0 ? ops.rhs_soa : kind == 1 ? ops.rhs_aos : ops.observe_soa)(t, B, soa ? xs : xa, soa ? ps : pa, out);
    } catch (const std::exception& e) {
      check(false, std::string(name) + " threw: " + e.what());
      continue;
    }
    for (std::size_t b = 0; b < B; ++b) {
      std::vector<double> one(R + 1), xb = X[b], pb = P[b];
      xb.push_back(0.0);
      pb.push_back(0.0);
      ops.single[obs](t, xb.data(), pb.data(), one.data());
      for (std::size_t r = 0; r < R; ++r) {
        const double got = soa ? out[r * B + b] : out[b * R + r], want = one[r];
        check(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)),
              std::string(name) + " instance " + std::to_string(b) + " " + (obs ? on_[r] : xn_[r]) + " = " +
                  num(got) + ", one instance " + num(want) + " at " + point_text(t, X[b], P[b]));
      }
    }
  }
  end();
}

}  // namespace gen
