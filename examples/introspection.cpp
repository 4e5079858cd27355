// Compile-time introspection with Boost.Hana (fluxion/layout/introspect.hpp):
// Model A's index spaces, blocks and symbols walked with hana::for_each to
// describe the model, bind parameter values given by name (as read from a
// configuration file) and write the CSV header of an observables trajectory;
// a parameter looked up by name at compile time. Host code only. Exits 1 if a
// parameter has no value or a name disagrees with the flat layout.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <fluxion/fluxion.hpp>
#include <fluxion/layout/introspect.hpp>

namespace fx = fluxion;
namespace hana = boost::hana;

constexpr int P = 8, K = 4;
using patch = fx::index<"patch", P>;
using age = fx::index<"age", K, fx::ordered>;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"E", patch, age> E;
constexpr fx::state<"I", patch, age> I;
constexpr fx::state<"R", patch, age> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"gamma"> gam;
constexpr fx::param<"a", age> a;

constexpr auto N = fx::alias<"N">(fx::sum(k, S(p, k) + E(p, k) + I(p, k) + R(p, k)));
constexpr auto lam = fx::alias<"lambda">(beta(p) * fx::sum(q, C(p, q) * fx::sum(k, I(q, k)) / N(q)));
constexpr auto modelA = fx::model(                            //
    fx::states(S, E, I, R), fx::params(beta, C, sigma, gam, a),  //
    fx::d(S(p, k)) = -lam(p) * S(p, k),                        //
    fx::d(E(p, k)) = lam(p) * S(p, k) - sigma * E(p, k),        //
    fx::d(I(p, k)) = sigma * E(p, k) - gam * I(p, k),           //
    fx::d(R(p, k)) = gam * I(p, k),                             //
    fx::transport<age>(a(k), S, E, I, R),                       //
    fx::group<patch>(fx::coupled),                              //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * E(p, k)));
using M = fx::compiled<modelA, double>;
using Info = fx::introspect<M>;

// Looked up by name at compile time; a misspelt name does not compile.
constexpr auto C_info = Info::find<"C">();
constexpr auto I_info = Info::find<"I">();
static_assert(C_info.offset_of(1, 0) == 16);         // beta's 8 values, then row 1 of C
static_assert(I_info.offset_of(3, 2) == 64 + 3 * 4 + 2);  // after S and E (32 each)

int main() {
  int failures = 0;

  // 1. The model described: spaces, then every block and its symbols.
  hana::for_each(Info::spaces, [](auto sp) {
    using Sp = decltype(sp);
    std::printf("space %.*s: %d elements%s\n", int(Sp::name.size()), Sp::name.data(), Sp::extent,
                Sp::ordered ? ", ordered" : "");
  });
  hana::for_each(Info::blocks, [&](auto b) {
    using B = decltype(b);
    std::printf("%.*s block, %zu values\n", int(B::name.size()), B::name.data(), B::size);
    const std::vector<std::string> flat = B::element_names();  // names in flat order
    hana::for_each(B::symbols, [&](auto s) {
      using Sy = decltype(s);
      std::string shape;
      hana::for_each(Sy::spaces,
                     [&](auto sp) { shape += (shape.empty() ? "" : " x ") + std::string(decltype(sp)::name); });
      std::printf("  %-10.*s offset %3zu, %3zu value%s%s%s\n", int(Sy::name.size()), Sy::name.data(), Sy::offset,
                  Sy::size, Sy::size == 1 ? "" : "s", shape.empty() ? "" : " over ", shape.c_str());
      // Every element's name sits at its offset in the block's flat order.
      Sy::for_each_element([&](const std::string& name, std::size_t offset) {
        if (flat.at(offset) != name) {
          std::fprintf(stderr, "element %s at offset %zu, but the block names it %s\n", name.c_str(), offset,
                       flat[offset].c_str());
          ++failures;
        }
      });
    });
  });

  // 2. Parameter values by name, as a configuration file would give them;
  //    every parameter must get one.
  const std::map<std::string, double, std::less<>> config = {
      {"beta", 0.6}, {"C", 0.05}, {"sigma", 0.25}, {"gamma", 0.2}, {"a", 0.01}};
  std::vector<double> prm(M::n_params, std::nan(""));
  hana::for_each(Info::params, [&](auto d) {
    using Pd = decltype(d);
    const auto it = config.find(Pd::name);
    if (it == config.end()) {
      std::fprintf(stderr, "no value for parameter %.*s\n", int(Pd::name.size()), Pd::name.data());
      ++failures;
      return;
    }
    Pd::for_each_element([&](const std::string&, std::size_t offset) { prm[offset] = it->second; });
  });
  for (int i = 0; i < P; ++i) prm[C_info.offset_of(i, i)] = 1.0;  // contacts mostly within a patch
  for (double v : prm)
    if (std::isnan(v)) ++failures;

  // 3. A CSV trajectory of the observables (explicit Euler steps of one day),
  //    its header written from the observables' element names.
  std::string header = "t";
  hana::for_each(Info::observables, [&](auto o) {
    decltype(o)::for_each_element([&](const std::string& name, std::size_t) { header += "," + name; });
  });
  std::puts(header.c_str());
  if (header.rfind("t,incidence[0],incidence[1],", 0) != 0 || header.find("incidence[7]") == std::string::npos) {
    std::fprintf(stderr, "unexpected CSV header %s\n", header.c_str());
    ++failures;
  }
  std::vector<double> x(M::n_states, 0.0), dx(M::n_states), y(M::n_observables);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < K; ++j) {
      x[M::layout::state::offset(S, i, j)] = 1000.0;
      x[I_info.offset_of(i, j)] = i == 0 ? 5.0 : 0.0;  // the same offsets as the layout's
    }
  for (int day = 0; day <= 3; ++day) {
    M{}.observe(double(day), x.data(), prm.data(), y.data());
    std::printf("%d", day);
    for (double v : y) std::printf(",%.6g", v);
    std::printf("\n");
    M{}.rhs(double(day), x.data(), prm.data(), dx.data());
    for (std::size_t j = 0; j < x.size(); ++j) x[j] += dx[j];
  }

  std::printf("%s\n", failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
