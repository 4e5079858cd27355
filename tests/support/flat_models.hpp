#pragma once
// Four flat (unshaped) models, each written twice:
//
//   * as a fluxion model (`model`), compiled by the tests into
//     fx::compiled<model, double> and fx::compiled<model, float>;
//   * as independent, hand-written plain C++ (`reference`), templated on the
//     scalar type, reading raw arrays in the canonical layout order
//     (declaration order of fx::states(...) / fx::params(...), observables in
//     fx::observe order). The references never call fluxion.
//
// Each reference also has `rhs_scale` / `observe_scale`: the sum of the
// absolute values of the additive terms of each output, so that tests can
// bound rounding error relative to the terms and not to a result that
// happens to cancel to nearly zero.
//
//   (a) sir         SIR with seasonal forcing beta(t) = beta0 (1 + amp cos(2 pi t / 365))
//   (b) lorenz      Lorenz 1963 (sigma, rho, beta), observable x^2 + y^2 + z^2
//   (c) robertson   Robertson stiff kinetics (k1, k2, k3), observable mass y1 + y2 + y3
//   (d) pk          two-compartment pharmacokinetics, Michaelis-Menten elimination from
//                   the central compartment and a zero-order infusion that stops at t_inf
#include <array>
#include <cmath>
#include <cstddef>
#include <random>

#include <fluxion/fluxion.hpp>

namespace flat {

namespace fx = fluxion;

// --- (a) SIR with seasonal forcing -------------------------------------------------
namespace sir {
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta0"> beta0;
constexpr fx::param<"amp"> amp;
constexpr fx::param<"gamma"> gam;
constexpr fx::constant<"two_pi", 6.283185307179586> two_pi;

constexpr auto N = fx::alias<"N">(S + I + R);
constexpr auto beta_t = fx::alias<"beta_t">(beta0 * (1.0 + amp * fx::cos(two_pi * fx::t / 365.0)));
constexpr auto infection = fx::alias<"infection">(beta_t * S * I / N);  // an alias reading aliases

constexpr auto model = fx::model(fx::states(S, I, R), fx::params(beta0, amp, gam),  //
                                 fx::d(S) = -infection,                             //
                                 fx::d(I) = infection - gam * I,                    //
                                 fx::d(R) = gam * I,                                //
                                 fx::observe<"incidence">() = infection,            //
                                 fx::observe<"population">() = N);

struct reference {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 2;
  static constexpr const char* state_names[] = {"S", "I", "R"};
  static constexpr const char* param_names[] = {"beta0", "amp", "gamma"};
  static constexpr const char* observable_names[] = {"incidence", "population"};

