// The layout as a table and as JSON. The table is checked line by line
// against text written by hand; the JSON is parsed by a small strict parser
// written here (so that well-formedness is checked independently of the
// library), its values are compared with hand-computed numbers, and a few
// exact substrings are checked. Every element's name and flat offset (the
// blocks' "elements", fx::element_names) is checked against lists written out
// by hand for a small model, symbol- and group-major, and Python's json
// module reads the document.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace fx = fluxion;

namespace {

using patch = fx::index<"patch", 3>;
using age = fx::index<"age", 4, fx::ordered>;
constexpr fx::state<"S", patch, age> S;
constexpr fx::state<"I", patch, age> I;
constexpr fx::state<"R", patch> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"sigma"> sigma;
constexpr fx::param<"a", age> a;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr fx::ivar<age, 0, "k"> k;
constexpr auto indexed = fx::model(                                          //
    fx::states(S, I, R), fx::params(beta, C, sigma, a),                      //
    fx::d(S(p, k)) = -beta(p) * S(p, k) * fx::sum(q, C(p, q) * I(q, k)),     //
    fx::d(I(p, k)) = beta(p) * S(p, k) * fx::sum(q, C(p, q) * I(q, k)) - sigma * I(p, k),
    fx::d(R(p)) = sigma * fx::sum(k, a(k) * I(p, k)),                        //
    fx::observe<"incidence">(p) = fx::sum(k, sigma * I(p, k)),               //
    fx::observe<"total">() = fx::sum(p, R(p)),                               //
    fx::observe<"by_age">(p, k) = S(p, k) + I(p, k));
using M = fx::compiled<indexed, double>;

// A state with a long (22-character) name.
constexpr fx::state<"a_very_long_state_name"> longname;
constexpr auto with_long_name = fx::model(fx::states(longname), fx::d(longname) = -longname);

// A small model whose every element name and offset is written out by hand
// below: X over (g, s), y over g, a scalar z; parameters r over s and a
// scalar k; one observable over g.
using g_sp = fx::index<"g", 2>;
using s_sp = fx::index<"s", 3>;
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
    fx::observe<"tot">(gi) = fx::sum(si, X(gi, si)));
using Small = fx::compiled<small, double>;
using SmallGM = fx::compiled<small, double, fx::group_major<g_sp>>;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// --- a strict JSON parser (RFC 8259 subset: no \u escapes needed here) -----------------
struct json {
  enum kind_t { null_k, bool_k, number_k, string_k, array_k, object_k } kind = null_k;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<json> items;
  std::vector<std::pair<std::string, json>> members;

  const json& operator[](std::string_view key) const {
    for (const auto& [k_, v] : members)
      if (k_ == key) return v;
    FAIL("no member " << key);
    return *this;
  }
  const json& operator[](std::size_t i) const {
    REQUIRE(i < items.size());
    return items[i];
  }
};

struct parser {
  std::string_view s;
  std::size_t i = 0;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) throw std::runtime_error(std::string("expected '") + c + "' at " + std::to_string(i));
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i >= s.size()) throw std::runtime_error("unterminated string");
      const char c = s[i++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) throw std::runtime_error("control character in string");
      if (c == '\\') {
        if (i >= s.size()) throw std::runtime_error("bad escape");
        const char e = s[i++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          default: throw std::runtime_error("unsupported escape");
        }
      } else {
        out += c;
      }
    }
    return out;
  }
  json value() {
    ws();
    if (i >= s.size()) throw std::runtime_error("unexpected end");
    json v;
    const char c = s[i];
    if (c == '{') {
      ++i;
      v.kind = json::object_k;
      if (eat('}')) return v;
      do {
        std::string key = str();
        expect(':');
        for (const auto& m : v.members)
          if (m.first == key) throw std::runtime_error("duplicate key " + key);
        v.members.emplace_back(std::move(key), value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i;
      v.kind = json::array_k;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = json::string_k;
      v.text = str();
    } else if (s.substr(i, 4) == "true" || s.substr(i, 5) == "false" || s.substr(i, 4) == "null") {
      if (s.substr(i, 4) == "null") {
        i += 4;
      } else {
        v.kind = json::bool_k;
        v.boolean = s[i] == 't';
        i += v.boolean ? 4 : 5;
      }
    } else {
      // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
      const std::size_t start = i;
      if (s[i] == '-') ++i;
      if (i < s.size() && s[i] == '0') {
        ++i;
      } else if (i < s.size() && s[i] >= '1' && s[i] <= '9') {
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      } else {
        throw std::runtime_error("bad value at " + std::to_string(start));
      }
      if (i < s.size() && s[i] == '.') {
        ++i;
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) throw std::runtime_error("bad fraction");
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) throw std::runtime_error("bad exponent");
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      v.kind = json::number_k;
      v.number = std::stod(std::string(s.substr(start, i - start)));
    }
    return v;
  }
  json document() {
    json v = value();
    ws();
    if (i != s.size()) throw std::runtime_error("trailing characters at " + std::to_string(i));
    return v;
  }
};

