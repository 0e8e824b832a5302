// Parsing SLIPWAY_REPLAY_CONFIG: untrusted JSON to a shard's configuration.
#include "slipway/replay/config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace slipway::replay {

namespace {
using nlohmann::json;

constexpr std::size_t kMaxText = std::size_t{1} << 20;
constexpr std::size_t kMaxTables = 1024;
constexpr std::uint64_t kMaxTableSize = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxSafeInteger = std::uint64_t{1} << 53;

class Where {
 public:
  explicit Where(std::string where) : where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError("SLIPWAY_REPLAY_CONFIG: " + where_ + "key '" + key + "': " + what);
  }
  std::uint64_t integer(const json& object, const std::string& key, std::uint64_t low, std::uint64_t high,
                        std::uint64_t fallback) const {
    if (!object.contains(key)) return fallback;
    const json& value = object.at(key);
    std::uint64_t n = 0;
    if (value.is_number_unsigned()) {
      n = value.get<std::uint64_t>();
    } else if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
      n = static_cast<std::uint64_t>(value.get<std::int64_t>());
    } else if (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>() &&
               value.get<double>() >= 0 && value.get<double>() < 1.8e19) {
      n = static_cast<std::uint64_t>(value.get<double>());
    } else {
      fail(key, "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    }
    if (n < low || n > high) {
      fail(key, std::to_string(n) + " is out of range (" + std::to_string(low) + " to " + std::to_string(high) + ")");
    }
    return n;
  }
  double number(const json& object, const std::string& key, double fallback) const {
    if (!object.contains(key)) return fallback;
    const json& value = object.at(key);
    if (!value.is_number() || !std::isfinite(value.get<double>())) fail(key, "must be a finite number");
    return value.get<double>();
  }
  std::string text(const json& object, const std::string& key, std::size_t max, const std::string& fallback) const {
    if (!object.contains(key)) return fallback;
    const json& value = object.at(key);
    if (!value.is_string()) fail(key, "must be a string");
    const auto& s = value.get_ref<const std::string&>();
    if (s.size() > max) fail(key, "longer than " + std::to_string(max) + " bytes");
    return s;
  }
  const json* object(const json& parent, const std::string& key) const {
    if (!parent.contains(key)) return nullptr;
    if (!parent.at(key).is_object()) fail(key, "must be an object");
    return &parent.at(key);
  }

 private:
  std::string where_;
};

SelectorSpec selector(const Where& where, const json& table, const std::string& key, SelectorKind fallback) {
  const json* spec = where.object(table, key);
  if (spec == nullptr) return {fallback, 1.0};
  const std::string type = where.text(*spec, "type", 64, "");
  const auto kind = selector_kind_from(type);
  if (!kind) {
    where.fail(key + ".type", "'" + type + "' is not one of uniform, fifo, lifo, max_heap, min_heap, prioritized");
  }
  SelectorSpec out{*kind, 1.0};
  if (*kind == SelectorKind::prioritized) {
    out.exponent = where.number(*spec, "exponent", 1.0);
    if (out.exponent < 0.0) where.fail(key + ".exponent", "must be >= 0");
  }
  return out;
}

RateLimiterConfig limiter(const Where& where, const json& table, TableKind kind, std::uint64_t max_size) {
  const json* spec = where.object(table, "rate_limiter");
  std::string type;
  if (spec == nullptr) {
    type = kind == TableKind::stack ? "stack" : kind == TableKind::table ? "min_size" : "queue";
  } else {
    type = where.text(*spec, "type", 64, "");
  }
  const json empty = json::object();
  const json& s = spec == nullptr ? empty : *spec;
  try {
    if (type == "min_size") {
      return RateLimiterConfig::min_size(
          static_cast<std::int64_t>(where.integer(s, "min_size", 1, kMaxSafeInteger, 1)));
    }
    if (type == "ratio") {
      const double spi = where.number(s, "samples_per_insert", 1.0);
      const auto min_size = where.integer(s, "min_size_to_sample", 1, kMaxSafeInteger, 1);
      const double buffer = where.number(s, "error_buffer", std::max(1.0, spi));
      return RateLimiterConfig::sample_to_insert_ratio(spi, static_cast<std::int64_t>(min_size), buffer);
    }
    if (type == "queue") return RateLimiterConfig::queue(static_cast<std::int64_t>(max_size));
    if (type == "stack") return RateLimiterConfig::stack(static_cast<std::int64_t>(max_size));
  } catch (const std::invalid_argument& error) {
    where.fail("rate_limiter", error.what());
  }
  where.fail("rate_limiter.type", "'" + type + "' is not one of ratio, min_size, queue, stack");
}

TableConfig table_config(const json& table, std::size_t index) {
  if (!table.is_object()) throw ConfigError("SLIPWAY_REPLAY_CONFIG: tables[" + std::to_string(index) + "] is not an object");
  const Where anonymous("tables[" + std::to_string(index) + "]: ");
  TableConfig config;
  config.name = anonymous.text(table, "name", 255, "");
  if (config.name.empty()) anonymous.fail("name", "a table needs a name of 1 to 255 bytes");
  const Where where("table '" + config.name + "': ");
  const std::string kind = where.text(table, "kind", 16, "table");
  const auto parsed = table_kind_from(kind);
  if (!parsed) where.fail("kind", "'" + kind + "' is not one of table, queue, stack, work");
  config.kind = *parsed;
  const bool table_kind = config.kind == TableKind::table;
  const SelectorKind order = config.kind == TableKind::stack ? SelectorKind::lifo : SelectorKind::fifo;
  config.sampler = selector(where, table, "sampler", table_kind ? SelectorKind::uniform : order);
  config.remover = selector(where, table, "remover", order);
  config.max_size = where.integer(table, "max_size", 1, kMaxTableSize, table_kind ? 1000000 : 10000);
  config.max_times_sampled =
      static_cast<std::uint32_t>(where.integer(table, "max_times_sampled", 0, 0xFFFFFFFFU, table_kind ? 0 : 1));
  config.rate_limiter = limiter(where, table, config.kind, config.max_size);
  config.lease = std::chrono::milliseconds(where.integer(table, "lease_ms", 1, 0x7FFFFFFFU, 60000));
  return config;
}
}  // namespace

