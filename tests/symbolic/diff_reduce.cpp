// Derivatives of indexed expressions and of the reductions sum, prod, min and
// max with respect to one element S[j,m] (or a[m]) of a shaped symbol. The
// derivative carries Kronecker deltas of index variables; it is evaluated for
// every binding of p (and k), j and m, and compared with the derivative
// written by hand as loops over the same table, and with a central finite
// difference that perturbs only that element; in double and in float.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <type_traits>

namespace fx = fluxion;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::param<"a", age> a;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> kk;
constexpr fx::ivar<age, 1, "l"> ll;

using Sd = std::remove_cvref_t<decltype(S)>;
using Ad = std::remove_cvref_t<decltype(a)>;
using P = std::remove_cvref_t<decltype(p)>;
using KK = std::remove_cvref_t<decltype(kk)>;
using J = fx::ivar<patch, 7, "j">;
using M = fx::ivar<age, 7, "m">;
using WS = fx::ref<Sd, J, M>;  // d / d S[j,m]
using WA = fx::ref<Ad, M>;     // d / d a[m]

// Distinct values, so that every min and max below is attained once.
constexpr double S0[3][4] = {{0.9, 0.3, 1.7, 0.6}, {1.2, 2.3, 0.4, 0.8}, {0.5, 1.1, 0.7, 1.9}};
constexpr double A0[4] = {0.5, 1.4, 0.8, 1.2};
constexpr double C0[3][3] = {{0.6, 0.2, 0.1}, {0.3, 0.9, 0.4}, {0.2, 0.5, 0.7}};

template <class T>
struct ctx {
  using scalar = T;
  T Sv[3][4]{};
  T av[4]{};
  T Cv[3][3]{};
  T time() const { return T(0); }
  template <class Sym, class... I>
  T read(I... i) const {
    constexpr std::string_view n = fluxion::text<Sym::name>;
    const int idx[] = {int(i)...};
    if constexpr (n == "S") {
      REQUIRE((idx[0] >= 0 && idx[0] < 3 && idx[1] >= 0 && idx[1] < 4));
      return Sv[idx[0]][idx[1]];
    } else if constexpr (n == "a") {
      REQUIRE((idx[0] >= 0 && idx[0] < 4));
      return av[idx[0]];
    } else {
      static_assert(n == "C");
      return Cv[idx[0]][idx[1]];
    }
  }
};

template <class T>
ctx<T> table() {
  ctx<T> c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) c.Sv[i][j] = T(S0[i][j]);
  for (int j = 0; j < 4; ++j) c.av[j] = T(A0[j]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c.Cv[i][j] = T(C0[i][j]);
  return c;
}

template <class T>
struct tol;
template <>
struct tol<double> {
  static constexpr double hand = 1e-12, fd = 1e-7, fd_abs = 1e-9, step = 1e-6;
};
template <>
struct tol<float> {
  static constexpr double hand = 1e-5, fd = 2e-3, fd_abs = 2e-4, step = 0x1p-7;
};

// The table as doubles, for hand formulas.
struct tables {
  double S[3][4];
  double a[4];
  double C[3][3];
};

// E has free variable p only (FreeK = false) or p and k (FreeK = true).
// W is WS (d/dS[j,m]) or WA (d/da[m]). hand(t, i, kidx, j, m) is the
// derivative at p = i, k = kidx, with respect to S[j][m] or a[m].
template <class T, auto E, class W, bool FreeK, class Hand>
void check_indexed(Hand hand, ctx<T> base = table<T>()) {
  using F = fx::lowered<E>;
  using D = fx::derivative_t<F, W>;
  constexpr bool wrt_S = std::is_same_v<W, WS>;
  const tables t = [&] {
    tables h{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) h.S[i][j] = double(base.Sv[i][j]);
    for (int j = 0; j < 4; ++j) h.a[j] = double(base.av[j]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) h.C[i][j] = double(base.Cv[i][j]);
    return h;
  }();
  const int nk = FreeK ? 4 : 1;
  const int nj = wrt_S ? 3 : 1;
  for (int i = 0; i < 3; ++i)
    for (int kidx = 0; kidx < nk; ++kidx)
      for (int j = 0; j < nj; ++j)
        for (int m = 0; m < 4; ++m) {
          INFO("p = " << i << ", k = " << kidx << ", j = " << j << ", m = " << m
                      << "; derivative: " << fx::to_string<D>());
          const double expected = hand(t, i, kidx, j, m);
          T dv;
          if constexpr (FreeK) {
            dv = D::eval(base, fx::env<P, KK, J, M>{{i}, {kidx}, {j}, {m}});
          } else {
            dv = D::eval(base, fx::env<P, J, M>{{i}, {j}, {m}});
          }
          auto eval_f = [&](const ctx<T>& c) -> double {
            if constexpr (FreeK) {
              return F::eval(c, fx::env<P, KK>{{i}, {kidx}});
            } else {
              return F::eval(c, fx::env<P>{{i}});
            }
          };
          auto cp = base, cm = base;
          T& vp = wrt_S ? cp.Sv[j][m] : cp.av[m];
          T& vm = wrt_S ? cm.Sv[j][m] : cm.av[m];
          const T v = vp;
          const T h = T(tol<T>::step * std::max(1.0, std::fabs(double(v))));
          vp = v + h;
          vm = v - h;
          const double fd = (eval_f(cp) - eval_f(cm)) / double(vp - vm);
          CHECK_THAT(double(dv), WithinRel(expected, tol<T>::hand) || WithinAbs(expected, tol<T>::hand * 0.1));
          CHECK_THAT(double(dv), WithinRel(fd, tol<T>::fd) || WithinAbs(fd, tol<T>::fd_abs));
        }
}

