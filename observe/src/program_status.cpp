// The status document's JSON, both ways (program_status.hpp).
#include "slipway/observe/program_status.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace slipway::observe {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T>
std::optional<T> opt(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

json exit_json(const std::optional<LastExit>& e) {
  if (!e) return nullptr;
  return {{"replica", e->replica}, {"attempt", e->attempt}, {"status", e->status}, {"unix_ms", e->unix_ms}};
}

std::optional<LastExit> exit_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return LastExit{j.at("replica").get<std::uint32_t>(), j.at("attempt").get<int>(),
                  j.at("status").get<std::string>(), j.at("unix_ms").get<std::int64_t>()};
}

json table_json(const ReplayTableStatus& t) {
  return {{"name", t.name},
          {"size", t.size},
          {"max_size", t.max_size},
          {"inserted_total", t.inserted_total},
          {"sampled_total", t.sampled_total},
          {"parked_inserts", t.parked_inserts},
          {"parked_samples", t.parked_samples},
          {"limiter_blocked_seconds_total", t.limiter_blocked_seconds_total}};
}

ReplayTableStatus table_from(const json& j) {
  ReplayTableStatus t;
  t.name = j.at("name").get<std::string>();
  t.size = j.value("size", std::uint64_t{0});
  t.max_size = j.value("max_size", std::uint64_t{0});
  t.inserted_total = j.value("inserted_total", std::uint64_t{0});
  t.sampled_total = j.value("sampled_total", std::uint64_t{0});
  t.parked_inserts = j.value("parked_inserts", std::uint64_t{0});
  t.parked_samples = j.value("parked_samples", std::uint64_t{0});
  t.limiter_blocked_seconds_total = j.value("limiter_blocked_seconds_total", 0.0);
  return t;
}

ReplayStatus replay_from(const std::string& task, const json& j) {
  ReplayStatus r;
  r.task = task;
  r.unix_ms = j.value("unix_ms", std::int64_t{0});
  r.last_checkpoint_unix_ms = opt<std::int64_t>(j, "last_checkpoint_unix_ms");
  const json& tables = j.at("tables");
  if (!tables.is_array() || tables.size() > 1024) throw std::runtime_error("bad tables");
  for (const json& t : tables) r.tables.push_back(table_from(t));
  return r;
}

}  // namespace

void finish_node(NodeStatus& node) {
  node.restarts = 0;
  node.states.clear();
  for (const char* s : kTaskStates) node.states[s] = 0;
  node.last_exit.reset();
  node.cpu_seconds = 0;
  node.rss_bytes = 0;
  for (const TaskStatus& t : node.tasks) {
    node.restarts += t.restarts;
    ++node.states[t.state];
    if (t.last_exit && (!node.last_exit || t.last_exit->unix_ms >= node.last_exit->unix_ms)) {
      node.last_exit = t.last_exit;
    }
    if (t.cpu_seconds) node.cpu_seconds += *t.cpu_seconds;
    if (t.rss_bytes) node.rss_bytes += *t.rss_bytes;
  }
}

json to_json(const ProgramStatus& s) {
  json nodes = json::array();
  for (const NodeStatus& n : s.nodes) {
    json tasks = json::array();
    for (const TaskStatus& t : n.tasks) {
      tasks.push_back({{"replica", t.replica},
                       {"state", t.state},
                       {"host", t.host},
                       {"pid", or_null(t.pid)},
                       {"attempt", t.attempt},
                       {"restarts", t.restarts},
                       {"epoch", or_null(t.epoch)},
                       {"started_unix_ms", or_null(t.started_unix_ms)},
                       {"cpu_seconds", or_null(t.cpu_seconds)},
                       {"rss_bytes", or_null(t.rss_bytes)},
                       {"last_exit", exit_json(t.last_exit)}});
    }
    nodes.push_back({{"name", n.name},
                     {"type", n.type},
                     {"handles", n.handles},
                     {"replicas", n.replicas},
                     {"min", n.min},
                     {"max", n.max},
                     {"elastic", n.elastic},
                     {"world", n.world},
                     {"daemon", n.daemon},
                     {"epoch", or_null(n.epoch)},
                     {"restarts", n.restarts},
                     {"states", n.states},
                     {"last_exit", exit_json(n.last_exit)},
                     {"cpu_seconds", n.cpu_seconds},
                     {"rss_bytes", n.rss_bytes},
                     {"tasks", std::move(tasks)}});
  }
  json replay = json::array();
  for (const ReplayStatus& r : s.replay) {
    json tables = json::array();
    for (const auto& t : r.tables) tables.push_back(table_json(t));
    replay.push_back({{"task", r.task},
                      {"unix_ms", r.unix_ms},
                      {"last_checkpoint_unix_ms", or_null(r.last_checkpoint_unix_ms)},
                      {"tables", std::move(tables)}});
  }
  json events = json::array();
  for (const Event& e : s.events) events.push_back(to_json(e));
  return {{"schema", kStatusSchema},
          {"program", s.program},
          {"run", s.run},
          {"resume", s.resume},
          {"unix_ms", s.unix_ms},
          {"started_unix_ms", s.started_unix_ms},
          {"state", s.state},
          {"stop_reason", s.stop_reason},
          {"metrics", s.metrics.empty() ? json(nullptr) : json(s.metrics)},
          {"rendezvous",
           {{"endpoint", s.rendezvous.endpoint},
            {"members", s.rendezvous.members},
            {"requests_total", s.rendezvous.requests_total},
            {"connections", s.rendezvous.connections}}},
          {"nodes", std::move(nodes)},
          {"replay", std::move(replay)},
          {"events", std::move(events)}};
}

