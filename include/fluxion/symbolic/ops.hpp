#pragma once
// Operation tags of expression nodes: how each evaluates, prints and binds.
#include <fluxion/config/macros.hpp>
#include <fluxion/math/elementary.hpp>

namespace fluxion::op {

// Printing precedences: higher binds tighter.
inline constexpr int prec_or = 1, prec_and = 2, prec_cmp = 3, prec_add = 4, prec_mul = 5,
                     prec_unary = 7, prec_atom = 10;

#define FLUXION_INFIX(NAME, TEXT, PREC, EXPR)                                \
  struct NAME {                                                             \
    static constexpr const char* text = TEXT;                               \
    static constexpr bool infix = true;                                     \
    static constexpr int prec = PREC;                                       \
    template <class T>                                                      \
    FLUXION_HOST_DEVICE static constexpr auto apply(T a, T b) { return EXPR; } \
  };
FLUXION_INFIX(add, "+", prec_add, a + b)
FLUXION_INFIX(sub, "-", prec_add, a - b)
FLUXION_INFIX(mul, "*", prec_mul, a * b)
FLUXION_INFIX(div, "/", prec_mul, a / b)
FLUXION_INFIX(lt, "<", prec_cmp, math::real_part(a) < math::real_part(b))
FLUXION_INFIX(le, "<=", prec_cmp, math::real_part(a) <= math::real_part(b))
FLUXION_INFIX(gt, ">", prec_cmp, math::real_part(a) > math::real_part(b))
FLUXION_INFIX(ge, ">=", prec_cmp, math::real_part(a) >= math::real_part(b))
FLUXION_INFIX(eq, "==", prec_cmp, math::real_part(a) == math::real_part(b))
FLUXION_INFIX(ne, "!=", prec_cmp, math::real_part(a) != math::real_part(b))
FLUXION_INFIX(land, "&&", prec_and, a && b)
FLUXION_INFIX(lor, "||", prec_or, a || b)
#undef FLUXION_INFIX

#define FLUXION_CALL2(NAME, TEXT, EXPR)                                      \
  struct NAME {                                                             \
    static constexpr const char* text = TEXT;                               \
    static constexpr bool infix = false;                                    \
    static constexpr int prec = prec_atom;                                  \
    template <class T>                                                      \
    FLUXION_HOST_DEVICE static auto apply(T a, T b) { return EXPR; }        \
  };
FLUXION_CALL2(pow, "pow", math::pow(a, b))
FLUXION_CALL2(min, "min", math::min(a, b))
FLUXION_CALL2(max, "max", math::max(a, b))
#undef FLUXION_CALL2

// Comparisons and logic yield truth values, the rest numbers.
template <class Op>
inline constexpr bool is_boolean_op = false;
template <> inline constexpr bool is_boolean_op<lt> = true;
template <> inline constexpr bool is_boolean_op<le> = true;
template <> inline constexpr bool is_boolean_op<gt> = true;
template <> inline constexpr bool is_boolean_op<ge> = true;
template <> inline constexpr bool is_boolean_op<eq> = true;
template <> inline constexpr bool is_boolean_op<ne> = true;
template <> inline constexpr bool is_boolean_op<land> = true;
template <> inline constexpr bool is_boolean_op<lor> = true;

#define FLUXION_UNARY(NAME, TEXT, EXPR)                                      \
  struct NAME {                                                             \
    static constexpr const char* text = TEXT;                               \
    template <class T>                                                      \
    FLUXION_HOST_DEVICE static auto apply(T a) { return EXPR; }             \
  };
FLUXION_UNARY(neg, "-", -a)
FLUXION_UNARY(lnot, "!", !a)
FLUXION_UNARY(exp, "exp", math::exp(a))
FLUXION_UNARY(log, "log", math::log(a))
FLUXION_UNARY(sqrt, "sqrt", math::sqrt(a))
FLUXION_UNARY(sin, "sin", math::sin(a))
FLUXION_UNARY(cos, "cos", math::cos(a))
FLUXION_UNARY(tanh, "tanh", math::tanh(a))
FLUXION_UNARY(abs, "abs", math::abs(a))
FLUXION_UNARY(sign, "sign", math::sign(a))
#undef FLUXION_UNARY

// Reductions over an index space: the first element seeds the accumulator,
// so min and max need no infinities. They fold left, with math::min and
// math::max: the earliest of tied elements, NaN if any element is NaN.
#define FLUXION_REDUCTION(NAME, TEXT, EXPR)                                  \
  struct NAME {                                                             \
    static constexpr const char* text = TEXT;                               \
    template <class T>                                                      \
    FLUXION_HOST_DEVICE static T combine(T a, T b) { return EXPR; }         \
  };
FLUXION_REDUCTION(sum, "sum", a + b)
FLUXION_REDUCTION(prod, "prod", a * b)
FLUXION_REDUCTION(minimum, "min", math::min(a, b))
FLUXION_REDUCTION(maximum, "max", math::max(a, b))
#undef FLUXION_REDUCTION

}  // namespace fluxion::op
