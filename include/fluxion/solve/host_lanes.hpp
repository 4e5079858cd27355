#pragma once
// Ensembles integrated on the host in SIMD lanes: W = lanes<T>::width
// trajectories advance together, one per lane, each at its own time with its
// own step size, accepting or rejecting its own steps. A step is attempted
// in all lanes at once (the right-hand side through compiled::rhs_lanes with
// a time per lane; for Rosenbrock methods also the Jacobian through
// compiled::jacobian_dense_lanes and the iteration matrix factored lane by
// lane with dense_lu over lanes); the decisions that follow an attempt are
// made lane by lane. A lane whose trajectory ends (success or not) takes the
// next trajectory of the range, so lanes stay busy until the range runs dry.
// Host only (fx::host::integrate uses it for methods that qualify, see
// lane_integrable); nvcc translation units integrate one trajectory at a time.
//
// Each trajectory follows the algorithm of solve/driver.hpp (adaptive_driver:
// HNW I, II.4 step control, dense output at save times, statuses), decision
// for decision; the arithmetic is the same operations in the same order on
// vectors, so a trajectory's result does not depend on which lane or which
// neighbours it had. The method-specific part of an attempt is a lane step
// (lane_explicit_step for Tsit5 and Vern7, lane_rosenbrock23_step,
// lane_rodas_step), the rest is lane_ensemble's.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/compile/compiled.hpp>
#include <fluxion/exec/lanes.hpp>
#include <fluxion/solve/dense_lu.hpp>
#include <fluxion/solve/driver.hpp>
#include <fluxion/solve/explicit_rk.hpp>
#include <fluxion/solve/rosenbrock.hpp>
#include <fluxion/solve/status.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion {

// Explicit pairs the lanes integrate (explicit_rk_step's tableaus: Tsit5,
// first same as last; Vern7, with extra stages for its dense output).
template <class Method>
concept lane_explicit_method = requires(double th, double* w) {
  Method::dense_weights(th, w);
  Method::a[0][0];
  Method::first_same_as_last;
};

// Whether model M evaluates its right-hand side in SIMD lanes with a time
// per lane (compiled models do; an augmented system such as
// sensitivity_system does not, and its trajectories run one at a time).
template <class M>
concept lane_evaluable = std::is_floating_point_v<typename M::scalar> &&
                         requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
                           m.template rhs_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1,
                                                                            out, 1);
                         };

// Whether M also gives its Jacobian and d rhs / dt in lanes (compiled
// models do).
template <class M>
concept lane_linearizable =
    lane_evaluable<M> && requires(const M& m, const typename M::scalar* x, typename M::scalar* out) {
      m.template jacobian_dense_lanes<M::jacobian::x>(lanes<typename M::scalar>{}, x, 1, x, 1, out);
      m.template rhs_dt_lanes<lanes<typename M::scalar>>(lanes<typename M::scalar>{}, x, 1, x, 1, out, 1);
    };

// Whether fx::host::integrate runs Method on M in lanes.
template <class Method, class M>
concept lane_integrable =
    lane_evaluable<M> &&
    (lane_explicit_method<Method> ||
     ((std::is_same_v<Method, rosenbrock23> || std::is_same_v<Method, rodas5p>) && lane_linearizable<M>));

namespace detail {

// The factorization of larger matrices (dense_lu<T, N, false>: row exchanges
// by a recorded pivot) for one matrix per lane: each lane picks its pivot
// and exchanges its rows as the scalar factorization does (the first row
// of largest magnitude), and the elimination and the triangular solves run
// on all lanes at once; each lane's factors and solutions are those of its
// matrix alone, bit for bit. factor() returns the lanes whose pivots are all
// non-zero (a lane with a zero pivot is not eliminated further there, as
// alone; its values are not used).
template <class T, std::size_t W, int N>
struct dense_lu<lanes<T, W>, N, false> {
  using L = lanes<T, W>;
  using truth = lane_mask<T, W>;
  L a[N][N];
  int pivot[N][W];