json parse(std::string_view text) { return parser{text}.document(); }

void check_symbol(const json& e, std::string_view name, std::string_view kind, double offset, double size,
                  std::vector<double> shape, std::vector<double> strides, std::vector<std::string> spaces) {
  INFO("symbol " << name);
  REQUIRE(e.kind == json::object_k);
  CHECK(e["name"].text == name);
  CHECK(e["kind"].text == kind);
  CHECK(e["offset"].number == offset);
  CHECK(e["size"].number == size);
  REQUIRE(e["shape"].items.size() == shape.size());
  REQUIRE(e["strides"].items.size() == strides.size());
  REQUIRE(e["spaces"].items.size() == spaces.size());
  for (std::size_t r = 0; r < shape.size(); ++r) {
    CHECK(e["shape"][r].number == shape[r]);
    CHECK(e["strides"][r].number == strides[r]);
    CHECK(e["spaces"][r].text == spaces[r]);
  }
}

}  // namespace

TEST_CASE("the self-made JSON parser rejects malformed text", "[layout][describe]") {
  CHECK_NOTHROW(parse(R"({"a": [1, 2.5, -3e2, "x", true, null, {}], "b": {}})"));
  CHECK_THROWS(parse(R"({"a": 1,})"));
  CHECK_THROWS(parse(R"({"a": [1 2]})"));
  CHECK_THROWS(parse(R"({"a": 01})"));
  CHECK_THROWS(parse(R"({"a": 1} x)"));
  CHECK_THROWS(parse(R"({"a": "b)"));
  CHECK_THROWS(parse(R"({"a": 1, "a": 2})"));
  CHECK_THROWS(parse(R"({a: 1})"));
}

TEST_CASE("layout table lines", "[layout][describe]") {
  const auto t = lines(fx::layout_table<M::layout>());
  const std::vector<std::string> expected = {
      "block       symbol        offset  size    shape                     strides",
      "state       S             0       12      [patch=3, age=4]          [4, 1]",
      "state       I             12      12      [patch=3, age=4]          [4, 1]",
      "state       R             24      3       [patch=3]                 [1]",
      "parameter   beta          0       3       [patch=3]                 [1]",
      "parameter   C             3       9       [patch=3, patch=3]        [3, 1]",
      "parameter   sigma         12      1       scalar                    []",
      "parameter   a             13      4       [age=4]                   [1]",
      "observable  incidence     0       3       [patch=3]                 [1]",
      "observable  total         3       1       scalar                    []",
      "observable  by_age        4       12      [patch=3, age=4]          [4, 1]",
  };
  REQUIRE(t.size() == expected.size());
  for (std::size_t n = 0; n < t.size(); ++n) CHECK(t[n] == expected[n]);
}

TEST_CASE("layout table of the group-major policy", "[layout][describe]") {
  using G = fx::compiled<indexed, double, fx::group_major<patch>>;
  const auto t = lines(fx::layout_table<G::layout>());
  REQUIRE(t.size() == 11);
  // Per patch: S (4) + I (4) + R (1) = 9 scalars.
  CHECK(t[1] == "state       S             0       12      [patch=3, age=4]          [9, 1]");
  CHECK(t[2] == "state       I             4       12      [patch=3, age=4]          [9, 1]");
  CHECK(t[3] == "state       R             8       3       [patch=3]                 [9]");
  CHECK(t[5] == "parameter   C             3       9       [patch=3, patch=3]        [3, 1]");
}

// Regression (fixed): a name of 14 characters or more fills its
// column and runs into the offset with no separator
TEST_CASE("long names stay separated from the offset column", "[layout][describe]") {
  using L = fx::compiled<with_long_name, double>::layout;
  const auto t = lines(fx::layout_table<L>());
  REQUIRE(t.size() == 2);
  CHECK(t[1].find("a_very_long_state_name 0") != std::string::npos);
}

TEST_CASE("layout JSON is well-formed and carries the layout", "[layout][describe]") {
  const std::string text = fx::layout_json<M::layout>();
  json doc;
  REQUIRE_NOTHROW(doc = parse(text));
  REQUIRE(doc.kind == json::object_k);
  CHECK(doc["fluxion"].text == fx::version_string);

  const json& st = doc["state"];
  CHECK(st["size"].number == 27);
  REQUIRE(st["symbols"].items.size() == 3);
  check_symbol(st["symbols"][0], "S", "state", 0, 12, {3, 4}, {4, 1}, {"patch", "age"});
  check_symbol(st["symbols"][1], "I", "state", 12, 12, {3, 4}, {4, 1}, {"patch", "age"});
  check_symbol(st["symbols"][2], "R", "state", 24, 3, {3}, {1}, {"patch"});

  const json& pa = doc["parameter"];
  CHECK(pa["size"].number == 17);
  REQUIRE(pa["symbols"].items.size() == 4);
  check_symbol(pa["symbols"][0], "beta", "parameter", 0, 3, {3}, {1}, {"patch"});
  check_symbol(pa["symbols"][1], "C", "parameter", 3, 9, {3, 3}, {3, 1}, {"patch", "patch"});
  check_symbol(pa["symbols"][2], "sigma", "parameter", 12, 1, {}, {}, {});
  check_symbol(pa["symbols"][3], "a", "parameter", 13, 4, {4}, {1}, {"age"});

  const json& ob = doc["observable"];
  CHECK(ob["size"].number == 16);
  REQUIRE(ob["symbols"].items.size() == 3);
  check_symbol(ob["symbols"][0], "incidence", "observable", 0, 3, {3}, {1}, {"patch"});
  check_symbol(ob["symbols"][1], "total", "observable", 3, 1, {}, {}, {});
  check_symbol(ob["symbols"][2], "by_age", "observable", 4, 12, {3, 4}, {4, 1}, {"patch", "age"});
}

TEST_CASE("layout JSON exact substrings", "[layout][describe]") {
  const std::string text = fx::layout_json<M::layout>();
  CHECK(text.find("\"name\": \"S\", \"kind\": \"state\", \"offset\": 0") != std::string::npos);
  CHECK(text.find("{\"name\": \"I\", \"kind\": \"state\", \"offset\": 12, \"size\": 12, \"shape\": [3, 4]") !=
        std::string::npos);
  CHECK(text.find("\"name\": \"C\", \"kind\": \"parameter\", \"offset\": 3, \"size\": 9") != std::string::npos);
  CHECK(text.find("\"spaces\": [\"patch\", \"patch\"]") != std::string::npos);
  CHECK(text.find("\"name\": \"sigma\", \"kind\": \"parameter\", \"offset\": 12, \"size\": 1, \"shape\": []") !=
        std::string::npos);
  CHECK(text.find("\"name\": \"by_age\", \"kind\": \"observable\", \"offset\": 4") != std::string::npos);
  CHECK(text.find("\"state\": {\"size\": 27, \"symbols\": [") != std::string::npos);
  CHECK(text.find("\"observable\": {\"size\": 16") != std::string::npos);
  CHECK(text.front() == '{');
  CHECK(text.back() == '}');
}

TEST_CASE("layout JSON of a model without parameters or observables", "[layout][describe]") {
  using L = fx::compiled<with_long_name, double>::layout;
  json doc;
  REQUIRE_NOTHROW(doc = parse(fx::layout_json<L>()));
  CHECK(doc["parameter"]["size"].number == 0);
  CHECK(doc["parameter"]["symbols"].items.empty());
  CHECK(doc["observable"]["symbols"].items.empty());
  check_symbol(doc["state"]["symbols"][0], "a_very_long_state_name", "state", 0, 1, {}, {}, {});
}

// --- every element by name ------------------------------------------------------

namespace {
using name_offsets = std::vector<std::pair<std::string, double>>;

// The block's "elements" as (name, offset) pairs, in the order listed.
name_offsets elements_of(const json& block) {
  name_offsets out;
  for (const auto& e : block["elements"].items) {
    REQUIRE(e.kind == json::object_k);
    REQUIRE(e.members.size() == 2);
    out.emplace_back(e["name"].text, e["offset"].number);
  }
  return out;
}
}  // namespace

TEST_CASE("element names of a small model, written out by hand", "[layout][describe][elements]") {
  // Symbol-major: X row-major (s fastest), then y, then z.
  const name_offsets states = {{"X[0][0]", 0}, {"X[0][1]", 1}, {"X[0][2]", 2}, {"X[1][0]", 3}, {"X[1][1]", 4},
                               {"X[1][2]", 5}, {"y[0]", 6},    {"y[1]", 7},    {"z", 8}};
  const name_offsets params = {{"r[0]", 0}, {"r[1]", 1}, {"r[2]", 2}, {"k", 3}};
  const name_offsets observables = {{"tot[0]", 0}, {"tot[1]", 1}};

  json doc;
  REQUIRE_NOTHROW(doc = parse(fx::layout_json<Small::layout>()));
  CHECK(elements_of(doc["state"]) == states);
  CHECK(elements_of(doc["parameter"]) == params);
  CHECK(elements_of(doc["observable"]) == observables);

  const std::vector<std::string> state_names = {"X[0][0]", "X[0][1]", "X[0][2]", "X[1][0]", "X[1][1]",
                                                "X[1][2]", "y[0]",    "y[1]",    "z"};
  CHECK(fx::element_names<Small::layout::state>() == state_names);
  CHECK(fx::element_names<Small::layout::param>() == std::vector<std::string>{"r[0]", "r[1]", "r[2]", "k"});
  CHECK(fx::element_names<Small::layout::observable>() == std::vector<std::string>{"tot[0]", "tot[1]"});
}

TEST_CASE("element names of the group-major layout, written out by hand", "[layout][describe][elements]") {
  // group_major<g>: each g holds X[g][0..2] then y[g] (4 values); z after both runs.
  const name_offsets states = {{"X[0][0]", 0}, {"X[0][1]", 1}, {"X[0][2]", 2}, {"y[0]", 3}, {"X[1][0]", 4},
                               {"X[1][1]", 5}, {"X[1][2]", 6}, {"y[1]", 7},    {"z", 8}};
  json doc;
  REQUIRE_NOTHROW(doc = parse(fx::layout_json<SmallGM::layout>()));
  CHECK(elements_of(doc["state"]) == states);
  // Parameters and observables stay symbol-major.
  CHECK(elements_of(doc["parameter"]) == name_offsets{{"r[0]", 0}, {"r[1]", 1}, {"r[2]", 2}, {"k", 3}});
  CHECK(elements_of(doc["observable"]) == name_offsets{{"tot[0]", 0}, {"tot[1]", 1}});
  const std::vector<std::string> names = {"X[0][0]", "X[0][1]", "X[0][2]", "y[0]", "X[1][0]",
                                          "X[1][1]", "X[1][2]", "y[1]",    "z"};
  CHECK(fx::element_names<SmallGM::layout::state>() == names);
  // The symbols' strides still address every element: y[1] = 3 + 1 * 4.
  check_symbol(doc["state"]["symbols"][1], "y", "state", 3, 2, {2}, {4}, {"g"});
}

TEST_CASE("element names of the indexed model at hand-computed offsets", "[layout][describe][elements]") {
  // S[3][4] at 0, I[3][4] at 12, R[3] at 24; beta[3] at 0, C[3][3] at 3,
  // sigma at 12, a[4] at 13; incidence[3] at 0, total at 3, by_age[3][4] at 4.
  json doc;
  REQUIRE_NOTHROW(doc = parse(fx::layout_json<M::layout>()));
  const auto st = elements_of(doc["state"]);
  const auto pa = elements_of(doc["parameter"]);
  const auto ob = elements_of(doc["observable"]);
  REQUIRE(st.size() == 27);
  REQUIRE(pa.size() == 17);
  REQUIRE(ob.size() == 16);
  for (std::size_t j = 0; j < st.size(); ++j) CHECK(st[j].second == double(j));
  for (std::size_t j = 0; j < pa.size(); ++j) CHECK(pa[j].second == double(j));
  for (std::size_t j = 0; j < ob.size(); ++j) CHECK(ob[j].second == double(j));
  CHECK(st[0].first == "S[0][0]");
  CHECK(st[3].first == "S[0][3]");
  CHECK(st[4].first == "S[1][0]");
  CHECK(st[11].first == "S[2][3]");
  CHECK(st[12].first == "I[0][0]");
  CHECK(st[22].first == "I[2][2]");  // 12 + 2 * 4 + 2
  CHECK(st[24].first == "R[0]");
  CHECK(st[26].first == "R[2]");
  CHECK(pa[2].first == "beta[2]");
  CHECK(pa[3].first == "C[0][0]");
  CHECK(pa[8].first == "C[1][2]");  // 3 + 1 * 3 + 2
  CHECK(pa[11].first == "C[2][2]");
  CHECK(pa[12].first == "sigma");
  CHECK(pa[16].first == "a[3]");
  CHECK(ob[2].first == "incidence[2]");
  CHECK(ob[3].first == "total");
  CHECK(ob[4].first == "by_age[0][0]");
  CHECK(ob[15].first == "by_age[2][3]");
  // Every name once.
  for (const auto* list : {&st, &pa, &ob})
    for (std::size_t a_ = 0; a_ < list->size(); ++a_)
      for (std::size_t b_ = a_ + 1; b_ < list->size(); ++b_) CHECK((*list)[a_].first != (*list)[b_].first);
}

TEST_CASE("group-major element names agree with the layout's offsets", "[layout][describe][elements]") {
  // A consistency check against the library's own offset function (the
  // hand-written lists above are the oracle): every name maps to the offset
  // that M::layout::state::offset gives for its index.
  using G = fx::compiled<indexed, double, fx::group_major<patch>>;
  using L = G::layout::state;
  const auto names = fx::element_names<L>();
  REQUIRE(names.size() == 27);
  for (int pp = 0; pp < 3; ++pp) {
    for (int kk_ = 0; kk_ < 4; ++kk_) {
      const std::string idx = "[" + std::to_string(pp) + "][" + std::to_string(kk_) + "]";
      CHECK(names[L::offset(S, pp, kk_)] == "S" + idx);
      CHECK(names[L::offset(I, pp, kk_)] == "I" + idx);
    }
    CHECK(names[L::offset(R, pp)] == "R[" + std::to_string(pp) + "]");
  }
  // Per patch: S (4), I (4), R (1), so patch 1's run starts at 9 with S[1][0].
  CHECK(names[9] == "S[1][0]");
  CHECK(names[13] == "I[1][0]");
  CHECK(names[17] == "R[1]");
}

TEST_CASE("layout JSON without the element list", "[layout][describe][elements]") {
  const std::string text = fx::layout_json<M::layout>(fx::json_elements::omitted);
  CHECK(text.find("\"elements\"") == std::string::npos);
  json doc;
  REQUIRE_NOTHROW(doc = parse(text));
  CHECK(doc["state"]["symbols"].items.size() == 3);
  CHECK(fx::layout_json(M::layout{}, fx::json_elements::omitted) == text);
  CHECK(fx::layout_json(M::layout{}) == fx::layout_json<M::layout>());
}

// Python's own json module reads the same document and finds the same
// offsets by name (skipped where no python3 is on PATH).
TEST_CASE("Python's json module reads the layout and addresses elements by name", "[layout][describe][elements]") {
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") != 0) SKIP("python3 is not available");
  const auto dir = std::filesystem::temp_directory_path();
  const auto json_path = dir / ("fluxion-layout-" + std::to_string(::getpid()) + ".json");
  const auto out_path = dir / ("fluxion-layout-" + std::to_string(::getpid()) + ".out");
  std::ofstream(json_path) << fx::layout_json<SmallGM::layout>();
  const std::string script =
      "import json, sys\n"
      "d = json.load(open(sys.argv[1]))\n"
      "idx = {e['name']: e['offset'] for e in d['state']['elements']}\n"
      "p = {e['name']: e['offset'] for e in d['parameter']['elements']}\n"
      "print(idx['X[1][2]'], idx['y[0]'], idx['z'], p['k'], d['state']['size'])\n";
  const auto py_path = dir / ("fluxion-layout-" + std::to_string(::getpid()) + ".py");
  std::ofstream(py_path) << script;
  const std::string cmd = "python3 " + py_path.string() + " " + json_path.string() + " > " + out_path.string();
  const int rc = std::system(cmd.c_str());
  std::string out;
  std::getline(std::ifstream(out_path), out);
  std::filesystem::remove(json_path);
  std::filesystem::remove(py_path);
  std::filesystem::remove(out_path);
  REQUIRE(rc == 0);
  CHECK(out == "6 3 8 3 9");  // group-major: X[1][2] = 4 + 2, y[0] = 3
}
