// The status document read into `slipway top`'s rows, and the rates of its
// counters (see top_model.hpp).
#include "top_model.hpp"

#include "top_json.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace slipway::cli::top {
namespace {

using json::Value;

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

std::optional<Value> field(const Value& object, const char* key) {
  auto v = object.find(key);
  if (!v || v->is_null()) return std::nullopt;
  return v;
}

std::string text(const Value& object, const char* key, const std::string& where) {
  auto v = field(object, key);
  if (!v) return {};
  if (!v->is_string()) wrong(at(where, key), "not a string");
  return v->string();
}

std::optional<std::int64_t> opt_integer(const Value& object, const char* key, const std::string& where) {
  auto v = field(object, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong(at(where, key), "not a number");
  if (v->is_integer()) return v->integer();
  // A number written as a real: whole part, when an int64 holds it (a cast
  // of one that does not is undefined).
  const double real = v->number();
  if (!(real >= -9223372036854775808.0 && real < 9223372036854775808.0)) wrong(at(where, key), "out of range");
  return static_cast<std::int64_t>(real);
}

std::int64_t integer(const Value& object, const char* key, const std::string& where) {
  return opt_integer(object, key, where).value_or(0);
}

std::uint32_t count(const Value& object, const char* key, const std::string& where) {
  const std::int64_t v = integer(object, key, where);
  if (v < 0 || v > 0xffffffffLL) wrong(at(where, key), "out of range");
  return static_cast<std::uint32_t>(v);
}

std::optional<double> opt_real(const Value& object, const char* key, const std::string& where) {
  auto v = field(object, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong(at(where, key), "not a number");
  return v->number();
}

bool flag(const Value& object, const char* key, const std::string& where) {
  auto v = field(object, key);
  if (!v) return false;
  if (!v->is_boolean()) wrong(at(where, key), "not true or false");
  return v->boolean();
}

const Value& object_at(const Value& v, const std::string& where) {
  if (!v.is_object()) wrong(where, "not an object");
  return v;
}

// Each element of the array object[key] (none when missing), with its path.
template <typename F>
void each(const Value& object, const char* key, const std::string& where, F&& f) {
  auto v = field(object, key);
  if (!v) return;
  if (!v->is_array()) wrong(at(where, key), "not an array");
  std::size_t i = 0;
  for (Value element : *v) {
    const std::string path = at(where, key) + "[" + std::to_string(i++) + "]";
    f(object_at(element, path), path);
  }
}

std::optional<LastExit> last_exit(const Value& object, const std::string& where) {
  auto v = field(object, "last_exit");
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

TaskRow task_row(const Value& t, const std::string& where) {
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

NodeRow node_row(const Value& n, const std::string& where, std::size_t order) {
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
  if (auto states = field(n, "states")) {
    const std::string path = at(where, "states");
    object_at(*states, path);
    for (Value value : *states) {
      const std::string state = value.key();
      if (!value.is_integer() || value.integer() < 0 || value.integer() > 0xffffffffLL) {
        wrong(path + "." + state, "not a count");
      }
      count_state(row.counts, state, static_cast<std::uint32_t>(value.integer()));
    }
  }
  row.last_exit = last_exit(n, where);
  row.cpu_seconds = opt_real(n, "cpu_seconds", where);
  row.rss_bytes = opt_integer(n, "rss_bytes", where);
  each(n, "tasks", where, [&](const Value& t, const std::string& path) { row.tasks.push_back(task_row(t, path)); });
  // The node's sums are 0 when none of its tasks reported usage: unknown.
  if (!row.tasks.empty() && std::none_of(row.tasks.begin(), row.tasks.end(),
                                         [](const TaskRow& t) { return t.cpu_seconds || t.rss_bytes; })) {
    row.cpu_seconds.reset();
    row.rss_bytes.reset();
  }
  return row;
}

ReplayRow replay_table(const Value& shard, const Value& table, const std::string& shard_path,
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

EventRow event_row(const Value& e, const std::string& where) {
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
  std::optional<json::Document> parsed;
  try {
    parsed.emplace(document);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("status document: ") + e.what());
  }
  const Value doc = parsed->root();
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
  if (auto r = field(doc, "rendezvous")) {
    object_at(*r, "rendezvous");
    s.endpoint = text(*r, "endpoint", "rendezvous");
    s.members = count(*r, "members", "rendezvous");
  }
  each(doc, "nodes", "", [&](const Value& n, const std::string& path) {
    s.nodes.push_back(node_row(n, path, s.nodes.size()));
  });
  each(doc, "replay", "", [&](const Value& shard, const std::string& shard_path) {
    each(shard, "tables", shard_path, [&](const Value& table, const std::string& path) {
      s.replay.push_back(replay_table(shard, table, shard_path, path));
    });
  });
  each(doc, "events", "", [&](const Value& e, const std::string& path) { s.events.push_back(event_row(e, path)); });
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
  std::size_t drop = 0;  // samples older than needed to span the window
  while (samples_.size() - drop > 2 && samples_.back().t_ms - samples_[drop + 1].t_ms >= window_ms_) ++drop;
  samples_.erase(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(drop));
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
  std::unordered_map<std::string, std::unordered_map<std::uint32_t, TaskMeter>> cpu;  // the tasks still here
  for (auto& node : status_.nodes) {
    auto old_node = cpu_.find(node.name);
    std::unordered_map<std::uint32_t, TaskMeter>* old = old_node != cpu_.end() ? &old_node->second : nullptr;
    std::unordered_map<std::uint32_t, TaskMeter> meters;
    meters.reserve(node.tasks.size());
    double sum = 0;
    bool any = false;
    for (auto& task : node.tasks) {
      if (!task.cpu_seconds) continue;
      const bool exact = task.usage_unix_ms.has_value();
      TaskMeter* known = nullptr;
      if (old) {
        auto it = old->find(task.replica);
        if (it != old->end()) known = &it->second;
      }
      TaskMeter meter = known ? std::move(*known)
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
      meters.emplace(task.replica, std::move(meter));
    }
    if (any) node.cpu_percent = sum;
    if (!meters.empty()) cpu.emplace(node.name, std::move(meters));
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