  truth factor() {
    bool regular[W];
    for (std::size_t w = 0; w < W; ++w) regular[w] = true;
    for (int c = 0; c < N; ++c) {
      bool eliminate = false;
      for (std::size_t w = 0; w < W; ++w) {
        int best = c;
        T best_abs = math::abs(a[c][c][w]);
        for (int r = c + 1; r < N; ++r) {
          const T v = math::abs(a[r][c][w]);
          if (v > best_abs) best = r, best_abs = v;
        }
        pivot[c][w] = best;
        if (best != c)
          for (int k = 0; k < N; ++k) {
            const T tmp = a[c][k][w];
            a[c][k].v[w] = a[best][k][w];
            a[best][k].v[w] = tmp;
          }
        if (!(best_abs > T(0))) regular[w] = false;
        eliminate = eliminate || regular[w];
      }
      if (!eliminate) continue;
      const L inv = L(T(1)) / a[c][c];
      a[c][c] = inv;  // as the scalar factorization keeps it
      for (int r = c + 1; r < N; ++r) {
        const L l = a[r][c] * inv;
        a[r][c] = l;
        for (int k = c + 1; k < N; ++k) a[r][k] = a[r][k] - l * a[c][k];
      }
    }
    truth m;
    for (std::size_t w = 0; w < W; ++w) m.m[w] = regular[w] ? -1 : 0;
    return m;
  }

  // b := A^-1 b, lane by lane.
  void solve(L* b) const {
    for (int c = 0; c < N; ++c)
      for (std::size_t w = 0; w < W; ++w)
        if (pivot[c][w] != c) {
          const T tmp = b[c][w];
          b[c].v[w] = b[pivot[c][w]][w];
          b[pivot[c][w]].v[w] = tmp;
        }
    for (int r = 1; r < N; ++r)
      for (int k = 0; k < r; ++k) b[r] = b[r] - a[r][k] * b[k];
    for (int r = N - 1; r >= 0; --r) {
      for (int k = r + 1; k < N; ++k) b[r] = b[r] - a[r][k] * b[k];
      b[r] = b[r] * a[r][r];  // the pivot's reciprocal
    }
  }
};

// --- lane steps -----------------------------------------------------------------
// What a lane_ensemble asks of a method, for all W lanes at once. Arrays are
// element-major with the lanes consecutive (element i of lane w at [i][w]),
// as compiled::rhs_lanes reads and writes with element stride W.
//   scalar_step                      the one-trajectory step (its constants and
//                                    the starting step come from it)
//   start(w, f0, stats)              lane w begins a trajectory; f0 = f(t0, y0)
//   idle(w)                          lane w has no trajectory
//   attempt(m, o, t, h, y, ynew, p, err)    every lane's attempt: ynew, and
//                                    err[w], n err^2 for its error norm err
//                                    (NaN: not finite)
//   count(w, stats)                  the work the attempt did for lane w
//   accept(w, t, stats)              lane w accepted and goes on from ynew at t
//   prepare_dense(w, m, t, h, y, ynew, p, stats)   optional: before lane w's
//                                    dense output in an accepted step
//   save_dense(w, theta, h, y, ynew, out, stride)   lane w's dense output at
//                                    t + theta h, n values
// Each does the same operations in the same order as scalar_step does for
// one trajectory.

template <class M, class L>
struct lane_arrays {
  using T = typename M::scalar;
  static constexpr int n = int(M::n_states);
  static constexpr std::size_t W = L::width;
  using stride = fixed_stride<std::ptrdiff_t(W)>;
  static L load(const T* v) { return L::load(v); }
  static void store(T* v, L x) { x.store(v); }
  // n err^2 for the error norm err of every lane (detail::step_error lane
  // by lane): e(i) is component i's error estimate.
  template <class E>
  static void error_norms(const ode_options<T>& o, const T (&y)[n][W], const T (&ynew)[n][W], const E& e,
                          T (&err)[W]) {
    L err2 = L(T(-0.0)), tol_max = L(T(0));
    for (int i = 0; i < n; ++i) {
      const L yi = load(y[i]), yn = load(ynew[i]);
      const L atol = L(o.atol_per_state ? o.atol_per_state[i] : o.atol);
      const L ma = yi.map([](T v) { return math::abs(v); }), mb = yn.map([](T v) { return math::abs(v); });
      const L tol = atol + L(o.rtol) * lane_select(ma > mb, ma, mb);
      const L r = e(i) / tol;
      err2 = err2 + r * r;
      tol_max = lane_select(tol_max > tol, tol_max, tol);
    }
    for (std::size_t w = 0; w < W; ++w) err[w] = err2[w] + T(0) * tol_max[w];
  }
};

// An explicit pair (explicit_rk_step). A pair that is not first same as
// last (Vern7) evaluates every lane's f(t, y) at the start of each attempt,
// at the lane's (t, y): the value the scalar step computes on accepting (or
// takes from its first extra stage, computed at the same point), and after
// a rejection the same value again. The extra stages of the dense output
// are computed lane by lane, for a lane with a save time inside its step.
template <class Method, class M, class L>
struct lane_explicit_step : lane_arrays<M, L> {
  using base = lane_arrays<M, L>;
  using typename base::T, typename base::stride;
  using base::n, base::W, base::load, base::store;
  using scalar_step = explicit_rk_step<Method, M>;
  static constexpr int S = scalar_step::S;
  static constexpr int D = scalar_step::D;
  static constexpr bool fsal = scalar_step::fsal;
  template <int R, int End>
  using nonzero = typename scalar_step::template nonzero<R, End>;
  T k_[D][n][W];
  // Whether lane w's accepted step computed f at its new point (t + h) among
  // its extra stages, and that time: the scalar step then reuses it.
  bool ready_[W] = {};
  T ready_time_[W] = {};

