// A replay node's tables and checkpoint, read key by key (replay_table.hpp).
#include "replay_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "names.hpp"
#include "node_table.hpp"

namespace slipway::core {
namespace {

const std::vector<std::string_view> kTableKeys{"kind",         "sampler",      "remover", "max_size",
                                               "max_times_sampled", "rate_limiter", "lease"};
const std::vector<std::string_view> kRateLimiterKeys{"samples_per_insert", "min_size_to_sample", "error_buffer",
                                                     "min_size"};
const std::vector<std::string_view> kCheckpointKeys{"every", "path"};
const std::vector<std::string_view> kKindNames{"table", "queue", "stack", "work"};
const std::vector<std::string_view> kSelectorNames{"uniform", "fifo", "lifo", "max_heap", "min_heap"};

// "60s", "15m", "2h", "7d", "500ms": the largest unit that divides exactly.
std::string format_duration(std::uint64_t ms) {
  for (const auto& [unit, size] : {std::pair{"d", 86400000ull}, {"h", 3600000ull}, {"m", 60000ull}, {"s", 1000ull}}) {
    if (ms % size == 0) return std::to_string(ms / size) + unit;
  }
  return std::to_string(ms) + "ms";
}

// A number (integer or float) that is finite.
std::optional<double> read_number(Reader& r, const toml::node& v, const std::string& what) {
  double x = 0;
  if (const auto* i = v.as_integer()) {
    x = static_cast<double>(i->get());
  } else if (const auto* f = v.as_floating_point()) {
    x = f->get();
  } else {
    r.error(location_of(v), what + " must be a number, not " + std::string(type_name(v)));
    return std::nullopt;
  }
  if (!std::isfinite(x)) {
    r.error(location_of(v), what + " must be a finite number, not " + std::string(std::isnan(x) ? "nan" : "inf"));
    return std::nullopt;
  }
  return x;
}

// A finite number in [min, max] ((min, max] when min_open) into `out`;
// `range` says what to give instead. False (reported) when it is not.
bool read_bounded(Reader& r, const toml::node& v, const std::string& what, double min, double max, bool min_open,
                  const std::string& range, double& out) {
  const auto x = read_number(r, v, what);
  if (!x) return false;
  const double value = *x;
  if (value < min || value > max || (min_open && value == min)) {
    r.error(location_of(v), what + " is " + replay_number_text(value) + ", out of range; " + range);
    return false;
  }
  out = value;
  return true;
}

// "NUMBER UNIT" with unit ms, s, m, h or d; or a number of seconds.
std::optional<std::uint64_t> read_duration_ms(Reader& r, const toml::node& v, const std::string& what,
                                              std::uint64_t min_ms, std::uint64_t max_ms) {
  const std::string range = "give " + format_duration(min_ms) + " to " + format_duration(max_ms);
  double ms = 0;
  if (v.is_integer() || v.is_floating_point()) {
    auto seconds = read_number(r, v, what);
    if (!seconds) return std::nullopt;
    ms = *seconds * 1000;
  } else if (v.is_string()) {
    auto s = r.string(v, what);
    if (!s) return std::nullopt;
    const std::size_t digits = s->find_first_not_of("0123456789.");
    const std::string number = s->substr(0, digits);
    const std::string unit = digits == std::string::npos ? "" : s->substr(digits);
    static const std::vector<std::pair<std::string_view, double>> units{
        {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
    const auto u = std::find_if(units.begin(), units.end(), [&](const auto& p) { return p.first == unit; });
    const bool one_point = std::count(number.begin(), number.end(), '.') <= 1;
    // At most 20 characters: std::stod never overflows, and no duration in range needs more.
    if (number.empty() || number == "." || number.size() > 20 || !one_point || u == units.end()) {
      r.error(location_of(v), what + " is \"" + shown(*s) + "\", not a duration; write a number and a unit "
                                     "(ms, s, m, h or d) such as \"60s\" or \"15m\"");
      return std::nullopt;
    }
    ms = std::stod(number) * u->second;
  } else {
    r.error(location_of(v), what + " must be a duration such as \"60s\" or \"15m\", not " + std::string(type_name(v)));
    return std::nullopt;
  }
  if (!(ms >= static_cast<double>(min_ms) && ms <= static_cast<double>(max_ms))) {
    r.error(location_of(v), what + " is out of range; " + range);
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(std::llround(ms));
}

// "uniform" ... "min_heap", or { prioritized = EXPONENT }.
void read_selector(Reader& r, const toml::node& v, Located<ReplaySelector>& field, const std::string& what) {
  const std::string shape = "\"uniform\", \"fifo\", \"lifo\", \"max_heap\", \"min_heap\" or { prioritized = EXPONENT }";
  field.where = location_of(v);
  if (const auto* t = v.as_table()) {
    double exponent = 0;
    bool has_exponent = false;
    for (const auto& [key, value] : *t) {
      if (key != "prioritized") {
        r.unknown_key(key, "in " + what, {"prioritized"});
        continue;
      }
      has_exponent = read_bounded(r, value, "the prioritized exponent of " + what, 0, kMaxPriorityExponent, false,
                                  "give 0 to 10 (0 samples uniformly, 1 in proportion to priority)", exponent);
    }
    if (t->empty()) r.error(location_of(v), what + " is an empty table; write " + shape);
    if (has_exponent) field.value = {ReplaySelectorType::prioritized, exponent};
    return;
  }
  if (!v.is_string()) {
    r.error(location_of(v), what + " must be " + shape + ", not " + std::string(type_name(v)));
    return;
  }
  auto s = r.string(v, what);
  if (!s) return;
  if (*s == "prioritized") {
    r.error(location_of(v), what + " is 'prioritized', which needs its exponent: write " +
                                what.substr(1, what.find('\'', 1) - 1) + " = { prioritized = 0.6 }");
    return;
  }
  const auto type = replay_selector_from_string(*s);
  if (!type) {
    std::vector<std::string_view> names = kSelectorNames;
    names.push_back("{ prioritized = EXPONENT }");
    not_one_of(r, v, what, *s, names);
    return;
  }
  field.value = {*type, 0};
}

// { samples_per_insert, min_size_to_sample, error_buffer } or { min_size }.
void read_rate_limiter(Reader& r, const toml::node& v, Located<ReplayRateLimiter>& field, const std::string& what,
                       const std::string& in_table) {
  const std::string forms = "rate_limiter = { samples_per_insert = 8.0, min_size_to_sample = 1000, "
                            "error_buffer = 800 } or rate_limiter = { min_size = 1000 }";
  field.where = location_of(v);
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must be a table, not " + std::string(type_name(v)) + "; write " + forms);
    return;
  }
  double ratio = 0, buffer = 0;
  bool has_ratio = false, has_buffer = false;
  std::optional<std::uint64_t> min_size_to_sample, min_size;
  bool ratio_keys = false, bad = false;
  for (const auto& [key, value] : *t) {
    const std::string key_what = "'rate_limiter." + shown(key.str()) + "'" + in_table;
    if (key == "samples_per_insert") {
      ratio_keys = true;
      has_ratio = read_bounded(r, value, key_what, 0, kMaxSamplesPerInsert, true,
                               "give more than 0 and at most 1000000 (how often each item is sampled on average)",
                               ratio);
      bad = bad || !has_ratio;
    } else if (key == "error_buffer") {
      ratio_keys = true;
      has_buffer = read_bounded(r, value, key_what, 0, kMaxErrorBuffer, false, "give 0 to 1e15", buffer);
      bad = bad || !has_buffer;
    } else if (key == "min_size_to_sample" || key == "min_size") {
      ratio_keys = ratio_keys || key == "min_size_to_sample";
      if (auto i = r.integer(value, key_what, 1, static_cast<std::int64_t>(kMaxReplayTableSize))) {
        (key == "min_size" ? min_size : min_size_to_sample) = static_cast<std::uint64_t>(*i);
      } else {
        bad = true;
      }
    } else {
      r.unknown_key(key, "in the rate_limiter" + in_table, kRateLimiterKeys);
      bad = true;
    }
  }
  if (bad) return;
  if (t->contains("min_size") && ratio_keys) {
    r.error(location_of(v), what + " mixes min_size with the keys of a ratio; write " + forms);
    return;
  }
  if (min_size) {
    field.value = {};
    field.value.type = ReplayRateLimiterType::min_size;
    field.value.min_size = *min_size;
    return;
  }
  if (!has_ratio || !has_buffer) {
    const std::string missing = t->empty() ? "its keys" : has_ratio ? "error_buffer" : "samples_per_insert";
    r.error(location_of(v), what + " needs " + missing +
                                "; write " + forms + " (min_size_to_sample is 1 when left out)");
    return;
  }
  // Reverb's SampleToInsertRatio: the buffer spans min_size_to_sample *
  // samples_per_insert +- error_buffer, and one narrower than
  // max(1, samples_per_insert) on each side could block inserts and samples
  // for ever (one insert moves the difference by samples_per_insert, one
  // sample by 1).
  const double need = std::max(1.0, ratio);
  if (buffer < need) {
    r.error(location_of(t->get("error_buffer") != nullptr ? *t->get("error_buffer") : v),
            "'rate_limiter.error_buffer'" + in_table + " is " + replay_number_text(buffer) +
                ", less than max(1, samples_per_insert) = " + replay_number_text(need) +
                ": inserts and samples could block each other for ever; give error_buffer >= " +
                replay_number_text(need));
    return;
  }
  field.value = {};
  field.value.type = ReplayRateLimiterType::ratio;
  field.value.samples_per_insert = ratio;
  field.value.min_size_to_sample = min_size_to_sample.value_or(1);
  field.value.error_buffer = buffer;
}

void read_table(Reader& r, const toml::key& key, const toml::node& v, const NodeSpec& node, ReplayTable& out) {
  const std::string name(key.str());
  const std::string in_table = " in table " + in_quotes(name) + " of node " + in_quotes(node.name.value);
  out.name = {name, location_of(key)};
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), "table " + in_quotes(name) + " of node " + in_quotes(node.name.value) +
                                " must be a table, not " + std::string(type_name(v)) + "; write [node." +
                                shown(node.name.value) + ".tables." + shown(name) + "]");
    return;
  }
  if (!is_valid_node_name(name)) {
    r.error(location_of(key), "table name " + in_quotes(name) + " of node " + in_quotes(node.name.value) +
                                  " is not valid; use letters, digits, '_', '-' and '.', starting with a "
                                  "letter (at most 64)");
  }
  // The kind first: it gives the defaults of every other key.
  ReplayTableKind kind = ReplayTableKind::table;
  SourceLocation kind_where;
  if (const toml::node* k = t->get("kind")) {
    kind_where = location_of(*k);
    const std::string what = "'kind'" + in_table;
    if (auto s = r.string(*k, what)) {
      if (auto parsed = replay_table_kind_from_string(*s)) {
        kind = *parsed;
      } else {
        not_one_of(r, *k, what, *s, kKindNames);
      }
    }
  }
  const Located<std::string> kept_name = out.name;
  out = replay_table_defaults(kind);
  out.name = kept_name;
  out.kind.where = kind_where;
  for (const auto& [k, value] : *t) {
    const std::string what = "'" + shown(k.str()) + "'" + in_table;
    if (k == "kind") {
      continue;
    } else if (k == "sampler") {
      read_selector(r, value, out.sampler, what);
    } else if (k == "remover") {
      read_selector(r, value, out.remover, what);
    } else if (k == "max_size") {
      out.max_size.where = location_of(value);
      if (auto i = r.integer(value, what, 1, static_cast<std::int64_t>(kMaxReplayTableSize))) {
        out.max_size.value = static_cast<std::uint64_t>(*i);
      }
    } else if (k == "max_times_sampled") {
      out.max_times_sampled.where = location_of(value);
      if (auto i = r.integer(value, what, 0, kMaxReplayTimesSampled)) {
        out.max_times_sampled.value = static_cast<std::uint32_t>(*i);
      }
    } else if (k == "rate_limiter") {
      read_rate_limiter(r, value, out.rate_limiter, what, in_table);
    } else if (k == "lease") {
      out.lease_ms.where = location_of(value);
      if (auto ms = read_duration_ms(r, value, what, kMinReplayLeaseMs, kMaxReplayLeaseMs)) out.lease_ms.value = *ms;
    } else {
      r.unknown_key(k, "in table " + in_quotes(name) + " of node " + in_quotes(node.name.value), kTableKeys);
    }
  }
}

}  // namespace

