// A small, strict JSON reader for `slipway top`: the status document of a
// program of 1,000 tasks (a few hundred KB) arrives every second, and
// nlohmann::json takes ~8 ms of CPU to read it where this takes well under
// one, which keeps `slipway top` under 1% of a core (docs/observe.md).
//
// Contract: Document parses the whole text at once (RFC 8259: one value,
// whitespace around it; nesting at most `max_depth`) and throws
// std::runtime_error("not valid JSON at byte N: WHY") otherwise. Values are
// views into the Document (and the text it was given, which must outlive
// it): strings are decoded when asked for, numbers read with from_chars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::cli::top::json {

enum class Type : std::uint8_t { null, boolean, number, string, array, object };

class Document;

class Value {
 public:
  Type type() const;
  bool is_null() const { return type() == Type::null; }
  bool is_number() const { return type() == Type::number; }
  bool is_string() const { return type() == Type::string; }
  bool is_array() const { return type() == Type::array; }
  bool is_object() const { return type() == Type::object; }
  bool is_boolean() const { return type() == Type::boolean; }
  // A number without fraction or exponent that fits in 64 bits.
  bool is_integer() const;

  bool boolean() const;            // true or false (a boolean)
  std::int64_t integer() const;    // is_integer()
  double number() const;           // a number
  std::string string() const;      // a string, decoded to UTF-8

  // Objects: the member named `key` (the first, if several), or nullopt.
  std::optional<Value> find(std::string_view key) const;
  // Objects and arrays: the members or elements, in order.
  std::size_t size() const;
  class Iterator;
  Iterator begin() const;
  Iterator end() const;
  // A member's name (an object's member only).
  std::string key() const;

 private:
  friend class Document;
  Value(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Document* doc_;
  std::uint32_t index_;
};

class Value::Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;

  Value operator*() const { return Value(doc_, index_); }
  Iterator& operator++();
  bool operator==(const Iterator& other) const { return index_ == other.index_; }
  bool operator!=(const Iterator& other) const { return index_ != other.index_; }

 private:
  friend class Value;
  Iterator(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Document* doc_;
  std::uint32_t index_;
};

class Document {
 public:
  explicit Document(std::string_view text, std::size_t max_depth = 64);
  Value root() const { return Value(this, 0); }

 private:
  friend class Value;
  struct Node {
    explicit Node(Type t) : type(t) {}
    Type type;
    bool escaped = false;      // the string has escapes (decode it)
    bool key_escaped = false;  // the member name has escapes
    bool boolean = false;
    std::uint32_t end = 0;     // containers: the index after the last descendant
    std::uint32_t count = 0;   // containers: members or elements
    std::string_view raw;      // strings: between the quotes; numbers: the token
    std::string_view key;      // object members: the name, between the quotes
  };
  std::uint32_t parse_value(std::size_t depth);
  void parse_string(std::string_view* raw, bool* escaped);
  void skip_space();
  [[noreturn]] void fail(const char* why) const;
  std::uint32_t next_of(std::uint32_t index) const;

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t max_depth_;
  std::vector<Node> nodes_;
};

// `raw` (the text between a string's quotes, escapes and all) decoded.
std::string decode_string(std::string_view raw);

}  // namespace slipway::cli::top::json