  void start(std::size_t w, const T* f0, solve_statistics&) {
    for (int i = 0; i < n; ++i) k_[0][i][w] = f0[i];
    ready_[w] = false;
  }
  void idle(std::size_t w) {
    for (int j = 0; j < D; ++j)
      for (int i = 0; i < n; ++i) k_[j][i][w] = T(0);
    ready_[w] = false;
  }

  // sum_J R[J] k[J] over the nonzero columns J of row R, in scalar_step::combination's order.
  template <int R, int... J>
  static L combination(const T (&k)[D][n][W], int i, std::integer_sequence<int, J...>) {
    L acc = L(T(-0.0));
    ((acc = acc + L(T(detail::rk_coefficient<Method, R, J>)) * L::load(k[J][i])), ...);
    return acc;
  }

  template <int Stage = 1>
  void stages(const M& m, L t, L h, const T (&y)[n][W], T (&u)[n][W], const T* p) {
    if constexpr (Stage < S) {
      for (int i = 0; i < n; ++i) store(u[i], load(y[i]) + h * combination<Stage>(k_, i, nonzero<Stage, Stage>{}));
      m.template rhs_lanes<L>(t + L(T(Method::c[Stage])) * h, &u[0][0], stride{}, p, stride{}, &k_[Stage][0][0],
                              stride{});
      stages<Stage + 1>(m, t, h, y, u, p);
    }
  }

  void attempt(const M& m, const ode_options<T>& o, L t, L h, const T (&y)[n][W], T (&ynew)[n][W], const T* p,
               T (&err)[W]) {
    if constexpr (!fsal) m.template rhs_lanes<L>(t, &y[0][0], stride{}, p, stride{}, &k_[0][0][0], stride{});
    if constexpr (scalar_step::reuse_new_point)
      for (std::size_t w = 0; w < W; ++w) ready_[w] = false;
    stages(m, t, h, y, ynew, p);
    T est_[n][W];
    for (int i = 0; i < n; ++i) {
      const L sol = combination<rk_solution_row>(k_, i, nonzero<rk_solution_row, S>{});
      const L est = combination<rk_error_row>(k_, i, nonzero<rk_error_row, S>{});
      store(ynew[i], load(y[i]) + h * sol);
      store(est_[i], h * est);
    }
    base::error_norms(o, y, ynew, [&](int i) { return load(est_[i]); }, err);
  }
  void count(std::size_t, solve_statistics& st) const { st.rhs_evaluations += S - 1; }

