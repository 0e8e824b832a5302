// Reader: typed access to TOML values that reports every problem as a
// located diagnostic ("'cpus' in node 'learner' must be an integer") and
// returns std::nullopt instead of throwing. Shared by the table readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "slipway/core/diagnostic.hpp"

namespace slipway::core {

SourceLocation location_of(const toml::node& node);
SourceLocation location_of(const toml::key& key);
std::string_view type_name(const toml::node& node);

// User text as a message shows it: control characters and other bytes below
// 0x20 or 0x7f as \xNN, and cut after 64 bytes with "...(N bytes)", so that
// a name from the file can neither flood nor forge a diagnostic line.
std::string shown(std::string_view text);
// shown(text) in single quotes: 'text'.
std::string in_quotes(std::string_view text);

// The known key closest to `key` by edit distance, if close enough to be a
// likely typo; empty otherwise.
std::string_view closest_key(std::string_view key, const std::vector<std::string_view>& known);

class Reader {
 public:
  Reader(std::string file, std::vector<Diagnostic>& out) : file_(std::move(file)), out_(out) {}

  const std::string& file() const { return file_; }
  void error(SourceLocation where, std::string message);
  // While muted, errors are dropped (re-reading [defaults] for every node).
  void set_muted(bool muted) { muted_ = muted; }

  // `what` names the value in messages, e.g. "'cpus' in node 'learner'".
  std::optional<std::string> string(const toml::node& v, std::string_view what);
  std::optional<std::string> nonempty_string(const toml::node& v, std::string_view what);
  std::optional<std::int64_t> integer(const toml::node& v, std::string_view what, std::int64_t min,
                                      std::int64_t max);
  std::optional<bool> boolean(const toml::node& v, std::string_view what);
  // An array of strings, each kept with its location.
  std::optional<std::vector<Located<std::string>>> string_list(const toml::node& v,
                                                               std::string_view what);
  // An argv list, or one string split like a POSIX shell.
  std::optional<std::vector<std::string>> argv(const toml::node& v, std::string_view what);
  // "unknown key 'replcas' in node 'learner'; did you mean 'replicas'?"
  void unknown_key(const toml::key& key, std::string_view where_text,
                   const std::vector<std::string_view>& known);

 private:
  bool check_string(const std::string& s, SourceLocation where, std::string_view what);

  std::string file_;
  std::vector<Diagnostic>& out_;
  bool muted_ = false;
};

}  // namespace slipway::core
