// Reader: located, typed reading of TOML values (reader.hpp).
#include "reader.hpp"

#include <algorithm>

#include "limits.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

SourceLocation location_of(const toml::node& node) {
  return {node.source().begin.line, node.source().begin.column};
}

SourceLocation location_of(const toml::key& key) {
  return {key.source().begin.line, key.source().begin.column};
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

std::string shown(std::string_view text) {
  constexpr std::size_t kShownBytes = 64;
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && i < kShownBytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char* digits = "0123456789abcdef";
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i < text.size()) {
    // Never end inside a UTF-8 sequence: drop a last one left incomplete.
    std::size_t lead = out.size();
    while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xc0) == 0x80) --lead;
    if (lead > 0) {
      const auto c = static_cast<unsigned char>(out[lead - 1]);
      const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      if (out.size() - (lead - 1) < length) out.resize(lead - 1);
    }
    out += "...(" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

std::string in_quotes(std::string_view text) { return "'" + shown(text) + "'"; }

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view closest_key(std::string_view key, const std::vector<std::string_view>& known) {
  if (key.size() > limits::kMaxNameLength) return {};
  std::string_view best;
  std::size_t best_distance = std::max<std::size_t>(2, key.size() / 3) + 1;
  for (std::string_view candidate : known) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

void Reader::error(SourceLocation where, std::string message) {
  if (!muted_) out_.push_back(Diagnostic{file_, where, std::move(message)});
}

bool Reader::check_string(const std::string& s, SourceLocation where, std::string_view what) {
  if (s.size() > limits::kMaxStringLength) {
    error(where, std::string(what) + " is longer than " + std::to_string(limits::kMaxStringLength) +
                     " bytes; shorten it");
    return false;
  }
  if (s.find('\0') != std::string::npos) {
    error(where, std::string(what) + " contains a NUL character (\\u0000), which no program "
                                     "argument or variable can hold; remove it");
    return false;
  }
  return true;
}

std::optional<std::string> Reader::string(const toml::node& v, std::string_view what) {
  const auto* s = v.as_string();
  if (s == nullptr) {
    error(location_of(v), std::string(what) + " must be a string, not " + std::string(type_name(v)) +
                              "; put it in double quotes");
    return std::nullopt;
  }
  if (!check_string(s->get(), location_of(v), what)) return std::nullopt;
  return s->get();
}

std::optional<std::string> Reader::nonempty_string(const toml::node& v, std::string_view what) {
  auto s = string(v, what);
  if (s && s->empty()) {
    error(location_of(v), std::string(what) + " is empty; give a value or remove the key");
    return std::nullopt;
  }
  return s;
}

std::optional<std::int64_t> Reader::integer(const toml::node& v, std::string_view what,
                                            std::int64_t min, std::int64_t max) {
  const auto* i = v.as_integer();
  if (i == nullptr) {
    error(location_of(v), std::string(what) + " must be an integer, not " + std::string(type_name(v)));
    return std::nullopt;
  }
  const std::int64_t value = i->get();
  if (value < min) {
    error(location_of(v), std::string(what) + " must be at least " + std::to_string(min) + " (got " +
                              std::to_string(value) + ")");
    return std::nullopt;
  }
  if (value > max) {
    error(location_of(v), std::string(what) + " must be at most " + std::to_string(max) + " (got " +
                              std::to_string(value) + ")");
    return std::nullopt;
  }
  return value;
}

std::optional<bool> Reader::boolean(const toml::node& v, std::string_view what) {
  const auto* b = v.as_boolean();
  if (b == nullptr) {
    error(location_of(v), std::string(what) + " must be true or false, not " + std::string(type_name(v)));
    return std::nullopt;
  }
  return b->get();
}

std::optional<std::vector<Located<std::string>>> Reader::string_list(const toml::node& v,
                                                                     std::string_view what) {
  const auto* a = v.as_array();
  if (a == nullptr) {
    error(location_of(v), std::string(what) + " must be an array of strings, not " +
                              std::string(type_name(v)) + "; write [\"a\", \"b\"]");
    return std::nullopt;
  }
  if (a->size() > limits::kMaxListLength) {
    error(location_of(v), std::string(what) + " has more than " + std::to_string(limits::kMaxListLength) +
                              " entries");
    return std::nullopt;
  }
  std::vector<Located<std::string>> out;
  bool ok = true;
  for (const toml::node& element : *a) {
    auto s = string(element, std::string("each entry of ") + std::string(what));
    if (s) {
      out.push_back({std::move(*s), location_of(element)});
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<std::string>> Reader::argv(const toml::node& v, std::string_view what) {
  if (v.is_string()) {
    auto line = string(v, what);
    if (!line) return std::nullopt;
    std::string reason;
    auto words = split_shell_words(*line, &reason);
    if (!words) {
      error(location_of(v), std::string(what) + " " + reason);
      return std::nullopt;
    }
    if (words->size() > limits::kMaxListLength) {
      error(location_of(v), std::string(what) + " has more than " +
                                std::to_string(limits::kMaxListLength) + " words");
      return std::nullopt;
    }
    return words;
  }
  if (!v.is_array()) {
    error(location_of(v), std::string(what) + " must be an argv array or a command string, not " +
                              std::string(type_name(v)) + "; write [\"prog\", \"arg\"] or \"prog arg\"");
    return std::nullopt;
  }
  auto list = string_list(v, what);
  if (!list) return std::nullopt;
  std::vector<std::string> words;
  for (auto& word : *list) words.push_back(std::move(word.value));
  return words;
}

void Reader::unknown_key(const toml::key& key, std::string_view where_text,
                         const std::vector<std::string_view>& known) {
  std::string message = "unknown key '" + shown(key.str()) + "' " + std::string(where_text);
  const std::string_view suggestion = closest_key(key.str(), known);
  if (!suggestion.empty()) {
    message += "; did you mean '" + std::string(suggestion) + "'?";
  } else {
    message += "; see docs/topology.md for the keys it accepts";
  }
  error(location_of(key), std::move(message));
}

}  // namespace slipway::core