  // Lane w's extra stages, before its dense output (explicit_rk_step::prepare_dense).
  void prepare_dense(std::size_t w, const M& m, T t, T h, const T (&y)[n][W], const T (&ynew)[n][W], const T* p,
                     solve_statistics& st) {
    if constexpr (D > S) {
      if constexpr (scalar_step::reuse_new_point) {
        ready_[w] = true;
        ready_time_[w] = t + h;
        T x[n];
        for (int i = 0; i < n; ++i) x[i] = ynew[i][w];
        m.rhs(ready_time_[w], x, 1, p + w, std::ptrdiff_t(W), &k_[S][0][w], std::ptrdiff_t(W));
      }
      // The first extra stage is f at the new point when the pair reuses it.
      extra_stages<scalar_step::reuse_new_point ? S + 1 : S>(w, m, t, h, y, p);
      st.rhs_evaluations += D - S;
    }
  }
  template <int Stage>
  void extra_stages(std::size_t w, const M& m, T t, T h, const T (&y)[n][W], const T* p) {
    if constexpr (Stage < D) {
      T u[n];
      for (int i = 0; i < n; ++i) {
        T acc = T(-0.0);
        [&]<int... J>(std::integer_sequence<int, J...>) {
          ((acc = acc + T(detail::rk_coefficient<Method, Stage, J>) * k_[J][i][w]), ...);
        }(nonzero<Stage, Stage>{});
        u[i] = y[i][w] + h * acc;
      }
      m.rhs(t + T(Method::c[Stage]) * h, u, 1, p + w, std::ptrdiff_t(W), &k_[Stage][0][w], std::ptrdiff_t(W));
      extra_stages<Stage + 1>(w, m, t, h, y, p);
    }
  }

  // Lane w accepted and goes on from (t, y): f there for its next attempt.
  void accept(std::size_t w, T t, solve_statistics& st) {
    if constexpr (fsal) {
      for (int i = 0; i < n; ++i) k_[0][i][w] = k_[S - 1][i][w];  // first same as last
    } else {
      // Evaluated at the next attempt; the scalar step counts it unless it reuses its extra stage.
      if (!(scalar_step::reuse_new_point && ready_[w] && ready_time_[w] == t)) ++st.rhs_evaluations;
    }
  }
  void save_dense(std::size_t w, T theta, T h, const T (&y)[n][W], const T (&)[n][W], T* out,
                  std::ptrdiff_t stride) const {
    T wt[D];
    Method::dense_weights(theta, wt);
    for (int i = 0; i < n; ++i) {
      T acc = T(-0.0);
      for (int j = 0; j < D; ++j) acc = acc + wt[j] * k_[j][i][w];
      out[std::ptrdiff_t(i) * stride] = y[i][w] + h * acc;
    }
  }
};

// J and df/dt of every lane at (t, y), and the iteration matrix diag - J
// factored lane by lane (detail::linearization in lanes).
template <class M, class L>
struct lane_linearization : lane_arrays<M, L> {
  using base = lane_arrays<M, L>;
  using typename base::T, typename base::stride;
  using base::n, base::W, base::load;
  using truth = typename dense_lu<L, n>::truth;
  T J[n][n][W];
  T dT[M::autonomous ? 1 : n][W];
  dense_lu<L, n> lu;

  void at(const M& m, L t, const T (&y)[n][W], const T* p) {
    m.template jacobian_dense_lanes<M::jacobian::x>(t, &y[0][0], stride{}, p, stride{}, &J[0][0][0]);
    if constexpr (!M::autonomous) m.template rhs_dt_lanes<L>(t, &y[0][0], stride{}, p, stride{}, &dT[0][0], stride{});
  }
  L time_term(int i) const {
    if constexpr (M::autonomous) return L(T(0));
    else return load(dT[i]);
  }
  L plus_time_term(L x, L coefficient, int i) const {
    if constexpr (M::autonomous) return x;
    else return x + coefficient * load(dT[i]);
  }
  truth factor(L diag) {
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) lu.a[r][c] = r == c ? diag - load(J[r][c]) : -load(J[r][c]);
    return lu.factor();
  }
};

