// Plan <-> JSON (plan_json.hpp, docs/plan-json.md). Reading checks the type
// of every field and bounds every count and length.
#include "slipway/core/plan_json.hpp"

#include <set>

#include "file_text.hpp"
#include "json_in.hpp"
#include "replay_json.hpp"
#include "limits.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/replay_config.hpp"

namespace slipway::core {

using nlohmann::json;

namespace {

json ucx_to_json(const UcxSettings& ucx) {
  json j = json::object();
  if (ucx.tls) j["tls"] = *ucx.tls;
  if (ucx.net_devices) j["net_devices"] = *ucx.net_devices;
  if (ucx.rndv_thresh) j["rndv_thresh"] = *ucx.rndv_thresh;
  return j;
}

json node_to_json(const NodeSpec& n) {
  json handles = json::array(), ports = json::array(), env = json::object();
  for (const auto& h : n.handles) handles.push_back(h.value);
  for (const auto& p : n.ports) ports.push_back(p.value);
  for (const auto& e : n.env) env[e.name.value] = e.value.value;
  return json{{"name", n.name.value},
              {"type", to_string(n.type.value)},
              {"command", n.command.value},
              {"wrapper", n.wrapper.value},
              {"replicas", {{"min", n.replicas.value.min}, {"max", n.replicas.value.max}}},
              {"cpus", n.cpus.value},
              {"gpus", n.gpus.value},
              {"mem_mb", n.mem_mb.value},
              {"framework", to_string(n.framework.value)},
              {"handles", handles},
              {"ports", ports},
              {"env", env},
              {"workdir", n.workdir.value},
              {"daemon", n.daemon.value},
              {"notice_signal", n.notice_signal.value},
              {"max_retries", n.max_retries.value},
              {"colocate", n.colocate.value},
              {"nodes", n.hosts.value},
              {"partition", n.partition.value},
              {"constraint", n.constraint.value},
              {"account", n.account.value},
              {"qos", n.qos.value},
              {"time_minutes", n.time_minutes.value},
              {"ucx", ucx_to_json(n.ucx.value)}};
}

// A node's JSON; a replay node's with its "replay" configuration.
json node_with_replay_to_json(const NodeSpec& n) {
  json j = node_to_json(n);
  if (n.type.value == NodeType::replay) j["replay"] = replay_config_json(n);
  return j;
}

json host_to_json(const Host& h) {
  json out{{"name", h.name},     {"address", h.address}, {"cpus", h.cpus},
           {"gpus", h.gpus},     {"mem_mb", h.mem_mb},   {"partitions", h.partitions}};
  if (h.satellite) out["satellite"] = true;
  return out;
}

json task_to_json(const Task& t) {
  return json{{"id", t.id},
              {"node", t.node},
              {"replica", t.replica},
              {"replicas", t.replicas},
              {"host", t.host},
              {"cpus", t.cpus},
              {"gpus", t.gpus},
              {"mem_mb", t.mem_mb},
              {"ports", t.ports},
              {"local_rank", t.local_rank},
              {"local_world_size", t.local_world_size},
              {"group_rank", t.group_rank},
              {"group_world_size", t.group_world_size}};
}

// Task `k` of the run that starts with `first`.
Task next_in_run(const Task& first, std::uint32_t k) {
  Task t = first;
  t.id += k;
  t.replica += k;
  t.local_rank += k;
  return t;
}

// Tasks in runs: a task joins the run before it when it is that run's next
// (next_in_run) exactly. No GPUs in runs: GPU indices differ per task.
json task_runs_to_json(const std::vector<Task>& tasks) {
  json runs = json::array();
  const Task* first = nullptr;
  std::uint32_t count = 0;
  auto close_run = [&] {
    if (!first) return;
    json run = task_to_json(*first);
    run["count"] = count;
    runs.push_back(std::move(run));
  };
  for (const Task& t : tasks) {
    if (first && t.gpus.empty() && first->gpus.empty() && t == next_in_run(*first, count)) {
      ++count;
      continue;
    }
    close_run();
    first = &t;
    count = 1;
  }
  close_run();
  return runs;
}

std::vector<Located<std::string>> located_list(const std::vector<std::string>& list) {
  std::vector<Located<std::string>> out;
  for (const auto& s : list) out.push_back(at_unknown(s));
  return out;
}

NodeSpec node_from_json(const In& in) {
  NodeSpec n;
  n.name = at_unknown(in.string("name"));
  const std::string type = in.string("type");
  const auto node_type = node_type_from_string(type);
  if (!node_type) in.fail("type", "unknown node type '" + type + "'");
  n.type = at_unknown(*node_type);
  n.command = at_unknown(in.strings("command"));
  if (n.command.value.empty()) in.fail("command", "is empty");
  n.wrapper = at_unknown(in.strings("wrapper"));
  const In replicas = in.object("replicas");
  n.replicas = at_unknown(ReplicaRange{replicas.u32("min", limits::kMaxReplicas),
                                       replicas.u32("max", limits::kMaxReplicas)});
  if (n.replicas.value.min == 0 || n.replicas.value.min > n.replicas.value.max) {
    in.fail("replicas", "must have 1 <= min <= max");
  }
  n.cpus = at_unknown(in.u32("cpus", limits::kMaxCpus));
  n.gpus = at_unknown(in.u32("gpus", limits::kMaxGpus));
  n.mem_mb = at_unknown(in.uint("mem_mb", limits::kMaxMemMb));
  const std::string framework = in.string("framework");
  const auto f = framework_from_string(framework);
  if (!f) in.fail("framework", "unknown framework '" + framework + "'");
  n.framework = at_unknown(*f);
  n.handles = located_list(in.strings("handles"));
  n.ports = located_list(in.strings("ports"));
  const json& env = in.field("env");
  if (!env.is_object()) in.fail("env", "must be an object");
  if (env.size() > limits::kMaxListLength) in.fail("env", "has too many variables");
  for (const auto& [name, value] : env.items()) {
    n.env.push_back(EnvVar{at_unknown(name), at_unknown(in.as_string(value, "env." + name))});
  }
  n.workdir = at_unknown(in.string("workdir"));
  n.daemon = at_unknown(in.boolean("daemon"));
  n.notice_signal = at_unknown(static_cast<int>(in.u32("notice_signal", 64)));
  n.max_retries = at_unknown(in.u32("max_retries", limits::kMaxRetries));
  n.colocate = at_unknown(in.string("colocate"));
  n.hosts = at_unknown(in.u32("nodes", limits::kMaxHosts));
  n.partition = at_unknown(in.string("partition"));
  n.constraint = at_unknown(in.string("constraint"));
  n.account = at_unknown(in.string("account"));
  n.qos = at_unknown(in.string("qos"));
  n.time_minutes = at_unknown(in.u32("time_minutes", limits::kMaxTimeMinutes));
  const In ucx = in.object("ucx");
  for (const auto& [key, value] : ucx.raw().items()) {
    const std::string s = ucx.as_string(value, key);
    if (key == "tls") {
      n.ucx.value.tls = s;
    } else if (key == "net_devices") {
      n.ucx.value.net_devices = s;
    } else if (key == "rndv_thresh") {
      n.ucx.value.rndv_thresh = s;
    } else {
      ucx.fail(key, "unknown UCX setting");
    }
  }
  if (n.type.value == NodeType::replay) n.replay = read_replay_settings(in.object("replay"));
  return n;
}

Host host_from_json(const In& in) {
  Host h;
  h.name = in.string("name");
  h.address = in.string("address");
  h.cpus = in.u32("cpus", limits::kMaxCpus);
  h.gpus = in.u32("gpus", limits::kMaxGpus);
  h.mem_mb = in.uint("mem_mb", limits::kMaxMemMb);
  h.partitions = in.strings("partitions");
  h.satellite = in.has("satellite") && in.boolean("satellite");
  return h;
}

Task task_from_json(const In& in, const Plan& plan, const std::set<std::string>& node_names,
                    std::size_t index) {
  Task t;
  t.id = in.u32("id", limits::kMaxTasks);
  if (t.id != index) in.fail("id", "must be the task's index " + std::to_string(index));
  t.node = in.string("node");
  if (node_names.count(t.node) == 0) in.fail("node", "names no node of the plan");
  t.replicas = in.u32("replicas", limits::kMaxReplicas);
  t.replica = in.u32("replica", limits::kMaxReplicas);
  if (t.replica >= t.replicas) in.fail("replica", "must be less than replicas");
  t.host = in.u32("host", limits::kMaxHosts);
  if (t.host >= plan.hosts.size()) in.fail("host", "names no host of the plan");
  t.cpus = in.u32("cpus", limits::kMaxCpus);
  t.gpus = in.u32s("gpus", limits::kMaxGpus);
  for (std::uint32_t g : t.gpus) {
    if (g >= plan.hosts[t.host].gpus) in.fail("gpus", "names a GPU its host does not have");
  }
  t.mem_mb = in.uint("mem_mb", limits::kMaxMemMb);
  t.ports = in.strings("ports");
  t.local_rank = in.u32("local_rank", limits::kMaxReplicas);
  t.local_world_size = in.u32("local_world_size", limits::kMaxReplicas);
  t.group_rank = in.u32("group_rank", limits::kMaxHosts);
  t.group_world_size = in.u32("group_world_size", limits::kMaxHosts);
  if (t.local_rank >= t.local_world_size || t.group_rank >= t.group_world_size) {
    in.fail("", "ranks must be less than their world sizes");
  }
  return t;
}

}  // namespace

json plan_to_json(const Plan& plan, PlanTasks form) {
  json nodes = json::array(), hosts = json::array();
  for (const NodeSpec& n : plan.program.nodes) nodes.push_back(node_with_replay_to_json(n));
  for (const Host& h : plan.hosts) hosts.push_back(host_to_json(h));
  json tasks = form == PlanTasks::runs ? task_runs_to_json(plan.tasks) : json::array();
  if (form == PlanTasks::listed) {
    for (const Task& t : plan.tasks) tasks.push_back(task_to_json(t));
  }
  return json{{"version", kPlanJsonVersion},
              {"program",
               {{"name", plan.program.name.value},
                {"max_retries", plan.program.max_retries.value},
                {"source_file", plan.program.source_file},
                {"base_dir", plan.program.base_dir}}},
              {"nodes", nodes},
              {"hosts", hosts},
              {form == PlanTasks::runs ? "task_runs" : "tasks", tasks}};
}

std::uint64_t task_json_bytes_bound(const NodeSpec& node) {
  Task t;  // every number at its widest
  t.id = limits::kMaxTasks - 1;
  t.node = node.name.value;
  t.replica = t.replicas = t.local_rank = t.local_world_size = limits::kMaxReplicas;
  t.host = t.group_rank = t.group_world_size = limits::kMaxHosts;
  t.cpus = limits::kMaxCpus;
  t.gpus.assign(node.gpus.value, limits::kMaxGpus);
  t.mem_mb = limits::kMaxMemMb;
  for (const auto& port : node.ports) t.ports.push_back(port.value);
  for (const ImplicitPort& port : implicit_ports(node)) t.ports.push_back(port.name);
  // As an element of the root's "tasks" array, indented as dump(2) does,
  // with the ",\n" that separates it from the next.
  // (a run of one carries a "count" besides).
  json run = task_to_json(t);
  run["count"] = limits::kMaxTasks;
  const std::size_t empty = json{{"tasks", json::array()}}.dump(2).size();
  const std::size_t one = json{{"tasks", json::array({run})}}.dump(2).size();
  return one - empty + 2;
}

Plan plan_from_json(const json& j) {
  const In root(j, "plan");
  if (root.uint("version", 1000) != kPlanJsonVersion) {
    root.fail("version", "is not " + std::to_string(kPlanJsonVersion) + "; this slipway reads plan "
                         "JSON version " + std::to_string(kPlanJsonVersion) + " only");
  }
  Plan plan;
  const In program = root.object("program");
  plan.program.name = at_unknown(program.string("name"));
  plan.program.max_retries = at_unknown(program.u32("max_retries", limits::kMaxRetries));
  plan.program.source_file = program.string("source_file");
  plan.program.base_dir = program.string("base_dir");
  std::set<std::string> names;
  for (const In& n : root.array("nodes", limits::kMaxNodes)) {
    plan.program.nodes.push_back(node_from_json(n));
    if (!names.insert(plan.program.nodes.back().name.value).second) n.fail("name", "is used twice");
  }
  for (const In& h : root.array("hosts", limits::kMaxHosts)) plan.hosts.push_back(host_from_json(h));
  if (root.has("task_runs") == root.has("tasks")) {
    root.fail("tasks", "give the tasks as \"tasks\" or as \"task_runs\", one of the two");
  }
  if (root.has("tasks")) {
    const auto tasks = root.array("tasks", limits::kMaxTasks);
    for (std::size_t i = 0; i < tasks.size(); ++i) plan.tasks.push_back(task_from_json(tasks[i], plan, names, i));
  } else {
    for (const In& run : root.array("task_runs", limits::kMaxTasks)) {
      const Task first = task_from_json(run, plan, names, plan.tasks.size());
      const std::uint32_t count = run.u32("count", limits::kMaxTasks);
      if (count == 0) run.fail("count", "must be at least 1");
      if (plan.tasks.size() + count > limits::kMaxTasks) {
        run.fail("count", "makes more than " + std::to_string(limits::kMaxTasks) + " tasks");
      }
      if (first.replica + (count - 1) >= first.replicas ||
          first.local_rank + (count - 1) >= first.local_world_size) {
        run.fail("count", "runs past its node's replicas or its host's local world size");
      }
      for (std::uint32_t k = 0; k < count; ++k) plan.tasks.push_back(next_in_run(first, k));
    }
  }
  for (const NodeSpec& n : plan.program.nodes) {
    for (const auto& h : n.handles) {
      if (names.count(h.value) == 0) root.fail("nodes", "node '" + n.name.value + "' handles unknown node '" + h.value + "'");
    }
  }
  return plan;
}

Plan read_plan_file(const std::string& path) {
  std::string error;
  const auto text = read_text_file(path, limits::kMaxPlanBytes, error);
  if (!text) throw PlanJsonError(path + ": cannot open plan file: " + error);
  json j;
  try {
    j = json::parse(*text);
  } catch (const json::parse_error& e) {
    throw PlanJsonError(path + ": invalid JSON: " + e.what());
  }
  try {
    return plan_from_json(j);
  } catch (const PlanJsonError& e) {
    throw PlanJsonError(path + ": " + e.what());
  }
}

}  // namespace slipway::core
