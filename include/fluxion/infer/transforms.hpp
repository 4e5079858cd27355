#pragma once
// Transforms from the unconstrained real line to a parameter's support, as
// Stan defines them (Stan Reference Manual, "Constraint transforms"): a
// sampler or optimizer moves u in R, the model reads x = f(u), and the
// log-density on u gains log |dx/du|, the log-Jacobian of the inverse
// transform.
//
//   transform                          x = f(u)                      log |dx/du|
//   identity_transform                 u                             0
//   log_transform{lower}               lower + e^u                   u
//   upper_log_transform{upper}         upper - e^u                   u
//   logit_transform{lower, upper}      lower + (upper - lower) s(u)  log(upper - lower) + log s(u) + log s(-u)
//   affine_transform{offset, mult}     offset + mult u               log |mult|
//   bounds_transform{lower, upper}     one of the four above, chosen at run time by which bounds are finite
//
// (s the logistic function; logit_transform{} is the logit for (0, 1),
// log_transform{} the log for (0, inf)). Each has
//
//   to_constrained(u), to_unconstrained(x), log_jacobian(u)
//   apply(u) -> transformed<T>{value x, derivative dx/du, log_jacobian, d_log_jacobian (d/du)}
//
// templated on the scalar type (float, double, and std::complex<double> on
// the host, for complex-step checks); __host__ __device__. The logistic is
// evaluated on the side where it does not round to 1, so that x stays
// inside (lower, upper) as long as it can be told apart from the bounds.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/log_arith.hpp>
#include <fluxion/math/scalar.hpp>

namespace fluxion {

template <class T>
struct transformed {
  T value;           // x = f(u)
  T derivative;      // dx/du
  T log_jacobian;    // log |dx/du|
  T d_log_jacobian;  // d/du log |dx/du|
};

struct identity_transform {
  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    return u;
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return x;
  }
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T) const {
    return T(0);
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    return {u, T(1), T(0), T(0)};
  }
};

// x = lower + e^u on (lower, inf).
template <class R = double>
struct log_transform {
  R lower = R(0);

  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    return T(lower) + math::special::exp(u);
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return math::special::log(x - T(lower));
  }
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T u) const {
    return u;
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    const T e = math::special::exp(u);
    return {T(lower) + e, e, u, T(1)};
  }
};

// x = upper - e^u on (-inf, upper).
template <class R = double>
struct upper_log_transform {
  R upper = R(0);

  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    return T(upper) - math::special::exp(u);
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return math::special::log(T(upper) - x);
  }
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T u) const {
    return u;
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    const T e = math::special::exp(u);
    return {T(upper) - e, -e, u, T(1)};
  }
};

// x = lower + (upper - lower) s(u) on (lower, upper), s(u) = 1 / (1 + e^-u):
// the scaled logit; the plain logit for the defaults (0, 1).
template <class R = double>
struct logit_transform {
  R lower = R(0);
  R upper = R(1);

  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    const T width = T(upper - lower);
    if (math::special::value_of(u) > 0) return T(upper) - width / (T(1) + math::special::exp(u));
    return T(lower) + width / (T(1) + math::special::exp(-u));
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return math::special::log(x - T(lower)) - math::special::log(T(upper) - x);
  }
  // log(upper - lower) - log(1 + e^-u) - log(1 + e^u)
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T u) const {
    namespace sp = math::special;
    return T(sp::log(upper - lower)) - sp::log1p_exp(-u) - sp::log1p_exp(u);
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    namespace sp = math::special;
    // s(u) and s(-u) = 1 - s(u), each from the side where it is not rounded away.
    const bool positive = sp::value_of(u) > 0;
    const T e = sp::exp(positive ? -u : u);  // <= 1
    const T small = e / (T(1) + e), large = T(1) / (T(1) + e);
    const T s_plus = positive ? large : small, s_minus = positive ? small : large;  // s(u), s(-u)
    const T width = T(upper - lower);
    const T x = positive ? T(upper) - width * s_minus : T(lower) + width * s_plus;
    return {x, width * s_plus * s_minus, log_jacobian(u), s_minus - s_plus};
  }
};

// x = offset + multiplier u (Stan's offset and multiplier), multiplier != 0.
template <class R = double>
struct affine_transform {
  R offset = R(0);
  R multiplier = R(1);

  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    return T(offset) + T(multiplier) * u;
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return (x - T(offset)) / T(multiplier);
  }
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T) const {
    return T(math::special::log(multiplier < R(0) ? -multiplier : multiplier));
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    return {to_constrained(u), T(multiplier), log_jacobian(u), T(0)};
  }
};

// A support (lower, upper) whose bounds may be infinite, as Stan's
// real<lower = L, upper = U>: identity, log, upper-log or scaled logit by
// which bounds are finite.
template <class R = double>
struct bounds_transform {
  R lower = -math::special::infinity<R>();
  R upper = math::special::infinity<R>();

  template <class T>
  FLUXION_HOST_DEVICE T to_constrained(T u) const {
    return by_shape([&](const auto& f) { return f.to_constrained(u); });
  }
  template <class T>
  FLUXION_HOST_DEVICE T to_unconstrained(T x) const {
    return by_shape([&](const auto& f) { return f.to_unconstrained(x); });
  }
  template <class T>
  FLUXION_HOST_DEVICE T log_jacobian(T u) const {
    return by_shape([&](const auto& f) { return f.log_jacobian(u); });
  }
  template <class T>
  FLUXION_HOST_DEVICE transformed<T> apply(T u) const {
    return by_shape([&](const auto& f) { return f.apply(u); });
  }

 private:
  enum finite_bounds { neither, lower_only, upper_only, both };
  FLUXION_HOST_DEVICE finite_bounds shape() const {
    const bool has_lower = lower > -math::special::infinity<R>(), has_upper = upper < math::special::infinity<R>();
    if (has_lower && has_upper) return both;
    if (has_lower) return lower_only;
    if (has_upper) return upper_only;
    return neither;
  }
  // call(f) with f the transform that the finite bounds choose.
  template <class Call>
  FLUXION_HOST_DEVICE auto by_shape(const Call& call) const {
    switch (shape()) {
      case both: return call(logit_transform<R>{lower, upper});
      case lower_only: return call(log_transform<R>{lower});
      case upper_only: return call(upper_log_transform<R>{upper});
      default: return call(identity_transform{});
    }
  }
};

}  // namespace fluxion