ServerConfig parse_config(std::string_view json_text) {
  if (json_text.size() > kMaxText) {
    throw ConfigError("SLIPWAY_REPLAY_CONFIG: " + std::to_string(json_text.size()) + " bytes (at most 1 MiB)");
  }
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& error) {
    throw ConfigError(std::string("SLIPWAY_REPLAY_CONFIG is not valid JSON: ") + error.what());
  }
  if (!root.is_object()) throw ConfigError("SLIPWAY_REPLAY_CONFIG must be a JSON object");
  const Where top("");
  ServerConfig config;
  if (!root.contains("tables") || !root.at("tables").is_array() || root.at("tables").empty()) {
    top.fail("tables", "must be a non-empty array of tables");
  }
  const json& tables = root.at("tables");
  if (tables.size() > kMaxTables) top.fail("tables", std::to_string(tables.size()) + " tables (at most 1024)");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    TableConfig table = table_config(tables[i], i);
    for (const auto& earlier : config.engine.tables) {
      if (earlier.name == table.name) throw ConfigError("SLIPWAY_REPLAY_CONFIG: table '" + table.name + "' appears twice");
    }
    try {
      Table check(table);  // the table's own checks, with its name
    } catch (const std::invalid_argument& error) {
      throw ConfigError(std::string("SLIPWAY_REPLAY_CONFIG: ") + error.what());
    }
    config.engine.tables.push_back(std::move(table));
  }
  if (const json* checkpoint = top.object(root, "checkpoint")) {
    const Where where("checkpoint: ");
    CheckpointConfig out;
    out.every = std::chrono::milliseconds(where.integer(*checkpoint, "every_ms", 0, std::uint64_t{1} << 40, 0));
    out.path = where.text(*checkpoint, "path", 4096, "");
    config.checkpoint = out;
  }
  if (const json* limits = top.object(root, "limits")) {
    const Where where("limits: ");
    auto& engine = config.engine.limits;
    engine.max_item_bytes = where.integer(*limits, "max_item_bytes", 1, std::uint64_t{200} << 20, engine.max_item_bytes);
    engine.max_data_bytes = where.integer(*limits, "max_data_bytes", 1, std::uint64_t{1} << 50, engine.max_data_bytes);
  }
  return config;
}

}  // namespace slipway::replay