constexpr double delta(int a_, int b_) { return a_ == b_ ? 1.0 : 0.0; }

}  // namespace

TEMPLATE_TEST_CASE("d of indexed references", "[symbolic][diff][numeric][indexed]", double, float) {
  using T = TestType;
  check_indexed<T, S(p, kk), WS, true>([](const tables&, int i, int kidx, int j, int m) {
    return delta(i, j) * delta(kidx, m);
  });
  check_indexed<T, a(kk) * S(p, kk) * S(p, kk), WS, true>([](const tables& t, int i, int kidx, int j, int m) {
    return delta(i, j) * delta(kidx, m) * 2 * t.a[kidx] * t.S[i][kidx];
  });
  check_indexed<T, a(kk) * S(p, kk), WA, true>([](const tables& t, int i, int kidx, int, int m) {
    return delta(kidx, m) * t.S[i][kidx];
  });
  // Shifted and fixed indices: S[p, k-1] + S[2, k].
  check_indexed<T, S(p, kk - 1) + 3 * S(2, kk), WS, true>([](const tables&, int i, int kidx, int j, int m) {
    return delta(i, j) * delta(kidx - 1, m) + 3 * delta(2, j) * delta(kidx, m);
  });
  // A matrix and a second variable over patch: sum_q C[p,q] S[q,k].
  check_indexed<T, fx::sum(q, C(p, q) * S(q, kk)), WS, true>([](const tables& t, int i, int kidx, int j, int m) {
    return t.C[i][j] * delta(kidx, m);
  });
}

TEMPLATE_TEST_CASE("d sum", "[symbolic][diff][numeric][indexed]", double, float) {
  using T = TestType;
  check_indexed<T, fx::sum(kk, S(p, kk)), WS, false>([](const tables&, int i, int, int j, int) {
    return delta(i, j);
  });
  check_indexed<T, fx::sum(kk, a(kk) * fx::pow(S(p, kk), 2)), WS, false>(
      [](const tables& t, int i, int, int j, int m) { return delta(i, j) * 2 * t.a[m] * t.S[i][m]; });
  check_indexed<T, fx::sum(kk, a(kk) * fx::pow(S(p, kk), 2)), WA, false>(
      [](const tables& t, int i, int, int, int m) { return t.S[i][m] * t.S[i][m]; });
  // Chain rule through a reduction: exp(-sum_k S[p,k]).
  check_indexed<T, fx::exp(-fx::sum(kk, S(p, kk))), WS, false>([](const tables& t, int i, int, int j, int) {
    double s = 0;
    for (int l = 0; l < 4; ++l) s += t.S[i][l];
    return -delta(i, j) * std::exp(-s);
  });
  // A share: S[p,k] / sum_l S[p,l].
  check_indexed<T, S(p, kk) / fx::sum(ll, S(p, ll)), WS, true>([](const tables& t, int i, int kidx, int j, int m) {
    double s = 0;
    for (int l = 0; l < 4; ++l) s += t.S[i][l];
    return delta(i, j) * (delta(kidx, m) / s - t.S[i][kidx] / (s * s));
  });
  // Nested sums: sum_q sum_k S[q,k] S[p,k] -> S[p,m] + delta(p,j) sum_q S[q,m].
  check_indexed<T, fx::sum(q, fx::sum(kk, S(q, kk) * S(p, kk))), WS, false>(
      [](const tables& t, int i, int, int j, int m) {
        double col = 0;
        for (int r = 0; r < 3; ++r) col += t.S[r][m];
        return t.S[i][m] + delta(i, j) * col;
      });
  // A shifted read inside the sum: sum_k a[k] S[p,k-1] -> delta(p,j) a[m+1].
  check_indexed<T, fx::sum(kk, a(kk) * S(p, kk - 1)), WS, false>([](const tables& t, int i, int, int j, int m) {
    return m + 1 < 4 ? delta(i, j) * t.a[m + 1] : 0.0;
  });
}