// Shampine & Reichelt's ode23s (rosenbrock23_step) in lanes. f(t, y) of a
// lane is its last accepted step's F2, as the scalar step keeps it.
template <class M, class L>
struct lane_rosenbrock23_step : lane_arrays<M, L> {
  using base = lane_arrays<M, L>;
  using typename base::T, typename base::stride;
  using base::n, base::W, base::load, base::store;
  using scalar_step = rosenbrock23_step<M>;
  lane_linearization<M, L> lin;
  T F0[n][W], F1[n][W], F2[n][W], k1[n][W], k2[n][W];
  bool regular_[W];

  void start(std::size_t w, const T* f0, solve_statistics& st) {
    for (int i = 0; i < n; ++i) F0[i][w] = f0[i];
    ++st.jacobian_evaluations;  // begin(): J at (t0, y0), evaluated at the first attempt
  }
  void idle(std::size_t w) {
    for (int i = 0; i < n; ++i) F0[i][w] = T(0);
  }

  void solve(T (&k)[n][W]) const {
    L b[n];
    for (int i = 0; i < n; ++i) b[i] = load(k[i]);
    lin.lu.solve(b);
    for (int i = 0; i < n; ++i) store(k[i], b[i]);
  }

  void attempt(const M& m, const ode_options<T>& o, L t, L h, const T (&y)[n][W], T (&ynew)[n][W], const T* p,
               T (&err)[W]) {
    const L gamma = L(T(rosenbrock23::gamma)), e32 = L(T(rosenbrock23::e32));
    // J at (t, y): the scalar step's, kept from the lane's last accepted point.
    lin.at(m, t, y, p);
    const L gh = gamma * h, inv_gh = L(T(1)) / gh;
    const auto regular = lin.factor(inv_gh);
    for (std::size_t w = 0; w < W; ++w) regular_[w] = regular[w];
    for (int i = 0; i < n; ++i) store(k1[i], lin.plus_time_term(load(F0[i]), gh, i) * inv_gh);
    solve(k1);
    for (int i = 0; i < n; ++i) store(ynew[i], load(y[i]) + L(T(0.5)) * h * load(k1[i]));
    m.template rhs_lanes<L>(t + L(T(0.5)) * h, &ynew[0][0], stride{}, p, stride{}, &F1[0][0], stride{});
    for (int i = 0; i < n; ++i) store(k2[i], (load(F1[i]) - load(k1[i])) * inv_gh);
    solve(k2);
    for (int i = 0; i < n; ++i) {
      const L k2i = load(k2[i]) + load(k1[i]);
      store(k2[i], k2i);
      store(ynew[i], load(y[i]) + h * k2i);
    }
    m.template rhs_lanes<L>(t + h, &ynew[0][0], stride{}, p, stride{}, &F2[0][0], stride{});
    T k3[n][W];
    for (int i = 0; i < n; ++i)
      store(k3[i], lin.plus_time_term(load(F2[i]) - e32 * (load(k2[i]) - load(F1[i])) -
                                          L(T(2)) * (load(k1[i]) - load(F0[i])),
                                      gh, i) *
                       inv_gh);
    solve(k3);
    base::error_norms(
        o, y, ynew,
        [&](int i) { return h / L(T(6)) * (load(k1[i]) - L(T(2)) * load(k2[i]) + load(k3[i])); }, err);
    for (std::size_t w = 0; w < W; ++w)
      if (!regular_[w]) err[w] = quiet_nan<T>();
  }
  void count(std::size_t w, solve_statistics& st) const {
    ++st.factorizations;
    if (regular_[w]) st.rhs_evaluations += 2;
  }
  void accept(std::size_t w, T, solve_statistics& st) {
    for (int i = 0; i < n; ++i) F0[i][w] = F2[i][w];  // f at the new point
    ++st.jacobian_evaluations;                        // J there, evaluated at the next attempt
  }
  void save_dense(std::size_t w, T theta, T h, const T (&y)[n][W], const T (&)[n][W], T* out,
                  std::ptrdiff_t stride) const {
    constexpr T gamma = T(rosenbrock23::gamma);
    const T b1 = theta * (T(1) - theta) / (T(1) - T(2) * gamma);
    const T b2 = theta * (theta - T(2) * gamma) / (T(1) - T(2) * gamma);
    for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * stride] = y[i][w] + h * (b1 * k1[i][w] + b2 * k2[i][w]);
  }
};