  template <class T>
  static T seasonal_beta(T t, const T* p) {
    const T two_pi_ = T(6.283185307179586);
    return p[0] * (T(1) + p[1] * std::cos(two_pi_ * t / T(365)));
  }
  template <class T>
  static void rhs(T t, const T* x, const T* p, T* dx) {
    const T s = x[0], i = x[1], r = x[2];
    const T n = s + i + r;
    const T inf = seasonal_beta(t, p) * s * i / n;
    dx[0] = -inf;
    dx[1] = inf - p[2] * i;
    dx[2] = p[2] * i;
  }
  template <class T>
  static void observe(T t, const T* x, const T* p, T* y) {
    const T n = x[0] + x[1] + x[2];
    y[0] = seasonal_beta(t, p) * x[0] * x[1] / n;
    y[1] = n;
  }
  template <class T>
  static void rhs_scale(T t, const T* x, const T* p, T* s) {
    const T n = std::abs(x[0] + x[1] + x[2]);
    const T inf = std::abs(seasonal_beta(t, p) * x[0] * x[1]) / n;
    const T rec = std::abs(p[2] * x[1]);
    s[0] = inf;
    s[1] = inf + rec;
    s[2] = rec;
  }
  template <class T>
  static void observe_scale(T t, const T* x, const T* p, T* s) {
    s[0] = std::abs(seasonal_beta(t, p) * x[0] * x[1] / (x[0] + x[1] + x[2]));
    s[1] = std::abs(x[0]) + std::abs(x[1]) + std::abs(x[2]);
  }
  // Random points: S, I, R > 0, beta0 in [0.1, 1], amp in [0, 0.5], gamma in [0.05, 0.5].
  static constexpr std::array<double, 3> x_lo{10.0, 1.0, 0.0}, x_hi{1.0e4, 1.0e3, 1.0e4};
  static constexpr std::array<double, 3> p_lo{0.1, 0.0, 0.05}, p_hi{1.0, 0.5, 0.5};
  static constexpr double t_lo = 0.0, t_hi = 730.0;
};
}  // namespace sir

// --- (b) Lorenz 1963 -------------------------------------------------------------------
namespace lorenz {
constexpr fx::state<"x"> x;
constexpr fx::state<"y"> y;
constexpr fx::state<"z"> z;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"rho"> rho;
constexpr fx::param<"beta"> beta;

constexpr auto model = fx::model(fx::states(x, y, z), fx::params(sigma, rho, beta),  //
                                 fx::d(x) = sigma * (y - x),                         //
                                 fx::d(y) = x * (rho - z) - y,                       //
                                 fx::d(z) = x * y - beta * z,                        //
                                 fx::observe<"radius2">() = fx::pow(x, 2) + fx::pow(y, 2) + fx::pow(z, 2),
                                 fx::observe<"z_minus_rho">() = z - rho);

struct reference {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 2;
  static constexpr const char* state_names[] = {"x", "y", "z"};
  static constexpr const char* param_names[] = {"sigma", "rho", "beta"};
  static constexpr const char* observable_names[] = {"radius2", "z_minus_rho"};

  template <class T>
  static void rhs(T, const T* s, const T* p, T* dx) {
    dx[0] = p[0] * (s[1] - s[0]);
    dx[1] = s[0] * (p[1] - s[2]) - s[1];
    dx[2] = s[0] * s[1] - p[2] * s[2];
  }
  template <class T>
  static void observe(T, const T* s, const T* p, T* y) {
    y[0] = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    y[1] = s[2] - p[1];
  }
  template <class T>
  static void rhs_scale(T, const T* s, const T* p, T* r) {
    r[0] = std::abs(p[0]) * (std::abs(s[1]) + std::abs(s[0]));
    r[1] = std::abs(s[0]) * (std::abs(p[1]) + std::abs(s[2])) + std::abs(s[1]);
    r[2] = std::abs(s[0] * s[1]) + std::abs(p[2] * s[2]);
  }
  template <class T>
  static void observe_scale(T, const T* s, const T* p, T* r) {
    r[0] = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    r[1] = std::abs(s[2]) + std::abs(p[1]);
  }
  static constexpr std::array<double, 3> x_lo{-20.0, -25.0, 0.0}, x_hi{20.0, 25.0, 50.0};
  static constexpr std::array<double, 3> p_lo{5.0, 10.0, 1.0}, p_hi{15.0, 40.0, 4.0};
  static constexpr double t_lo = 0.0, t_hi = 10.0;
};
}  // namespace lorenz

// --- (c) Robertson chemical kinetics -------------------------------------------------------
//   y1' = -k1 y1 + k3 y2 y3
//   y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
//   y3' =  k2 y2^2
// with the classic k1 = 0.04, k2 = 3e7, k3 = 1e4 (passed as parameters).
namespace robertson {
constexpr fx::state<"y1"> y1;
constexpr fx::state<"y2"> y2;
constexpr fx::state<"y3"> y3;
constexpr fx::param<"k1"> k1;
constexpr fx::param<"k2"> k2;
constexpr fx::param<"k3"> k3;

constexpr auto model =
    fx::model(fx::states(y1, y2, y3), fx::params(k1, k2, k3),                                             //
              fx::d(y1) = -k1 * y1 + k3 * y2 * y3,                                                        //
              fx::d(y2) = k1 * y1 - k3 * y2 * y3 - k2 * fx::pow(y2, 2), fx::d(y3) = k2 * fx::pow(y2, 2),  //
              fx::observe<"mass">() = y1 + y2 + y3);

inline constexpr std::array<double, 3> classic_rates{0.04, 3.0e7, 1.0e4};

struct reference {
  static constexpr std::size_t n_states = 3, n_params = 3, n_observables = 1;
  static constexpr const char* state_names[] = {"y1", "y2", "y3"};
  static constexpr const char* param_names[] = {"k1", "k2", "k3"};
  static constexpr const char* observable_names[] = {"mass"};

