// Formatting and ordering of diagnostics (diagnostic.hpp).
#include "slipway/core/diagnostic.hpp"

#include <algorithm>

namespace slipway::core {

std::string format_diagnostic(const Diagnostic& d) {
  if (!d.where.known()) return d.file + ": " + d.message;
  return d.file + ":" + std::to_string(d.where.line) + ":" + std::to_string(d.where.column) + ": " +
         d.message;
}

void sort_diagnostics(std::vector<Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.where < b.where; });
}

}  // namespace slipway::core