// A stiffly accurate Rodas-type step (rodas_step) in lanes. f(t, y), J and
// df/dt of a lane are evaluated at the start of every attempt at the lane's
// (t, y): after a rejection the same point, hence the same values, as the
// scalar step keeps.
template <class Method, class M, class L>
struct lane_rodas_step : lane_arrays<M, L> {
  using base = lane_arrays<M, L>;
  using typename base::T, typename base::stride;
  using base::n, base::W, base::load, base::store;
  using scalar_step = rodas_step<Method, M>;
  static constexpr int S = Method::stages;
  lane_linearization<M, L> lin;
  T k[S][n][W];
  bool regular_[W];

  void start(std::size_t, const T*, solve_statistics& st) { ++st.jacobian_evaluations; }
  void idle(std::size_t) {}

  template <int I, int... J>
  L stage_sum(const T (&y)[n][W], int i, std::integer_sequence<int, J...>) const {
    return load(y[i]) + (L(T(-0.0)) + ... + (L(T(Method::a[I][J])) * load(k[J][i])));
  }
  template <int I, int... J>
  L coupling([[maybe_unused]] int i, std::integer_sequence<int, J...>) const {
    return (L(T(-0.0)) + ... + (L(T(Method::C[I][J])) * load(k[J][i])));
  }
  template <int R, int... J>
  T dense_term(std::size_t w, int i, std::integer_sequence<int, J...>) const {
    return (T(-0.0) + ... + (T(Method::H[R][J]) * k[J][i][w]));
  }

  template <int I = 0>
  void stages(const M& m, L t, L h, const T (&y)[n][W], T (&u)[n][W], const T* p) {
    if constexpr (I < S) {
      if constexpr (I == 0) {
        m.template rhs_lanes<L>(t, &y[0][0], stride{}, p, stride{}, &k[0][0][0], stride{});  // f(t, y)
      } else {
        for (int i = 0; i < n; ++i) store(u[i], stage_sum<I>(y, i, std::make_integer_sequence<int, I>{}));
        m.template rhs_lanes<L>(t + L(T(Method::c[I])) * h, &u[0][0], stride{}, p, stride{}, &k[I][0][0], stride{});
      }
      const L inv_h = L(T(1)) / h;
      L b[n];
      for (int i = 0; i < n; ++i)
        b[i] = rodas_stage_input<Method, I, M::autonomous, T>(
            load(k[I][i]), inv_h, h, [&] { return coupling<I>(i, std::make_integer_sequence<int, I>{}); },
            [&] { return lin.time_term(i); });
      lin.lu.solve(b);
      for (int i = 0; i < n; ++i) store(k[I][i], b[i]);
      stages<I + 1>(m, t, h, y, u, p);
    }
  }

  void attempt(const M& m, const ode_options<T>& o, L t, L h, const T (&y)[n][W], T (&ynew)[n][W], const T* p,
               T (&err)[W]) {
    lin.at(m, t, y, p);
    const auto regular = lin.factor(L(T(1)) / (L(T(Method::gamma)) * h));
    for (std::size_t w = 0; w < W; ++w) regular_[w] = regular[w];
    stages(m, t, h, y, ynew, p);
    // Stiffly accurate: the new state is the last stage's input plus its k.
    for (int i = 0; i < n; ++i)
      store(ynew[i], stage_sum<S - 1>(y, i, std::make_integer_sequence<int, S - 1>{}) + load(k[S - 1][i]));
    base::error_norms(o, y, ynew, [&](int i) { return load(k[S - 1][i]); }, err);
    for (std::size_t w = 0; w < W; ++w)
      if (!regular_[w]) err[w] = quiet_nan<T>();
  }
  void count(std::size_t w, solve_statistics& st) const {
    ++st.factorizations;
    if (regular_[w]) st.rhs_evaluations += S - 1;
  }
  void accept(std::size_t, T, solve_statistics& st) {
    // f, J (and df/dt) at the new point, evaluated at the next attempt.
    ++st.rhs_evaluations;
    ++st.jacobian_evaluations;
  }
  void save_dense(std::size_t w, T theta, T, const T (&y)[n][W], const T (&ynew)[n][W], T* out,
                  std::ptrdiff_t stride) const {
    constexpr auto all = std::make_integer_sequence<int, S>{};
    for (int i = 0; i < n; ++i) {
      const T q1 = dense_term<0>(w, i, all), q2 = dense_term<1>(w, i, all), q3 = dense_term<2>(w, i, all);
      const T rest = T(1) - theta;
      out[std::ptrdiff_t(i) * stride] = rest * y[i][w] + theta * (ynew[i][w] + rest * (q1 + theta * (q2 + theta * q3)));
    }
  }
};

