// Names of table and selector kinds, as the configuration and docs spell them.
#include "slipway/replay/types.hpp"

#include <array>
#include <utility>

namespace slipway::replay {

namespace {
constexpr std::array<std::pair<std::string_view, TableKind>, 4> kTableKinds{{
    {"table", TableKind::table},
    {"queue", TableKind::queue},
    {"stack", TableKind::stack},
    {"work", TableKind::work},
}};
constexpr std::array<std::pair<std::string_view, SelectorKind>, 6> kSelectorKinds{{
    {"uniform", SelectorKind::uniform},
    {"fifo", SelectorKind::fifo},
    {"lifo", SelectorKind::lifo},
    {"max_heap", SelectorKind::max_heap},
    {"min_heap", SelectorKind::min_heap},
    {"prioritized", SelectorKind::prioritized},
}};

template <typename Kind, std::size_t N>
std::string_view name_of(const std::array<std::pair<std::string_view, Kind>, N>& table, Kind kind) {
  for (const auto& [name, value] : table) {
    if (value == kind) return name;
  }
  return "?";
}

template <typename Kind, std::size_t N>
std::optional<Kind> kind_of(const std::array<std::pair<std::string_view, Kind>, N>& table,
                            std::string_view name) {
  for (const auto& [known, value] : table) {
    if (known == name) return value;
  }
  return std::nullopt;
}
}  // namespace

std::string_view to_string(TableKind kind) { return name_of(kTableKinds, kind); }
std::string_view to_string(SelectorKind kind) { return name_of(kSelectorKinds, kind); }
std::optional<TableKind> table_kind_from(std::string_view name) { return kind_of(kTableKinds, name); }
std::optional<SelectorKind> selector_kind_from(std::string_view name) {
  return kind_of(kSelectorKinds, name);
}

}  // namespace slipway::replay
