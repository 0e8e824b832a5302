// Name rules (names.hpp), enum spellings and env-name mangling (topology.hpp).
#include "names.hpp"

#include <array>
#include <cctype>
#include <utility>

#include "limits.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {
namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

template <class FirstOk, class RestOk>
bool matches(std::string_view s, std::size_t max_length, FirstOk first_ok, RestOk rest_ok) {
  if (s.empty() || s.size() > max_length || !first_ok(s.front())) return false;
  for (char c : s.substr(1)) {
    if (!rest_ok(c)) return false;
  }
  return true;
}

constexpr std::array<std::pair<Framework, std::string_view>, 7> kFrameworks{{
    {Framework::none, "none"},
    {Framework::torch, "torch"},
    {Framework::tensorflow, "tensorflow"},
    {Framework::jax, "jax"},
    {Framework::horovod, "horovod"},
    {Framework::paddle, "paddle"},
    {Framework::mpi, "mpi"},
}};
constexpr std::array<std::pair<NodeType, std::string_view>, 3> kNodeTypes{{
    {NodeType::exec, "exec"},
    {NodeType::courier, "courier"},
    {NodeType::replay, "replay"},
}};
constexpr std::array<std::pair<ReplayTableKind, std::string_view>, 4> kReplayKinds{{
    {ReplayTableKind::table, "table"},
    {ReplayTableKind::queue, "queue"},
    {ReplayTableKind::stack, "stack"},
    {ReplayTableKind::work, "work"},
}};
constexpr std::array<std::pair<ReplaySelectorType, std::string_view>, 6> kReplaySelectors{{
    {ReplaySelectorType::uniform, "uniform"},
    {ReplaySelectorType::fifo, "fifo"},
    {ReplaySelectorType::lifo, "lifo"},
    {ReplaySelectorType::max_heap, "max_heap"},
    {ReplaySelectorType::min_heap, "min_heap"},
    {ReplaySelectorType::prioritized, "prioritized"},
}};
constexpr std::array<std::pair<ReplayRateLimiterType, std::string_view>, 4> kReplayRateLimiters{{
    {ReplayRateLimiterType::ratio, "ratio"},
    {ReplayRateLimiterType::min_size, "min_size"},
    {ReplayRateLimiterType::queue, "queue"},
    {ReplayRateLimiterType::stack, "stack"},
}};

template <class Enum, std::size_t N>
std::string_view enum_name(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
  for (const auto& [value, name] : table) {
    if (value == e) return name;
  }
  return "?";
}

template <class Enum, std::size_t N>
std::optional<Enum> enum_value(const std::array<std::pair<Enum, std::string_view>, N>& table,
                               std::string_view s) {
  for (const auto& [value, name] : table) {
    if (name == s) return value;
  }
  return std::nullopt;
}

}  // namespace

bool is_valid_node_name(std::string_view name) {
  return matches(name, limits::kMaxNameLength, is_alpha,
                 [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; });
}

bool is_valid_port_name(std::string_view name) {
  return matches(name, limits::kMaxNameLength, is_alpha,
                 [](char c) { return is_alnum(c) || c == '_' || c == '-'; });
}

bool is_valid_env_name(std::string_view name) {
  return matches(name, limits::kMaxStringLength, [](char c) { return is_alpha(c) || c == '_'; },
                 [](char c) { return is_alnum(c) || c == '_'; });
}

bool is_valid_program_name(std::string_view name) {
  return matches(name, limits::kMaxNameLength, is_alnum,
                 [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; });
}

bool is_valid_tensorflow_job(std::string_view name) {
  return matches(name, limits::kMaxNameLength, is_alpha,
                 [](char c) { return is_alnum(c) || c == '_'; });
}

std::string env_name_part(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '-' || c == '.') {
      c = '_';
    } else {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string_view to_string(Framework f) { return enum_name(kFrameworks, f); }
std::optional<Framework> framework_from_string(std::string_view s) { return enum_value(kFrameworks, s); }
std::string_view to_string(NodeType t) { return enum_name(kNodeTypes, t); }
std::optional<NodeType> node_type_from_string(std::string_view s) { return enum_value(kNodeTypes, s); }
std::string_view to_string(ReplayTableKind k) { return enum_name(kReplayKinds, k); }
std::optional<ReplayTableKind> replay_table_kind_from_string(std::string_view s) {
  return enum_value(kReplayKinds, s);
}
std::string_view to_string(ReplaySelectorType t) { return enum_name(kReplaySelectors, t); }
std::optional<ReplaySelectorType> replay_selector_from_string(std::string_view s) {
  return enum_value(kReplaySelectors, s);
}
std::string_view to_string(ReplayRateLimiterType t) { return enum_name(kReplayRateLimiters, t); }
std::optional<ReplayRateLimiterType> replay_rate_limiter_from_string(std::string_view s) {
  return enum_value(kReplayRateLimiters, s);
}

}  // namespace slipway::core