template <class Method, class M, class L>
struct lane_step_of {
  using type = lane_explicit_step<Method, M, L>;
};
template <class M, class L>
struct lane_step_of<rosenbrock23, M, L> {
  using type = lane_rosenbrock23_step<M, L>;
};
template <class M, class L>
struct lane_step_of<rodas5p, M, L> {
  using type = lane_rodas_step<rodas5p, M, L>;
};

template <class Method, class M, class L>
class lane_ensemble {
  using T = typename M::scalar;
  using Step = typename lane_step_of<Method, M, L>::type;
  static constexpr int n = int(M::n_states);
  static constexpr int np = int(M::n_params) > 0 ? int(M::n_params) : 1;
  static constexpr std::size_t W = L::width;
  using scalar_step = typename Step::scalar_step;
  using scalar_driver = adaptive_driver<scalar_step, M>;

  // Element-major, lanes consecutive: element i of lane w at [i][w], as
  // compiled::rhs_lanes reads and writes with element stride W.
  T y_[n][W], ynew_[n][W], p_[np][W];
  T t_[W], h_[W];
  Step step_;

  // A lane's trajectory: which one, its save times and its step control
  // (as adaptive_driver::integrate keeps them), how it ended, its statistics.
  struct lane {
    bool busy = false;
    std::size_t trajectory = 0;
    save_cursor<T> saved;
    step_control<T> control;
    solve_status status = solve_status::success;
    solve_statistics stats{};
  };
  lane lanes_[W];

  const M& m_;
  const ode_options<T>& o_;

 public:
  lane_ensemble(const M& m, const ode_options<T>& o) : m_(m), o_(o) {}

  // Integrates trajectories [begin, end); io(b) says where trajectory b
  // reads and writes, done(b, status, stats) records its end.
  template <class IO, class Done>
  void run(std::size_t begin, std::size_t end, const IO& io, const Done& done) {
    std::size_t next = begin;
    for (std::size_t w = 0; w < W; ++w) {
      idle(w);
      start_next(w, next, end, io, done);
    }
    for (;;) {
      bool any = false;
      for (std::size_t w = 0; w < W; ++w) {
        any = any || lanes_[w].busy;
        h_[w] = lanes_[w].control.h;
      }
      if (!any) return;
      step_.attempt(m_, o_, L::load(t_), L::load(h_), y_, ynew_, &p_[0][0], err_);
      for (std::size_t w = 0; w < W; ++w)
        if (lanes_[w].busy && !advance(w, io(lanes_[w].trajectory))) {
          finish(w, io, done);
          start_next(w, next, end, io, done);
        }
    }
  }

 private:
  // A lane without a trajectory: a zero step from a finite state.
  void idle(std::size_t w) {
    lanes_[w].busy = false;
    lanes_[w].control = step_control<T>{};
    t_[w] = o_.t0;
    for (int i = 0; i < n; ++i) y_[i][w] = T(1);
    for (int j = 0; j < np; ++j) p_[j][w] = T(1);
    step_.idle(w);
  }

