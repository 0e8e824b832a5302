// `slipway top`'s JSON reader: what it reads (checked against nlohmann::json
// on the same texts), what it refuses and where, strings and numbers.
#include <catch2/catch.hpp>

#include <limits>

#include <nlohmann/json.hpp>

#include "top_fixture.hpp"
#include "top_json.hpp"

using namespace slipway::cli::top;

namespace {

// The reader's value as nlohmann::json, to compare with nlohmann's reading.
nlohmann::json convert(const json::Value& v) {
  switch (v.type()) {
    case json::Type::null: return nullptr;
    case json::Type::boolean: return v.boolean();
    case json::Type::number: return v.is_integer() ? nlohmann::json(v.integer()) : nlohmann::json(v.number());
    case json::Type::string: return v.string();
    case json::Type::array: {
      auto out = nlohmann::json::array();
      for (json::Value e : v) out.push_back(convert(e));
      return out;
    }
    case json::Type::object: {
      auto out = nlohmann::json::object();
      for (json::Value m : v) out[m.key()] = convert(m);
      return out;
    }
  }
  return nullptr;
}

nlohmann::json read(const std::string& text) { return convert(json::Document(text).root()); }

}  // namespace

TEST_CASE("top_json_reads_what_nlohmann_reads") {
  const std::string fixture = test::fixture("status_first.json").dump(1);
  CHECK(read(fixture) == nlohmann::json::parse(fixture));
  for (const char* text : {"0", "-0", "12", "-3.5e2", "1E+2", "0.25", "true", "false", "null", "\"\"", "[]", "{}",
                           " [1, [2, [3, {}]], {\"a\": {\"b\": []}}] ", "{\"a\":1,\"b\":[true,false,null]}",
                           "\"tab\\tquote\\\" slash\\/ back\\\\ \\u00e9\\u20ac\\ud83d\\ude00\"",
                           "9223372036854775807", "-9223372036854775808"}) {
    INFO(text);
    CHECK(read(text) == nlohmann::json::parse(text));
  }
}

TEST_CASE("top_json_finds_members_and_counts_elements") {
  const std::string text = R"({"a": [1, {"x": 2}, 3], "b\u0041": "v", "a": "second", "n": null})";
  json::Document doc(text);
  const json::Value root = doc.root();
  CHECK(root.size() == 4);
  auto a = root.find("a");
  REQUIRE(a);
  CHECK(a->is_array());  // the first of two members named so
  CHECK(a->size() == 3);
  std::vector<std::int64_t> seen;
  for (json::Value e : *a) seen.push_back(e.is_integer() ? e.integer() : -1);
  CHECK(seen == std::vector<std::int64_t>{1, -1, 3});
  CHECK(root.find("bA")->string() == "v");  // an escaped name
  CHECK(root.find("n")->is_null());
  CHECK_FALSE(root.find("zz"));
  CHECK_FALSE(a->find("x"));  // not an object
  CHECK(root.find("bA")->key() == "bA");
}

TEST_CASE("top_json_numbers_too_large_for_an_integer_are_reals") {
  json::Document doc("[18446744073709551616, 1.5, 7]");
  std::vector<json::Value> v(doc.root().begin(), doc.root().end());
  CHECK_FALSE(v[0].is_integer());
  CHECK(v[0].number() == Approx(18446744073709551616.0));
  CHECK_FALSE(v[1].is_integer());
  CHECK(v[2].is_integer());
  CHECK(v[2].integer() == 7);
  // Beyond a double's range: infinity, or 0, as strtod reads them
  // (nlohmann::json refuses them).
  json::Document far("[1e400, -1e400, 1e-400]");
  std::vector<json::Value> f(far.root().begin(), far.root().end());
  CHECK(f[0].number() == std::numeric_limits<double>::infinity());
  CHECK(f[1].number() == -std::numeric_limits<double>::infinity());
  CHECK(f[2].number() == 0.0);
}

TEST_CASE("top_json_refuses_what_is_not_json_and_says_where") {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"", "not valid JSON at byte 0: the text ends before a value"},
      {"{", "not valid JSON at byte 1: a member name was expected"},
      {"[1,]", "not valid JSON at byte 3: a value was expected"},
      {"{\"a\" 1}", "not valid JSON at byte 5: ':' was expected"},
      {"{\"a\":1,}", "not valid JSON at byte 7: a member name was expected"},
      {"[1 2]", "not valid JSON at byte 3: ',' or ']' was expected"},
      {"01", "not valid JSON at byte 1: text after the value"},
      {"-", "not valid JSON at byte 1: a digit was expected"},
      {"1.", "not valid JSON at byte 2: a digit was expected"},
      {"1e", "not valid JSON at byte 2: a digit was expected"},
      {"tru", "not valid JSON at byte 0: an unknown word"},
      {"\"abc", "not valid JSON at byte 4: a string without its end"},
      {"\"a\nb\"", "not valid JSON at byte 2: a control character in a string"},
      {"\"\\x\"", "not valid JSON at byte 2: a bad escape"},
      {"\"\\u12g4\"", "not valid JSON at byte 2: a bad \\u escape"},
      {"[] []", "not valid JSON at byte 3: text after the value"},
      {"'a'", "not valid JSON at byte 0: a value was expected"},
  };
  for (const auto& [text, message] : bad) {
    INFO(text);
    CHECK_THROWS_WITH(json::Document(text), message);
  }
  // Nesting is bounded (no deep recursion on hostile text).
  CHECK_NOTHROW(json::Document(std::string(64, '[') + std::string(64, ']')));
  CHECK_THROWS_WITH(json::Document(std::string(65, '[') + std::string(65, ']')),
                    "not valid JSON at byte 64: nested too deeply");
  CHECK_THROWS_WITH(json::Document(std::string(100000, '[')), "not valid JSON at byte 64: nested too deeply");
}

TEST_CASE("top_json_decodes_escapes_and_replaces_lone_surrogates") {
  CHECK(json::decode_string("a\\nb") == "a\nb");
  CHECK(json::decode_string("\\u0041\\u00e9") == "A\xc3\xa9");
  CHECK(json::decode_string("\\ud83d\\ude00") == "\xf0\x9f\x98\x80");
  CHECK(json::decode_string("\\ud83d") == "\xef\xbf\xbd");
  CHECK(json::decode_string("\\ude00x") == "\xef\xbf\xbdx");
  CHECK(json::decode_string("\\u12") == "\xef\xbf\xbd" "12");
}
