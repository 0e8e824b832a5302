// Source locations and diagnostics: where a topology value was written, and
// the user-facing problems found in a topology ("FILE:LINE:COL: message").
//
// Contract: line and column are 1-based as in TOML++; 0 means "not from the
// file" (a default value, or a value read back from plan JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slipway::core {

struct SourceLocation {
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool known() const { return line != 0; }
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
  friend auto operator<=>(const SourceLocation&, const SourceLocation&) = default;
};

// A value together with where the user wrote it.
template <class T>
struct Located {
  T value{};
  SourceLocation where{};

  const T& operator*() const { return value; }
  T& operator*() { return value; }
  const T* operator->() const { return &value; }
  T* operator->() { return &value; }
};

// One problem in one file. `where` may be unknown (line 0) for problems of
// the file as a whole (e.g. it cannot be read).
struct Diagnostic {
  std::string file;
  SourceLocation where;
  std::string message;
};

// "FILE:LINE:COL: message", or "FILE: message" when the location is unknown.
std::string format_diagnostic(const Diagnostic& d);

// Orders diagnostics by position in the file (stable for equal positions).
void sort_diagnostics(std::vector<Diagnostic>& diagnostics);

}  // namespace slipway::core
