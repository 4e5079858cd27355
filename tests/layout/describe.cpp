// The layout as a table and as JSON. The table is checked line by line
// against text written by hand; the JSON is parsed by a small strict parser
// written here (so that well-formedness is checked independently of the
// library), its values are compared with hand-computed numbers, and a few
// exact substrings are checked.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/fluxion.hpp>

#include <cctype>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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
