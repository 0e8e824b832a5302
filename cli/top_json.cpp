// `slipway top`'s JSON reader (see top_json.hpp): one pass over the text
// into a flat array of nodes in document order.
#include "top_json.hpp"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace slipway::cli::top::json {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The four hex digits at raw[i..i+4), if there are.
bool hex4(std::string_view raw, std::size_t i, std::uint32_t* value) {
  if (i > raw.size() || raw.size() - i < 4) return false;
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const int h = hex_value(raw[i + k]);
    if (h < 0) return false;
    v = v * 16 + static_cast<std::uint32_t>(h);
  }
  *value = v;
  return true;
}

}  // namespace

std::string decode_string(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t code = 0;
        if (!hex4(raw, i + 1, &code)) {
          out += "\xEF\xBF\xBD";  // U+FFFD
          break;
        }
        i += 4;
        std::uint32_t low = 0;
        if (code >= 0xD800 && code < 0xDC00 && raw.substr(i + 1, 2) == "\\u" && hex4(raw, i + 3, &low) &&
            low >= 0xDC00 && low < 0xE000) {
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;  // a lone surrogate
        append_utf8(out, code);
        break;
      }
      default: out += e;  // " \ /
    }
  }
  return out;
}

Document::Document(std::string_view text, std::size_t max_depth) : text_(text), max_depth_(max_depth) {
  if (text.size() >= std::numeric_limits<std::uint32_t>::max()) fail("the text is too long");
  nodes_.reserve(text.size() / 16 + 1);
  skip_space();
  parse_value(1);
  skip_space();
  if (pos_ != text_.size()) fail("text after the value");
}

void Document::fail(const char* why) const {
  throw std::runtime_error("not valid JSON at byte " + std::to_string(pos_) + ": " + why);
}

void Document::skip_space() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

void Document::parse_string(std::string_view* raw, bool* escaped) {
  ++pos_;  // the opening quote
  const std::size_t start = pos_;
  *escaped = false;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      *raw = text_.substr(start, pos_ - start);
      ++pos_;
      return;
    }
    if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
    if (c == '\\') {
      *escaped = true;
      if (++pos_ >= text_.size()) break;
      const char e = text_[pos_];
      if (e == 'u') {
        for (int k = 1; k <= 4; ++k) {
          if (pos_ + k >= text_.size() || hex_value(text_[pos_ + k]) < 0) fail("a bad \\u escape");
        }
        pos_ += 4;
      } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
        fail("a bad escape");
      }
    }
    ++pos_;
  }
  fail("a string without its end");
}

std::uint32_t Document::parse_value(std::size_t depth) {
  if (pos_ >= text_.size()) fail("the text ends before a value");
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  const char c = text_[pos_];
  if (c == '{' || c == '[') {
    if (depth > max_depth_) fail("nested too deeply");
    const bool object = c == '{';
    const char close = object ? '}' : ']';
    nodes_.emplace_back(object ? Type::object : Type::array);
    ++pos_;
    skip_space();
    std::uint32_t count = 0;
    if (pos_ < text_.size() && text_[pos_] == close) {
      ++pos_;
    } else {
      while (true) {
        std::string_view key;
        bool key_escaped = false;
        if (object) {
          if (pos_ >= text_.size() || text_[pos_] != '"') fail("a member name was expected");
          parse_string(&key, &key_escaped);
          skip_space();
          if (pos_ >= text_.size() || text_[pos_] != ':') fail("':' was expected");
          ++pos_;
          skip_space();
        }
        const std::uint32_t child = parse_value(depth + 1);
        nodes_[child].key = key;
        nodes_[child].key_escaped = key_escaped;
        ++count;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          skip_space();
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == close) {
          ++pos_;
          break;
        }
        fail(object ? "',' or '}' was expected" : "',' or ']' was expected");
      }
    }
    nodes_[index].count = count;
    nodes_[index].end = static_cast<std::uint32_t>(nodes_.size());
    return index;
  }
  if (c == '"') {
    Node node{Type::string};
    parse_string(&node.raw, &node.escaped);
    nodes_.push_back(node);
    return index;
  }
  auto literal = [&](std::string_view word, Type type, bool value) {
    if (text_.compare(pos_, word.size(), word) != 0) fail("an unknown word");
    pos_ += word.size();
    Node node{type};
    node.boolean = value;
    nodes_.push_back(node);
    return index;
  };
  if (c == 't') return literal("true", Type::boolean, true);
  if (c == 'f') return literal("false", Type::boolean, false);
  if (c == 'n') return literal("null", Type::null, false);
  if (c == '-' || is_digit(c)) {
    const std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      if (pos_ == from) fail("a digit was expected");
    };
    if (pos_ < text_.size() && text_[pos_] == '0') ++pos_;
    else digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      digits();
    }
    Node node{Type::number};
    node.raw = text_.substr(start, pos_ - start);
    nodes_.push_back(node);
    return index;
  }
  fail("a value was expected");
}

std::uint32_t Document::next_of(std::uint32_t index) const {
  const Node& n = nodes_[index];
  return n.type == Type::object || n.type == Type::array ? n.end : index + 1;
}

Type Value::type() const { return doc_->nodes_[index_].type; }

bool Value::is_integer() const {
  const auto& n = doc_->nodes_[index_];
  if (n.type != Type::number || n.raw.find_first_of(".eE") != std::string_view::npos) return false;
  std::int64_t v = 0;
  const auto r = std::from_chars(n.raw.data(), n.raw.data() + n.raw.size(), v);
  return r.ec == std::errc() && r.ptr == n.raw.data() + n.raw.size();
}

bool Value::boolean() const { return doc_->nodes_[index_].boolean; }

std::int64_t Value::integer() const {
  const auto& raw = doc_->nodes_[index_].raw;
  std::int64_t v = 0;
  std::from_chars(raw.data(), raw.data() + raw.size(), v);
  return v;
}

double Value::number() const {
  const auto& raw = doc_->nodes_[index_].raw;
  double v = 0;
  if (std::from_chars(raw.data(), raw.data() + raw.size(), v).ec == std::errc::result_out_of_range) {
    v = std::strtod(std::string(raw).c_str(), nullptr);  // infinity or 0, as JSON readers give (C locale)
  }
  return v;
}

std::string Value::string() const {
  const auto& n = doc_->nodes_[index_];
  return n.escaped ? decode_string(n.raw) : std::string(n.raw);
}

std::string Value::key() const {
  const auto& n = doc_->nodes_[index_];
  return n.key_escaped ? decode_string(n.key) : std::string(n.key);
}

std::optional<Value> Value::find(std::string_view key) const {
  if (type() != Type::object) return std::nullopt;
  for (Value member : *this) {
    const auto& n = doc_->nodes_[member.index_];
    if (n.key_escaped ? decode_string(n.key) == key : n.key == key) return member;
  }
  return std::nullopt;
}

std::size_t Value::size() const {
  const Type t = type();
  return t == Type::object || t == Type::array ? doc_->nodes_[index_].count : 0;
}

Value::Iterator Value::begin() const {
  return size() ? Iterator(doc_, index_ + 1) : end();
}

Value::Iterator Value::end() const { return Iterator(doc_, doc_->next_of(index_)); }

Value::Iterator& Value::Iterator::operator++() {
  index_ = doc_->next_of(index_);
  return *this;
}

}  // namespace slipway::cli::top::json
