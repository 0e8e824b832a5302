// Prometheus text from a status document (metrics_text.hpp).
#include "slipway/observe/metrics_text.hpp"

#include <cstdio>

namespace slipway::observe {
namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

class Writer {
 public:
  explicit Writer(std::string program) : program_(escape_label(program)) {}
  void family(const char* name, const char* type, const char* help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  // `labels`: already escaped, "k=\"v\",..." (without the program label).
  void sample(const char* name, const std::string& labels, double value) {
    out_ += name;
    out_ += "{program=\"";
    out_ += program_;
    out_ += '"';
    if (!labels.empty()) {
      out_ += ',';
      out_ += labels;
    }
    out_ += "} ";
    char number[32];
    std::snprintf(number, sizeof number, "%.17g", value);
    out_ += number;
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string program_;
  std::string out_;
};

std::string label(const char* key, const std::string& value) {
  return std::string(key) + "=\"" + escape_label(value) + "\"";
}

std::string task_labels(const NodeStatus& n, const TaskStatus& t) {
  return label("node", n.name) + ",replica=\"" + std::to_string(t.replica) + "\"";
}

}  // namespace

std::string render_metrics(const ProgramStatus& s, const std::string& version) {
  Writer w(s.program);
  w.family("slipway_build_info", "gauge", "slipway's version (the value is 1).");
  w.sample("slipway_build_info", label("version", version), 1);

  w.family("slipway_task_up", "gauge", "1 while the task runs, else 0.");
  for (const auto& n : s.nodes)
    for (const auto& t : n.tasks) w.sample("slipway_task_up", task_labels(n, t), t.state == "running" ? 1 : 0);
  w.family("slipway_task_restarts_total", "counter", "Times the task was started again (its attempt).");
  for (const auto& n : s.nodes)
    for (const auto& t : n.tasks) w.sample("slipway_task_restarts_total", task_labels(n, t), t.restarts);
  w.family("slipway_task_cpu_seconds_total", "counter",
           "CPU time of the task's processes (user and system, with reaped children's), as its agent last read it.");
  for (const auto& n : s.nodes)
    for (const auto& t : n.tasks)
      if (t.cpu_seconds) w.sample("slipway_task_cpu_seconds_total", task_labels(n, t), *t.cpu_seconds);
  w.family("slipway_task_resident_memory_bytes", "gauge", "Resident memory of the task's processes.");
  for (const auto& n : s.nodes)
    for (const auto& t : n.tasks)
      if (t.rss_bytes) w.sample("slipway_task_resident_memory_bytes", task_labels(n, t), static_cast<double>(*t.rss_bytes));

  w.family("slipway_world_epoch", "gauge", "The epoch a world node runs in (worlds only).");
  for (const auto& n : s.nodes)
    if (n.epoch) w.sample("slipway_world_epoch", label("node", n.name), *n.epoch);
  w.family("slipway_node_replicas", "gauge", "A node's tasks by state.");
  for (const auto& n : s.nodes)
    for (const auto& [state, count] : n.states)
      w.sample("slipway_node_replicas", label("node", n.name) + "," + label("state", state), count);

  w.family("slipway_rendezvous_members", "gauge", "Tasks' agents joined to the rendezvous now.");
  w.sample("slipway_rendezvous_members", "", static_cast<double>(s.rendezvous.members));
  w.family("slipway_rendezvous_requests_total", "counter", "Requests the rendezvous has answered.");
  w.sample("slipway_rendezvous_requests_total", "", static_cast<double>(s.rendezvous.requests_total));
  w.family("slipway_rendezvous_connections", "gauge", "Connections to the rendezvous now.");
  w.sample("slipway_rendezvous_connections", "", static_cast<double>(s.rendezvous.connections));

  auto replay_family = [&](const char* name, const char* type, const char* help, auto value) {
    w.family(name, type, help);
    for (const auto& r : s.replay)
      for (const auto& t : r.tables)
        w.sample(name, label("task", r.task) + "," + label("table", t.name), static_cast<double>(value(t)));
  };
  replay_family("slipway_replay_table_size", "gauge", "Items in a replay table.",
                [](const ReplayTableStatus& t) { return t.size; });
  replay_family("slipway_replay_table_max_size", "gauge", "The most items a replay table holds.",
                [](const ReplayTableStatus& t) { return t.max_size; });
  replay_family("slipway_replay_items_inserted_total", "counter", "Items inserted into a replay table.",
                [](const ReplayTableStatus& t) { return t.inserted_total; });
  replay_family("slipway_replay_items_sampled_total", "counter", "Items sampled from a replay table.",
                [](const ReplayTableStatus& t) { return t.sampled_total; });
  replay_family("slipway_replay_limiter_blocked_seconds_total", "counter",
                "Time requests waited on a replay table's rate limiter.",
                [](const ReplayTableStatus& t) { return t.limiter_blocked_seconds_total; });
  w.family("slipway_replay_parked_requests", "gauge", "Requests waiting on a replay table's rate limiter.");
  for (const auto& r : s.replay)
    for (const auto& t : r.tables) {
      const std::string labels = label("task", r.task) + "," + label("table", t.name);
      w.sample("slipway_replay_parked_requests", labels + ",kind=\"insert\"", static_cast<double>(t.parked_inserts));
      w.sample("slipway_replay_parked_requests", labels + ",kind=\"sample\"", static_cast<double>(t.parked_samples));
    }
  return w.take();
}

}  // namespace slipway::observe
