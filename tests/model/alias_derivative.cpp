// Differentiating an equation that reads aliases: the chain rule goes through
// the alias bodies (and through an alias read at another element). Checked as
// text for a flat model, and numerically for an indexed one against the
// derivative written by hand and a central finite difference of the compiled
// right-hand side.
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

// --- flat ------------------------------------------------------------------------------
constexpr fx::state<"S"> S;
constexpr fx::state<"I"> I;
constexpr fx::state<"R"> R;
constexpr fx::param<"beta"> beta;
constexpr fx::param<"gamma"> gamma_;
constexpr auto N = fx::alias<"N">(S + I + R);
constexpr auto force = fx::alias<"force">(beta * I / N);
constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta, gamma_),  //
                               fx::d(S) = -force * S,                          //
                               fx::d(I) = force * S - gamma_ * I,              //
                               fx::d(R) = gamma_ * I);

// --- indexed ------------------------------------------------------------------------------
using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4>;
constexpr fx::state<"Sx", patch, age> Sx;
constexpr fx::state<"Ix", patch, age> Ix;
constexpr fx::param<"b", patch> b;
constexpr fx::param<"Cm", patch, patch> Cm;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> kk;
constexpr fx::ivar<age, 1, "l"> ll;
// The alias bodies reduce over k, the variable the equations bind too (as in
// DESIGN.md): the chain rule inlines the bodies inside the equation's own k,
// where the reduction's k shadows it.
constexpr auto Np = fx::alias<"Np">(fx::sum(kk, Sx(p, kk) + Ix(p, kk)));
constexpr auto lam = fx::alias<"lambda">(b(p) * fx::sum(q, Cm(p, q) * fx::sum(kk, Ix(q, kk)) / Np(q)));
constexpr auto si = fx::model(fx::states(Sx, Ix), fx::params(b, Cm),  //
                              fx::d(Sx(p, kk)) = -lam(p) * Sx(p, kk),  //
                              fx::d(Ix(p, kk)) = lam(p) * Sx(p, kk));

double Sv[3][4], Iv[3][4], bv[3], Cv[3][3];

// Reads states and parameters from the tables above; an alias element is
// its body evaluated with the alias's variables bound to the indices.
struct ctx {
  using scalar = double;
  double time() const { return 0; }
  template <class Sym, class... Ix_>
  double read(Ix_... i) const {
    if constexpr (fx::is_alias<Sym>) {
      return alias_value<Sym>(typename Sym::vars{}, i...);
    } else {
      constexpr std::string_view n = fluxion::text<Sym::name>;
      const int idx[] = {int(i)...};
      if constexpr (n == "Sx") return Sv[idx[0]][idx[1]];
      else if constexpr (n == "Ix") return Iv[idx[0]][idx[1]];
      else if constexpr (n == "b") return bv[idx[0]];
      else return Cv[idx[0]][idx[1]];
    }
  }
  template <class A, class... V, class... Ix_>
  double alias_value(fx::detail::type_list<V...>, Ix_... i) const {
    return fx::symbol_expansion<A>::body::eval(*this, fx::env<V...>{{int(i)}...});
  }
};

}  // namespace

TEST_CASE("the chain rule goes through flat aliases", "[model][alias][diff]") {
  using M = fx::compiled<sir, double>;
  using EqI = fx::detail::at_t<M::traits::state_equations, 1>;
  using WS = fx::ref<std::remove_cvref_t<decltype(S)>>;
  using WR = fx::ref<std::remove_cvref_t<decltype(R)>>;
  // d(force S)/dS = force + S d(beta I / N)/dS = force - beta I / N^2 S
  CHECK(fx::to_string<fx::derivative_t<typename EqI::rhs, WS>>() == "force - beta * I / pow(N, 2) * S");
  // d(force S - gamma I)/dR = -(beta I / N^2) S
  CHECK(fx::to_string<fx::derivative_t<typename EqI::rhs, WR>>() == "-(beta * I / pow(N, 2) * S)");
}

TEST_CASE("the chain rule goes through indexed aliases read at other elements", "[model][alias][diff]") {
  using M = fx::compiled<si, double>;
  using EqS = fx::detail::at_t<M::traits::state_equations, 0>;
  using J = fx::ivar<patch, 7, "j">;
  using Mv = fx::ivar<age, 7, "m">;
  using W = fx::ref<std::remove_cvref_t<decltype(Ix)>, J, Mv>;
  using D = fx::derivative_t<typename EqS::rhs, W>;
  using P = std::remove_cvref_t<decltype(p)>;
  using KK = std::remove_cvref_t<decltype(kk)>;

  double xs[24], ps[12];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      Sv[i][j] = 4.0 + i + 0.25 * j;
      Iv[i][j] = 0.5 + 0.2 * i + 0.1 * j;
      xs[i * 4 + j] = Sv[i][j];
      xs[12 + i * 4 + j] = Iv[i][j];
    }
    bv[i] = 0.3 + 0.05 * i;
    ps[i] = bv[i];
    for (int r = 0; r < 3; ++r) {
      Cv[i][r] = i == r ? 0.9 : 0.1 + 0.05 * (i + r);
      ps[3 + 3 * i + r] = Cv[i][r];
    }
  }
  double Nv[3], It[3];
  for (int i = 0; i < 3; ++i) {
    Nv[i] = It[i] = 0;
    for (int j = 0; j < 4; ++j) {
      Nv[i] += Sv[i][j] + Iv[i][j];
      It[i] += Iv[i][j];
    }
  }

  for (int i = 0; i < 3; ++i)
    for (int kidx = 0; kidx < 4; ++kidx)
      for (int j = 0; j < 3; ++j)
        for (int m = 0; m < 4; ++m) {
          INFO("p = " << i << ", k = " << kidx << ", j = " << j << ", m = " << m);
          // d(-lambda[p] S[p,k]) / d I[j,m] = -S[p,k] b[p] C[p,j] (1/N[j] - Itot[j]/N[j]^2)
          const double hand = -Sv[i][kidx] * bv[i] * Cv[i][j] * (1 / Nv[j] - It[j] / (Nv[j] * Nv[j]));
          const double dv = D::eval(ctx{}, fx::env<P, KK, J, Mv>{{i}, {kidx}, {j}, {m}});
          CHECK_THAT(dv, WithinRel(hand, 1e-12) || WithinAbs(hand, 1e-15));
          // Central difference of the compiled right-hand side.
          double xp[24], xm[24], dxp[24], dxm[24];
          std::copy(xs, xs + 24, xp);
          std::copy(xs, xs + 24, xm);
          const double h = 1e-6;
          xp[12 + j * 4 + m] += h;
          xm[12 + j * 4 + m] -= h;
          M{}.rhs(0.0, xp, ps, dxp);
          M{}.rhs(0.0, xm, ps, dxm);
          const double fd = (dxp[i * 4 + kidx] - dxm[i * 4 + kidx]) / (xp[12 + j * 4 + m] - xm[12 + j * 4 + m]);
          CHECK_THAT(dv, WithinRel(fd, 1e-7) || WithinAbs(fd, 1e-10));
        }
}