  template <class T>
  static void rhs(T, const T* y, const T* k, T* dy) {
    const T a = k[0] * y[0];         // y1 -> y2
    const T b = k[2] * y[1] * y[2];  // y2 + y3 -> y1 + y3
    const T c = k[1] * y[1] * y[1];  // 2 y2 -> y2 + y3
    dy[0] = -a + b;
    dy[1] = a - b - c;
    dy[2] = c;
  }
  template <class T>
  static void observe(T, const T* y, const T*, T* m) {
    m[0] = y[0] + y[1] + y[2];
  }
  template <class T>
  static void rhs_scale(T, const T* y, const T* k, T* s) {
    const T a = std::abs(k[0] * y[0]), b = std::abs(k[2] * y[1] * y[2]), c = std::abs(k[1] * y[1] * y[1]);
    s[0] = a + b;
    s[1] = a + b + c;
    s[2] = c;
  }
  template <class T>
  static void observe_scale(T, const T* y, const T*, T* s) {
    s[0] = std::abs(y[0]) + std::abs(y[1]) + std::abs(y[2]);
  }
  // Physically meaningful region: y2 stays tiny (quasi-steady around 1e-5).
  static constexpr std::array<double, 3> x_lo{0.0, 0.0, 0.0}, x_hi{1.0, 4.0e-5, 1.0};
  static constexpr std::array<double, 3> p_lo{0.02, 1.0e7, 5.0e3}, p_hi{0.08, 6.0e7, 2.0e4};
  static constexpr double t_lo = 0.0, t_hi = 1.0e5;
};
}  // namespace robertson

// --- (d) two-compartment pharmacokinetics ---------------------------------------------------
//   A1 central amount, A2 peripheral amount, C = A1 / V1 central concentration
//   A1' = u(t) - k12 A1 + k21 A2 - Vmax C / (Km + C)
//   A2' =        k12 A1 - k21 A2
//   u(t) = rate while t < t_inf, else 0      (zero-order infusion)
// observables: concentration C and the elimination rate Vmax C / (Km + C).
namespace pk {
constexpr fx::state<"A1"> A1;
constexpr fx::state<"A2"> A2;
constexpr fx::param<"k12"> k12;
constexpr fx::param<"k21"> k21;
constexpr fx::param<"Vmax"> Vmax;
constexpr fx::param<"Km"> Km;
constexpr fx::param<"V1"> V1;
constexpr fx::param<"rate"> rate;
constexpr fx::param<"t_inf"> t_inf;

constexpr auto conc = fx::alias<"C">(A1 / V1);
constexpr auto elim = fx::alias<"elim">(Vmax * conc / (Km + conc));
constexpr auto infusion = fx::where(fx::t < t_inf, rate, 0.0);

constexpr auto model = fx::model(fx::states(A1, A2), fx::params(k12, k21, Vmax, Km, V1, rate, t_inf),  //
                                 fx::d(A1) = infusion - k12 * A1 + k21 * A2 - elim,                    //
                                 fx::d(A2) = k12 * A1 - k21 * A2,                                      //
                                 fx::observe<"concentration">() = conc,                                //
                                 fx::observe<"elimination">() = elim);

struct reference {
  static constexpr std::size_t n_states = 2, n_params = 7, n_observables = 2;
  static constexpr const char* state_names[] = {"A1", "A2"};
  static constexpr const char* param_names[] = {"k12", "k21", "Vmax", "Km", "V1", "rate", "t_inf"};
  static constexpr const char* observable_names[] = {"concentration", "elimination"};

