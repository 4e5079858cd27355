// Compile-time introspection of a compiled model through Boost.Hana
// (fluxion/layout/introspect.hpp): the blocks, their symbols and the index
// spaces as hana::tuples, checked against names, offsets, shapes and element
// lists written out by hand for a small model, in both layout policies. Most
// checks are static: the descriptors are compile-time constants.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>
#include <fluxion/layout/introspect.hpp>

#include <boost/hana/string.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fx = fluxion;
namespace hana = boost::hana;

namespace {

// X over (g, s), y over g, a scalar z; parameters r over s and a scalar k;
// one observable over g; g an independent group.
using g_sp = fx::index<"g", 2>;
using s_sp = fx::index<"s", 3, fx::ordered>;
constexpr fx::state<"X", g_sp, s_sp> X;
constexpr fx::state<"y", g_sp> y;
constexpr fx::state<"z"> z;
constexpr fx::param<"r", s_sp> r;
constexpr fx::param<"k"> kk;
constexpr fx::ivar<g_sp, 0, "gi"> gi;
constexpr fx::ivar<s_sp, 0, "si"> si;
constexpr auto small = fx::model(                                   //
    fx::states(X, y, z), fx::params(r, kk),                          //
    fx::d(X(gi, si)) = -kk * X(gi, si) + r(si) * y(gi),              //
    fx::d(y(gi)) = -kk * y(gi),                                      //
    fx::d(z) = -z,                                                   //
    fx::group<g_sp>(fx::independent),                                //
    fx::observe<"tot">(gi) = fx::sum(si, X(gi, si)));
using M = fx::compiled<small, double>;
using GM = fx::compiled<small, double, fx::group_major<g_sp>>;
using I = fx::introspect<M>;
using IG = fx::introspect<GM>;

template <class Tuple>
std::vector<std::string> names_of(Tuple t) {
  std::vector<std::string> out;
  hana::for_each(t, [&](auto d) { out.emplace_back(decltype(d)::name); });
  return out;
}
template <class Tuple>
std::vector<std::pair<std::string, std::size_t>> elements_of(Tuple t) {
  std::vector<std::pair<std::string, std::size_t>> out;
  hana::for_each(t, [&](auto d) {
    decltype(d)::for_each_element([&](const std::string& n, std::size_t off) { out.emplace_back(n, off); });
  });
  return out;
}

}  // namespace

TEST_CASE("blocks, symbols and spaces are hana sequences of the declared length", "[layout][introspect]") {
  STATIC_REQUIRE(hana::size(I::blocks) == hana::size_c<3>);
  STATIC_REQUIRE(hana::size(I::states) == hana::size_c<3>);
  STATIC_REQUIRE(hana::size(I::params) == hana::size_c<2>);
  STATIC_REQUIRE(hana::size(I::observables) == hana::size_c<1>);
  STATIC_REQUIRE(hana::size(I::symbols) == hana::size_c<6>);
  STATIC_REQUIRE(hana::size(I::spaces) == hana::size_c<2>);
  STATIC_REQUIRE(hana::size(I::groups) == hana::size_c<1>);
  CHECK(names_of(I::blocks) == std::vector<std::string>{"state", "parameter", "observable"});
  CHECK(names_of(I::states) == std::vector<std::string>{"X", "y", "z"});
  CHECK(names_of(I::params) == std::vector<std::string>{"r", "k"});
  CHECK(names_of(I::observables) == std::vector<std::string>{"tot"});
  CHECK(names_of(I::symbols) == std::vector<std::string>{"X", "y", "z", "r", "k", "tot"});
  CHECK(names_of(I::spaces) == std::vector<std::string>{"g", "s"});
}

TEST_CASE("symbol descriptors carry kind, offset, size, extents and strides", "[layout][introspect]") {
  constexpr auto Xd = I::find<"X">();
  using XD = decltype(Xd);
  STATIC_REQUIRE(XD::kind == "state");
  STATIC_REQUIRE(XD::rank == 2);
  STATIC_REQUIRE(XD::size == 6);
  STATIC_REQUIRE(XD::offset == 0);
  STATIC_REQUIRE(XD::extents == std::array<std::size_t, 2>{2, 3});
  STATIC_REQUIRE(XD::strides == std::array<std::ptrdiff_t, 2>{3, 1});
  STATIC_REQUIRE(Xd.offset_of(1, 2) == 5);
  STATIC_REQUIRE(std::is_same_v<XD::symbol, std::remove_cvref_t<decltype(X)>>);
  STATIC_REQUIRE(std::is_same_v<XD::block, M::layout::state>);
  CHECK(names_of(XD::spaces) == std::vector<std::string>{"g", "s"});

  // y after the 6 values of X, z after the 2 of y.
  STATIC_REQUIRE(I::find<"y">().offset == 6);
  STATIC_REQUIRE(I::find<"y">().strides == std::array<std::ptrdiff_t, 1>{1});
  STATIC_REQUIRE(I::find<"z">().offset == 8);
  STATIC_REQUIRE(I::find<"z">().rank == 0);
  STATIC_REQUIRE(I::find<"z">().offset_of() == 8);
  // Parameters and observables have their own blocks.
  STATIC_REQUIRE(I::find<"r">().kind == "parameter");
  STATIC_REQUIRE(I::find<"k">().offset == 3);
  STATIC_REQUIRE(I::find(BOOST_HANA_STRING("tot")).kind == "observable");
  STATIC_REQUIRE(I::find(BOOST_HANA_STRING("tot")).offset_of(1) == 1);
  STATIC_REQUIRE(I::find<"tot">().hana_name == BOOST_HANA_STRING("tot"));
}