ProgramStatus status_from_json(const json& j) {
  try {
    if (!j.is_object() || j.value("schema", 0) != kStatusSchema) {
      throw std::runtime_error("not a status document of schema " + std::to_string(kStatusSchema));
    }
    ProgramStatus s;
    s.program = j.at("program").get<std::string>();
    s.run = j.at("run").get<std::string>();
    s.resume = j.at("resume").get<std::uint32_t>();
    s.unix_ms = j.at("unix_ms").get<std::int64_t>();
    s.started_unix_ms = j.at("started_unix_ms").get<std::int64_t>();
    s.state = j.at("state").get<std::string>();
    s.stop_reason = j.value("stop_reason", std::string());
    s.metrics = opt<std::string>(j, "metrics").value_or("");
    const json& rdzv = j.at("rendezvous");
    s.rendezvous = {rdzv.value("endpoint", std::string()), rdzv.value("members", std::uint64_t{0}),
                    rdzv.value("requests_total", std::uint64_t{0}), rdzv.value("connections", std::uint64_t{0})};
    for (const json& n : j.at("nodes")) {
      NodeStatus node;
      node.name = n.at("name").get<std::string>();
      node.type = n.at("type").get<std::string>();
      node.handles = n.at("handles").get<std::vector<std::string>>();
      node.replicas = n.at("replicas").get<std::uint32_t>();
      node.min = n.at("min").get<std::uint32_t>();
      node.max = n.at("max").get<std::uint32_t>();
      node.elastic = n.at("elastic").get<bool>();
      node.world = n.at("world").get<bool>();
      node.daemon = n.at("daemon").get<bool>();
      node.epoch = opt<int>(n, "epoch");
      for (const json& t : n.at("tasks")) {
        TaskStatus task;
        task.replica = t.at("replica").get<std::uint32_t>();
        task.state = t.at("state").get<std::string>();
        task.host = t.at("host").get<std::string>();
        task.pid = opt<std::int64_t>(t, "pid");
        task.attempt = t.at("attempt").get<int>();
        task.restarts = t.at("restarts").get<int>();
        task.epoch = opt<int>(t, "epoch");
        task.started_unix_ms = opt<std::int64_t>(t, "started_unix_ms");
        task.cpu_seconds = opt<double>(t, "cpu_seconds");
        task.rss_bytes = opt<std::uint64_t>(t, "rss_bytes");
        task.last_exit = exit_from(t.at("last_exit"));
        node.tasks.push_back(std::move(task));
      }
      finish_node(node);
      s.nodes.push_back(std::move(node));
    }
    for (const json& r : j.at("replay")) s.replay.push_back(replay_from(r.at("task").get<std::string>(), r));
    for (const json& e : j.at("events")) {
      if (auto event = event_from_json(e)) s.events.push_back(std::move(*event));
    }
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed status document: ") + e.what());
  }
}

std::optional<TaskUsage> parse_usage(const std::string& text) {
  if (text.size() > 4096) return std::nullopt;
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    return TaskUsage{j.at("cpu_seconds").get<double>(), j.at("rss_bytes").get<std::uint64_t>()};
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<ReplayStatus> parse_replay_stats(const std::string& task, const std::string& text) {
  if (text.size() > (256u << 10)) return std::nullopt;
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    return replay_from(task, j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace slipway::observe