  // Starts trajectories in lane w until one needs steps (or the range is
  // done), as adaptive_driver::integrate starts one.
  template <class IO, class Done>
  void start_next(std::size_t w, std::size_t& next, std::size_t end, const IO& io, const Done& done) {
    while (next < end) {
      const std::size_t b = next++;
      const trajectory_io<T> t_io = io(b);
      lane& ln = lanes_[w];
      ln = lane{};
      ln.busy = true;
      ln.trajectory = b;
      ln.saved = save_cursor<T>(o_);
      T y[n], p[np], f0[n], y1[n], f1[n];
      for (int i = 0; i < n; ++i) y[i] = t_io.x0[std::ptrdiff_t(i) * t_io.x0_stride];
      for (int j = 0; j < int(M::n_params); ++j) p[j] = t_io.p[std::ptrdiff_t(j) * t_io.p_stride];
      saved_state_writer<T> sink{t_io};
      ln.saved.reached(o_, sink, n, o_.t0, vector_values<T>{y});
      m_.rhs(o_.t0, y, 1, p, 1, f0, 1);
      ++ln.stats.rhs_evaluations;
      ln.control.h = scalar_driver::first_step(m_, o_, p, 1, y, f0, y1, f1, ln.stats);
      for (int i = 0; i < n; ++i) y_[i][w] = y[i];
      for (int j = 0; j < int(M::n_params); ++j) p_[j][w] = p[j];
      step_.start(w, f0, ln.stats);
      t_[w] = o_.t0;
      if (ln.control.ready(o_, ln.stats, o_.t0, ln.saved.target(o_), ln.status)) return;  // a step to take
      finish(w, io, done);
    }
    idle(w);
  }

  // err_[w]: n err^2 of lane w's attempt (NaN: not finite; detail::step_error).
  T err_[W];

  // After an attempt, lane w's decisions (adaptive_driver::integrate's, by
  // the same step_control). True: its next attempt is ready; false: its
  // trajectory ended (lanes_[w].status).
  bool advance(std::size_t w, const trajectory_io<T>& io) {
    lane& ln = lanes_[w];
    step_.count(w, ln.stats);
    const T t = t_[w], h = ln.control.h;
    const bool go_on = ln.control.template judge<scalar_step, n>(o_, t, err_[w], ln.stats, ln.status, [&](T t_new) {
      if constexpr (requires { step_.prepare_dense(w, m_, t, h, y_, ynew_, &p_[0][0], ln.stats); })
        if (ln.saved.inside(t_new)) step_.prepare_dense(w, m_, t, h, y_, ynew_, &p_[0][0], ln.stats);
      for (; ln.saved.due(t_new); ln.saved.pass(o_)) {
        T* out = io.saved + std::ptrdiff_t(ln.saved.next) * io.saved_time_stride;
        const T ts = ln.saved.time;
        if (ts == t_new) {  // the step's end: the solution itself
          for (int i = 0; i < n; ++i) out[std::ptrdiff_t(i) * io.saved_state_stride] = ynew_[i][w];
          continue;
        }
        const T theta = (ts - t) / h;
        step_.save_dense(w, theta, h, y_, ynew_, out, io.saved_state_stride);
      }
      for (int i = 0; i < n; ++i) y_[i][w] = ynew_[i][w];
      t_[w] = t_new;
      if (!(t_new < o_.t1)) return false;  // the end: success
      step_.accept(w, t_new, ln.stats);
      return true;
    });
    return go_on && ln.control.ready(o_, ln.stats, t_[w], ln.saved.target(o_), ln.status);
  }

  // The end of lane w's trajectory: final state, status, statistics; save
  // times it did not reach read NaN (as adaptive_driver).
  template <class IO, class Done>
  void finish(std::size_t w, const IO& io, const Done& done) {
    lane& ln = lanes_[w];
    const trajectory_io<T> t_io = io(ln.trajectory);
    saved_state_writer<T> sink{t_io};
    ln.saved.unreached(o_, sink, n);
    for (int i = 0; i < n; ++i) t_io.final_state[std::ptrdiff_t(i) * t_io.final_stride] = y_[i][w];
    done(ln.trajectory, ln.status, ln.stats);
    ln.busy = false;
  }
};

}  // namespace detail

}  // namespace fluxion