TEST_CASE("index spaces and groups", "[layout][introspect]") {
  constexpr auto g = I::find_space<"g">();
  constexpr auto s = I::find_space<"s">();
  STATIC_REQUIRE(decltype(g)::extent == 2);
  STATIC_REQUIRE(!decltype(g)::ordered);
  STATIC_REQUIRE(decltype(s)::extent == 3);
  STATIC_REQUIRE(decltype(s)::ordered);
  STATIC_REQUIRE(std::is_same_v<decltype(s)::type, s_sp>);
  int groups = 0;
  hana::for_each(I::groups, [&](auto grp) {
    using G = decltype(grp);
    CHECK(G::space.name == "g");
    CHECK(G::independent);
    ++groups;
  });
  CHECK(groups == 1);
}

TEST_CASE("every element by name and offset, written out by hand", "[layout][introspect]") {
  using list = std::vector<std::pair<std::string, std::size_t>>;
  const list symbol_major = {{"X[0][0]", 0}, {"X[0][1]", 1}, {"X[0][2]", 2}, {"X[1][0]", 3}, {"X[1][1]", 4},
                             {"X[1][2]", 5}, {"y[0]", 6},    {"y[1]", 7},    {"z", 8}};
  CHECK(elements_of(I::states) == symbol_major);
  // group_major<g>: each g holds X[g][0..2] then y[g]; z after both runs.
  // Listed symbol by symbol, row-major, each element with its own offset.
  const list group_major = {{"X[0][0]", 0}, {"X[0][1]", 1}, {"X[0][2]", 2}, {"X[1][0]", 4}, {"X[1][1]", 5},
                            {"X[1][2]", 6}, {"y[0]", 3},    {"y[1]", 7},    {"z", 8}};
  CHECK(elements_of(IG::states) == group_major);
  CHECK(elements_of(I::params) == list{{"r[0]", 0}, {"r[1]", 1}, {"r[2]", 2}, {"k", 3}});
  CHECK(elements_of(I::observables) == list{{"tot[0]", 0}, {"tot[1]", 1}});
  STATIC_REQUIRE(IG::find<"y">().offset == 3);
  STATIC_REQUIRE(IG::find<"X">().strides == std::array<std::ptrdiff_t, 2>{4, 1});
  STATIC_REQUIRE(IG::find<"X">().offset_of(1, 2) == 6);
  CHECK(I::find<"X">().element_name(1, 2) == "X[1][2]");
  CHECK(I::find<"k">().element_name() == "k");
  // A block's element names in flat order (group-major interleaved).
  std::vector<std::string> flat;
  hana::for_each(IG::blocks, [&](auto b) {
    if (decltype(b)::name == "state") flat = decltype(b)::element_names();
  });
  CHECK(flat == std::vector<std::string>{"X[0][0]", "X[0][1]", "X[0][2]", "y[0]", "X[1][0]", "X[1][1]", "X[1][2]",
                                         "y[1]", "z"});
}

TEST_CASE("a CSV header and a name binding written with hana::for_each", "[layout][introspect]") {
  // A header of every parameter element, in the order the descriptors give.
  std::string header;
  hana::for_each(I::params, [&](auto prm) {
    decltype(prm)::for_each_element([&](const std::string& n, std::size_t) { header += (header.empty() ? "" : ",") + n; });
  });
  CHECK(header == "r[0],r[1],r[2],k");

  // Values bound by name into the flat parameter vector.
  std::vector<double> p(M::n_params, -1.0);
  const std::vector<std::pair<std::string_view, double>> values = {{"r", 0.5}, {"k", 2.0}};
  hana::for_each(I::params, [&](auto prm) {
    using P = decltype(prm);
    for (const auto& [name, v] : values)
      if (name == P::name) P::for_each_element([&](const std::string&, std::size_t off) { p[off] = v; });
  });
  CHECK(p == std::vector<double>{0.5, 0.5, 0.5, 2.0});

  // A view of a symbol through its descriptor reads the same flat values.
  std::vector<double> x(M::n_states);
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = double(j) + 0.25;
  const auto Xv = decltype(I::find<"X">())::view(x.data());
  CHECK(Xv(1, 2) == 5.25);
  const auto Xg = decltype(IG::find<"X">())::view(x.data());
  CHECK(Xg(1, 2) == 6.25);
}
