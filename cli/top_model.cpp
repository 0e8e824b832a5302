// The status document read into `slipway top`'s rows, and the rates of its
// counters (see top_model.hpp).
#include "top_model.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <utility>

namespace slipway::cli::top {
namespace {

using nlohmann::json;

// Rates over this much time: with the sample's own time, a few of the
// agents' 2 s samples; with the time it was seen, enough samples that
// seeing one up to a second late matters little.
constexpr std::int64_t kExactWindowMs = 5000;
constexpr std::int64_t kSeenWindowMs = 10000;

[[noreturn]] void wrong(const std::string& where, const char* what) {
  throw std::runtime_error("status document: " + where + ": " + what);
}

std::string at(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

const json* field(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string text(const json& object, const char* key, const std::string& where) {
  const json* v = field(object, key);
  if (!v) return {};
  if (!v->is_string()) wrong(at(where, key), "not a string");
  return v->get<std::string>();
}

std::optional<std::int64_t> opt_integer(const json& object, const char* key, const std::string& where) {
  const json* v = field(object, key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_float()) return static_cast<std::int64_t>(v->get<double>());
  wrong(at(where, key), "not a number");
}

std::int64_t integer(const json& object, const char* key, const std::string& where) {
  return opt_integer(object, key, where).value_or(0);
}

std::uint32_t count(const json& object, const char* key, const std::string& where) {
  const std::int64_t v = integer(object, key, where);
  if (v < 0 || v > 0xffffffffLL) wrong(at(where, key), "out of range");
  return static_cast<std::uint32_t>(v);
}

std::optional<double> opt_real(const json& object, const char* key, const std::string& where) {
  const json* v = field(object, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong(at(where, key), "not a number");
  return v->get<double>();
}

bool flag(const json& object, const char* key, const std::string& where) {
  const json* v = field(object, key);
  if (!v) return false;
  if (!v->is_boolean()) wrong(at(where, key), "not true or false");
  return v->get<bool>();
}

const json& object_at(const json& v, const std::string& where) {
  if (!v.is_object()) wrong(where, "not an object");
  return v;
}

// Each element of the array object[key] (none when missing), with its path.
template <typename F>
void each(const json& object, const char* key, const std::string& where, F&& f) {
  const json* v = field(object, key);
  if (!v) return;
  if (!v->is_array()) wrong(at(where, key), "not an array");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string path = at(where, key) + "[" + std::to_string(i) + "]";
    f(object_at((*v)[i], path), path);
  }
}

std::optional<LastExit> last_exit(const json& object, const std::string& where) {
  const json* v = field(object, "last_exit");
  if (!v) return std::nullopt;
  const std::string path = at(where, "last_exit");
  object_at(*v, path);
  LastExit e;
  e.replica = count(*v, "replica", path);
  e.attempt = count(*v, "attempt", path);
  e.status = text(*v, "status", path);
  e.unix_ms = integer(*v, "unix_ms", path);
  return e;
}

TaskRow task_row(const json& t, const std::string& where) {
  TaskRow row;
  row.replica = count(t, "replica", where);
  row.state = text(t, "state", where);
  row.host = text(t, "host", where);
  row.pid = opt_integer(t, "pid", where);
  row.attempt = count(t, "attempt", where);
  row.restarts = count(t, "restarts", where);
  row.epoch = opt_integer(t, "epoch", where);
  row.started_unix_ms = opt_integer(t, "started_unix_ms", where);
  row.cpu_seconds = opt_real(t, "cpu_seconds", where);
  row.rss_bytes = opt_integer(t, "rss_bytes", where);
  row.usage_unix_ms = opt_integer(t, "usage_unix_ms", where);
  row.last_exit = last_exit(t, where);
  return row;
}

void count_state(StateCounts& counts, const std::string& state, std::uint32_t n) {
  if (state == "running") counts.running += n;
  else if (state == "pending") counts.pending += n;
  else if (state == "backoff") counts.backoff += n;
  else if (state == "failed") counts.failed += n;
  else if (state == "succeeded" || state == "stopped") counts.done += n;
  else if (state == "idle") counts.idle += n;
}

NodeRow node_row(const json& n, const std::string& where, std::size_t order) {
  NodeRow row;
  row.order = order;
  row.name = text(n, "name", where);
  if (row.name.empty()) wrong(at(where, "name"), "missing");
  row.type = text(n, "type", where);
  row.live = count(n, "replicas", where);
  row.min = count(n, "min", where);
  row.max = count(n, "max", where);
  row.elastic = flag(n, "elastic", where);
  row.world = flag(n, "world", where);
  row.daemon = flag(n, "daemon", where);
  row.epoch = opt_integer(n, "epoch", where);
  row.restarts = count(n, "restarts", where);
  if (const json* states = field(n, "states")) {
    const std::string path = at(where, "states");
    object_at(*states, path);
    for (const auto& [state, value] : states->items()) {
      if (!value.is_number_unsigned()) wrong(path + "." + state, "not a count");
      count_state(row.counts, state, value.get<std::uint32_t>());
    }
  }
  row.last_exit = last_exit(n, where);
  row.cpu_seconds = opt_real(n, "cpu_seconds", where);
  row.rss_bytes = opt_integer(n, "rss_bytes", where);
  each(n, "tasks", where, [&](const json& t, const std::string& path) { row.tasks.push_back(task_row(t, path)); });
  return row;
}

ReplayRow replay_table(const json& shard, const json& table, const std::string& shard_path,
                       const std::string& where) {
  ReplayRow row;
  row.task = text(shard, "task", shard_path);
  row.unix_ms = integer(shard, "unix_ms", shard_path);
  row.last_checkpoint_unix_ms = opt_integer(shard, "last_checkpoint_unix_ms", shard_path);
  row.table = text(table, "name", where);
  row.size = integer(table, "size", where);
  row.max_size = integer(table, "max_size", where);
  row.inserted_total = integer(table, "inserted_total", where);
  row.sampled_total = integer(table, "sampled_total", where);
  row.parked_inserts = integer(table, "parked_inserts", where);
  row.parked_samples = integer(table, "parked_samples", where);
  row.limiter_blocked_seconds = opt_real(table, "limiter_blocked_seconds_total", where).value_or(0);
  return row;
}

EventRow event_row(const json& e, const std::string& where) {
  EventRow row;
  row.seq = integer(e, "seq", where);
  row.time = text(e, "time", where);
  row.kind = text(e, "kind", where);
  row.node = text(e, "node", where);
  row.replica = opt_integer(e, "replica", where);
  row.attempt = opt_integer(e, "attempt", where);
  row.epoch = opt_integer(e, "epoch", where);
  row.host = text(e, "host", where);
  row.cause = text(e, "cause", where);
  return row;
}

}  // namespace

Status parse_status(std::string_view document) {
  json doc = json::parse(document.begin(), document.end(), nullptr, false);
  if (doc.is_discarded()) throw std::runtime_error("status document: not valid JSON");
  object_at(doc, "document");
  Status s;
  s.schema = static_cast<int>(integer(doc, "schema", ""));
  if (s.schema != kStatusSchema) {
    throw std::runtime_error("status document: schema " + std::to_string(s.schema) + ", this slipway reads schema " +
                             std::to_string(kStatusSchema) + " (use the slipway that runs the program)");
  }
  s.program = text(doc, "program", "");
  s.run = text(doc, "run", "");
  s.resume = count(doc, "resume", "");
  s.unix_ms = integer(doc, "unix_ms", "");
  s.started_unix_ms = integer(doc, "started_unix_ms", "");
  s.state = text(doc, "state", "");
  s.stop_reason = text(doc, "stop_reason", "");
  if (field(doc, "metrics")) s.metrics = text(doc, "metrics", "");
  if (const json* r = field(doc, "rendezvous")) {
    object_at(*r, "rendezvous");
    s.endpoint = text(*r, "endpoint", "rendezvous");
    s.members = count(*r, "members", "rendezvous");
  }
  each(doc, "nodes", "", [&](const json& n, const std::string& path) {
    s.nodes.push_back(node_row(n, path, s.nodes.size()));
  });
  each(doc, "replay", "", [&](const json& shard, const std::string& shard_path) {
    each(shard, "tables", shard_path, [&](const json& table, const std::string& path) {
      s.replay.push_back(replay_table(shard, table, shard_path, path));
    });
  });
  each(doc, "events", "", [&](const json& e, const std::string& path) { s.events.push_back(event_row(e, path)); });
  return s;
}

void RateMeter::add(std::int64_t t_ms, double value, bool every_sample) {
  if (!samples_.empty()) {
    const Sample& last = samples_.back();
    if (t_ms <= last.t_ms) return;
    if (value < last.value) samples_.clear();
    else if (!every_sample && value == last.value && t_ms - last.t_ms < window_ms_) return;
  }
  samples_.push_back({t_ms, value});
  while (samples_.size() > 2 && samples_.back().t_ms - samples_[1].t_ms >= window_ms_) samples_.pop_front();
}

std::optional<double> RateMeter::per_second() const {
  if (samples_.size() < 2) return std::nullopt;
  const Sample& first = samples_.front();
  const Sample& last = samples_.back();
  return (last.value - first.value) * 1000.0 / static_cast<double>(last.t_ms - first.t_ms);
}

bool Model::update(std::string text) {
  if (has_status_ && text == text_) return false;
  Status next = parse_status(text);
  text_ = std::move(text);
  status_ = std::move(next);
  has_status_ = true;
  compute_rates();
  return true;
}

void Model::compute_rates() {
  std::unordered_map<std::string, TaskMeter> cpu;  // only tasks still in the document are kept
  cpu.reserve(cpu_.size());
  for (auto& node : status_.nodes) {
    double sum = 0;
    bool any = false;
    for (auto& task : node.tasks) {
      if (!task.cpu_seconds) continue;
      const bool exact = task.usage_unix_ms.has_value();
      std::string key = node.name + "." + std::to_string(task.replica);
      auto old = cpu_.find(key);
      TaskMeter meter = old != cpu_.end() ? std::move(old->second)
                                          : TaskMeter{task.attempt, RateMeter(exact ? kExactWindowMs : kSeenWindowMs)};
      if (meter.attempt != task.attempt) {
        meter.cpu.reset();
        meter.attempt = task.attempt;
      }
      meter.cpu.add(task.usage_unix_ms.value_or(status_.unix_ms), *task.cpu_seconds, exact);
      if (auto rate = meter.cpu.per_second()) {
        task.cpu_percent = *rate * 100.0;
        sum += *task.cpu_percent;
        any = true;
      }
      cpu.emplace(std::move(key), std::move(meter));
    }
    if (any) node.cpu_percent = sum;
  }
  cpu_ = std::move(cpu);

  std::unordered_map<std::string, TableMeter> tables;
  tables.reserve(tables_.size());
  for (auto& row : status_.replay) {
    std::string key = row.task + "/" + row.table;
    auto old = tables_.find(key);
    TableMeter meter = old != tables_.end() ? std::move(old->second)
                                            : TableMeter{RateMeter(kExactWindowMs), RateMeter(kExactWindowMs)};
    meter.inserts.add(row.unix_ms, static_cast<double>(row.inserted_total), true);
    meter.samples.add(row.unix_ms, static_cast<double>(row.sampled_total), true);
    row.inserts_per_second = meter.inserts.per_second();
    row.samples_per_second = meter.samples.per_second();
    tables.emplace(std::move(key), std::move(meter));
  }
  tables_ = std::move(tables);
}

}  // namespace slipway::cli::top