TEMPLATE_TEST_CASE("d prod", "[symbolic][diff][numeric][indexed]", double, float) {
  using T = TestType;
  auto others = [](const double* row, int m) {
    double pr = 1;
    for (int l = 0; l < 4; ++l)
      if (l != m) pr *= row[l];
    return pr;
  };
  check_indexed<T, fx::prod(kk, S(p, kk)), WS, false>([&](const tables& t, int i, int, int j, int m) {
    return delta(i, j) * others(t.S[i], m);
  });
  check_indexed<T, fx::prod(kk, S(p, kk) + a(kk)), WA, false>([](const tables& t, int i, int, int, int m) {
    double pr = 1;
    for (int l = 0; l < 4; ++l)
      if (l != m) pr *= t.S[i][l] + t.a[l];
    return pr;
  });
  // Exact where an element is zero: d prod / d S[1][2] = product of the others.
  auto c = table<T>();
  c.Sv[1][2] = T(0);
  check_indexed<T, fx::prod(kk, S(p, kk)), WS, false>(
      [&](const tables& t, int i, int, int j, int m) { return delta(i, j) * others(t.S[i], m); }, c);
}

TEMPLATE_TEST_CASE("d min and d max", "[symbolic][diff][numeric][indexed]", double, float) {
  using T = TestType;
  // The derivative is that of the attained element.
  auto argmin_Sa = [](const tables& t, int i) {  // argmin_k S[i][k] a[k]
    int best = 0;
    for (int l = 1; l < 4; ++l)
      if (t.S[i][l] * t.a[l] < t.S[i][best] * t.a[best]) best = l;
    return best;
  };
  auto argmax_S_minus_a = [](const tables& t, int i) {  // argmax_k S[i][k] - a[k]
    int best = 0;
    for (int l = 1; l < 4; ++l)
      if (t.S[i][l] - t.a[l] > t.S[i][best] - t.a[best]) best = l;
    return best;
  };
  // min_k S[p,k] a[k]
  check_indexed<T, fx::min(kk, S(p, kk) * a(kk)), WS, false>([&](const tables& t, int i, int, int j, int m) {
    return delta(i, j) * delta(argmin_Sa(t, i), m) * t.a[m];
  });
  check_indexed<T, fx::min(kk, S(p, kk) * a(kk)), WA, false>([&](const tables& t, int i, int, int, int m) {
    return delta(argmin_Sa(t, i), m) * t.S[i][m];
  });
  // max_k (S[p,k] - a[k])
  check_indexed<T, fx::max(kk, S(p, kk) - a(kk)), WS, false>([&](const tables& t, int i, int, int j, int m) {
    return delta(i, j) * delta(argmax_S_minus_a(t, i), m);
  });
  check_indexed<T, fx::max(kk, S(p, kk) - a(kk)), WA, false>([&](const tables& t, int i, int, int, int m) {
    return -delta(argmax_S_minus_a(t, i), m);
  });
  // min and max of S[p,k] itself, and inside a chain: 2 * max_k S[p,k]^2.
  check_indexed<T, fx::min(kk, S(p, kk)), WS, false>([&](const tables& t, int i, int, int j, int m) {
    int best = 0;
    for (int l = 1; l < 4; ++l)
      if (t.S[i][l] < t.S[i][best]) best = l;
    return delta(i, j) * delta(best, m);
  });
  check_indexed<T, 2 * fx::pow(fx::max(kk, S(p, kk)), 2), WS, false>([&](const tables& t, int i, int, int j, int m) {
    int best = 0;
    for (int l = 1; l < 4; ++l)
      if (t.S[i][l] > t.S[i][best]) best = l;
    return 4 * t.S[i][best] * delta(i, j) * delta(best, m);
  });
}

namespace {
// Stage nodes built directly: A one stage back (zero at the first stage), and
// A only where a next stage exists (zero at the last).
constexpr auto prev_inner = a(kk) * S(p, kk) * S(p, kk);
constexpr auto prev = fx::at_previous<KK, std::remove_cvref_t<decltype(prev_inner)>>{prev_inner};
constexpr auto next_inner = a(kk) * S(p, kk);
constexpr auto next = fx::if_next<KK, std::remove_cvref_t<decltype(next_inner)>>{next_inner};
}  // namespace

TEMPLATE_TEST_CASE("d of stage nodes", "[symbolic][diff][numeric][indexed]", double, float) {
  using T = TestType;
  CHECK(fx::to_string<fx::derivative_t<fx::lowered<next>, WS>>() == "unless_last(k, a[k] * delta(p, j) * delta(k, m))");
  check_indexed<T, prev, WS, true>([](const tables& t, int i, int kidx, int j, int m) {
    return kidx == 0 ? 0.0 : delta(i, j) * delta(kidx - 1, m) * 2 * t.a[kidx - 1] * t.S[i][kidx - 1];
  });
  check_indexed<T, prev, WA, true>([](const tables& t, int i, int kidx, int, int m) {
    return kidx == 0 ? 0.0 : delta(kidx - 1, m) * t.S[i][kidx - 1] * t.S[i][kidx - 1];
  });
  check_indexed<T, next, WS, true>([](const tables& t, int i, int kidx, int j, int m) {
    return kidx == 3 ? 0.0 : delta(i, j) * delta(kidx, m) * t.a[kidx];
  });
}