  template <class T>
  static T input(T t, const T* p) {
    return t < p[6] ? p[5] : T(0);
  }
  template <class T>
  static T elimination(const T* x, const T* p) {
    const T c = x[0] / p[4];
    return p[2] * c / (p[3] + c);
  }
  template <class T>
  static void rhs(T t, const T* x, const T* p, T* dx) {
    const T to_periph = p[0] * x[0], to_central = p[1] * x[1];
    dx[0] = input(t, p) - to_periph + to_central - elimination(x, p);
    dx[1] = to_periph - to_central;
  }
  template <class T>
  static void observe(T, const T* x, const T* p, T* y) {
    y[0] = x[0] / p[4];
    y[1] = elimination(x, p);
  }
  template <class T>
  static void rhs_scale(T t, const T* x, const T* p, T* s) {
    const T a = std::abs(p[0] * x[0]), b = std::abs(p[1] * x[1]);
    s[0] = std::abs(input(t, p)) + a + b + std::abs(elimination(x, p));
    s[1] = a + b;
  }
  template <class T>
  static void observe_scale(T, const T* x, const T* p, T* s) {
    s[0] = std::abs(x[0] / p[4]);
    s[1] = std::abs(elimination(x, p));
  }
  // Amounts in mg, volumes in L, rates per hour, t in hours; t straddles t_inf.
  static constexpr std::array<double, 2> x_lo{0.0, 0.0}, x_hi{500.0, 800.0};
  static constexpr std::array<double, 7> p_lo{0.05, 0.02, 5.0, 0.5, 5.0, 10.0, 1.0},
      p_hi{1.5, 0.8, 60.0, 20.0, 50.0, 200.0, 12.0};
  static constexpr double t_lo = 0.0, t_hi = 24.0;
};
}  // namespace pk

// One of the four models with its reference, as a type for TEMPLATE_TEST_CASE.
struct sir_case {
  static constexpr auto model = sir::model;
  using reference = sir::reference;
  static constexpr const char* name = "sir";
};
struct lorenz_case {
  static constexpr auto model = lorenz::model;
  using reference = lorenz::reference;
  static constexpr const char* name = "lorenz";
};
struct robertson_case {
  static constexpr auto model = robertson::model;
  using reference = robertson::reference;
  static constexpr const char* name = "robertson";
};
struct pk_case {
  static constexpr auto model = pk::model;
  using reference = pk::reference;
  static constexpr const char* name = "pk";
};

// A random point (time, state, parameters) of a reference's sampling box.
// Values are drawn in double and rounded to T, so a float point cast back to
// double is the same point.
template <class Ref, class T>
struct point {
  T t;
  std::array<T, Ref::n_states> x;
  std::array<T, Ref::n_params> p;
};

template <class Ref, class T, class Rng>
point<Ref, T> random_point(Rng& rng) {
  point<Ref, T> pt{};
  auto draw = [&rng](double lo, double hi) {
    return static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
  };
  pt.t = draw(Ref::t_lo, Ref::t_hi);
  for (std::size_t i = 0; i < Ref::n_states; ++i) pt.x[i] = draw(Ref::x_lo[i], Ref::x_hi[i]);
  for (std::size_t i = 0; i < Ref::n_params; ++i) pt.p[i] = draw(Ref::p_lo[i], Ref::p_hi[i]);
  return pt;
}

}  // namespace flat