void read_replay_tables(Reader& r, const toml::node& v, NodeSpec& node, const std::string& what) {
  node.replay.tables_where = location_of(v);
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must hold tables, not " + std::string(type_name(v)) + "; write [node." +
                                shown(node.name.value) + ".tables.NAME] for each table");
    return;
  }
  node.replay.tables.clear();
  for (const auto& [key, value] : *t) {
    ReplayTable table;
    read_table(r, key, value, node, table);
    node.replay.tables.push_back(std::move(table));
  }
  // toml++ keeps keys sorted; the tables keep the file's order.
  std::stable_sort(node.replay.tables.begin(), node.replay.tables.end(),
                   [](const ReplayTable& a, const ReplayTable& b) { return a.name.where < b.name.where; });
  if (node.replay.tables.size() > kMaxReplayTables) {
    r.error(node.replay.tables[kMaxReplayTables].name.where,
            "node " + in_quotes(node.name.value) + " has " + std::to_string(node.replay.tables.size()) +
                " tables, more than the limit of " + std::to_string(kMaxReplayTables) + " (this is table " +
                std::to_string(kMaxReplayTables + 1) + "); use fewer tables or another replay node");
  }
}

void read_replay_checkpoint(Reader& r, const toml::node& v, NodeSpec& node, const std::string& what) {
  node.replay.checkpoint.where = location_of(v);
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must be a table, not " + std::string(type_name(v)) + "; write [node." +
                                shown(node.name.value) + ".checkpoint] with every = \"15m\"");
    return;
  }
  ReplayCheckpoint checkpoint;
  const std::string in = what.substr(what.find(' '));
  for (const auto& [key, value] : *t) {
    const std::string key_what = "'checkpoint." + shown(key.str()) + "'" + in;
    if (key == "every") {
      checkpoint.every_ms.where = location_of(value);
      checkpoint.every_ms.value =
          read_duration_ms(r, value, key_what, kMinReplayCheckpointEveryMs, kMaxReplayCheckpointEveryMs);
    } else if (key == "path") {
      checkpoint.path.where = location_of(value);
      auto path = r.nonempty_string(value, key_what);
      if (path && path->size() > kMaxCheckpointPath) {
        r.error(location_of(value), key_what + " is longer than " + std::to_string(kMaxCheckpointPath) +
                                        " bytes, more than a path may be; shorten it");
        path.reset();
      }
      checkpoint.path.value = std::move(path);
    } else {
      r.unknown_key(key, "in the checkpoint table" + in, kCheckpointKeys);
    }
  }
  node.replay.checkpoint.value = std::move(checkpoint);
}

std::string replay_number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", x);
  return text;
}

void finish_replay_node(NodeSpec& node) {
  if (node.type.value != NodeType::replay) return;
  if (!node.command.where.known()) node.command.value = {std::string(kReplayProgram)};
  if (!node.daemon.where.known()) node.daemon.value = true;
}

const std::vector<std::string_view>* replay_table_keys(std::string_view table) {
  if (table == "tables") return &kTableKeys;
  if (table == "rate_limiter") return &kRateLimiterKeys;
  if (table == "checkpoint") return &kCheckpointKeys;
  return nullptr;
}

}  // namespace slipway::core
