// Task environments: the SLIPWAY_* contract, required addresses, each
// framework's documented variables, GPU binding, UCX and the layering.
#include <nlohmann/json.hpp>

#include "core_test_support.hpp"

using namespace slipway::core;
using slipway::core::test::hosts;
using slipway::core::test::parse_ok;
using slipway::core::test::plan_ok;
using slipway::core::test::resolve_all;
using slipway::core::test::test_port;

namespace {

const char* kGraph = R"(
[program]
name = "graph"
[node.replay-buffer]
command = "replay"
replicas = 2
ports = ["grpc", "admin-http"]
daemon = true
[node.learner]
command = "learn"
ports = ["grpc"]
handles = ["replay-buffer", "learner"]
env = { OMP_NUM_THREADS = 4 }
ucx = { tls = "tcp,sm", net_devices = "lo" }
[node.actor]
command = "act"
handles = ["learner"]
)";

std::string port_str(const Plan& plan, const std::string& node, std::uint32_t replica, const std::string& port) {
  return std::to_string(test_port(plan, {node, replica, port}));
}

std::string addr(const Plan& plan, const std::string& node, std::uint32_t replica, const std::string& port) {
  const Task* t = plan.find_task(node, replica);
  return plan.host(*t).address + ":" + port_str(plan, node, replica, port);
}

}  // namespace

TEST_CASE("every variable derived from the attempt and epoch agrees with SLIPWAY_ATTEMPT and SLIPWAY_EPOCH",
          "[core][env]") {
  const Plan plan = plan_ok(parse_ok(R"(
[program]
name = "ddp"

[node.trainer]
command = "python3 train.py"
replicas = 2
framework = "torch"
max_retries = 4
)"),
                            hosts(1, 4));
  const ResolvedAddresses a = resolve_all(plan);
  for (TaskLaunch launch : {TaskLaunch{0, 0}, TaskLaunch{1, 1}, TaskLaunch{3, 2}}) {
    for (const Task& task : plan.tasks) {
      const EnvMap env = task_environment(plan, task, launch, a);
      CHECK(env.at("SLIPWAY_ATTEMPT") == std::to_string(launch.attempt));
      CHECK(env.at("SLIPWAY_EPOCH") == std::to_string(launch.epoch));
      // torchrun counts restarts of the whole world: the epoch.
      CHECK(env.at("TORCHELASTIC_RESTART_COUNT") == env.at("SLIPWAY_EPOCH"));
    }
  }
}

TEST_CASE("the contract environment of docs/contract.md", "[core][env]") {
  const Plan plan = plan_ok(parse_ok(kGraph), hosts(2, 2));
  const ResolvedAddresses a = resolve_all(plan);
  const Task& learner = *plan.find_task("learner", 0);
  const EnvMap env = contract_environment(plan, learner, {2, 0}, a);
  CHECK(env.at("SLIPWAY_PROGRAM") == "graph");
  CHECK(env.at("SLIPWAY_NODE") == "learner");
  CHECK(env.at("SLIPWAY_REPLICA") == "0");
  CHECK(env.at("SLIPWAY_REPLICAS") == "1");
  CHECK(env.at("SLIPWAY_ATTEMPT") == "2");
  CHECK(env.at("SLIPWAY_EPOCH") == "0");
  CHECK(env.at("SLIPWAY_PORT_GRPC") == port_str(plan, "learner", 0, "grpc"));
  // every replica, in replica order, names mangled
  CHECK(env.at("SLIPWAY_ADDR_REPLAY_BUFFER_GRPC") ==
        addr(plan, "replay-buffer", 0, "grpc") + "," + addr(plan, "replay-buffer", 1, "grpc"));
  CHECK(env.at("SLIPWAY_ADDR_REPLAY_BUFFER_ADMIN_HTTP") ==
        addr(plan, "replay-buffer", 0, "admin-http") + "," + addr(plan, "replay-buffer", 1, "admin-http"));
  CHECK(env.at("SLIPWAY_ADDR_LEARNER_GRPC") == addr(plan, "learner", 0, "grpc"));  // self-handle
  CHECK(env.size() == 10);
  CHECK(env.count("SLIPWAY_RDZV") == 0);  // the launch layer's

  const EnvMap actor = contract_environment(plan, *plan.find_task("actor", 0), {}, a);
  CHECK(actor.count("SLIPWAY_ADDR_LEARNER_GRPC") == 1);
  CHECK(actor.count("SLIPWAY_ADDR_REPLAY_BUFFER_GRPC") == 0);  // not handled
  CHECK(actor.count("SLIPWAY_PORT_GRPC") == 0);
}

TEST_CASE("required addresses: own ports, handled nodes' ports, framework needs", "[core][env]") {
  const Plan plan = plan_ok(parse_ok(kGraph), hosts(2, 2));
  const auto refs = required_addresses(plan, *plan.find_task("learner", 0));
  const std::vector<AddressRef> expected{
      {"learner", 0, "grpc"},
      {"replay-buffer", 0, "admin-http"}, {"replay-buffer", 0, "grpc"},
      {"replay-buffer", 1, "admin-http"}, {"replay-buffer", 1, "grpc"}};
  CHECK(refs == expected);
  CHECK(required_addresses(plan, *plan.find_task("actor", 0)) == std::vector<AddressRef>{{"learner", 0, "grpc"}});
  CHECK(required_addresses(plan, *plan.find_task("replay-buffer", 1)) ==
        std::vector<AddressRef>{{"replay-buffer", 1, "admin-http"}, {"replay-buffer", 1, "grpc"}});
}

TEST_CASE("a missing address is an error that names it", "[core][env]") {
  const Plan plan = plan_ok(parse_ok(kGraph), hosts(2, 2));
  ResolvedAddresses a = resolve_all(plan);
  ResolvedAddresses partial;
  partial.set({"learner", 0, "grpc"}, {"h", 1});
  CHECK(partial.size() == 1);
  CHECK(partial.find({"learner", 0, "grpc"})->port == 1);
  CHECK(partial.find({"learner", 1, "grpc"}) == nullptr);
  CHECK_THROWS_WITH(contract_environment(plan, *plan.find_task("learner", 0), {}, partial),
                    "address of port 'grpc' of replay-buffer.0 is not resolved");
  try {
    partial.at({"x", 3, "p"});
    FAIL("no throw");
  } catch (const MissingAddress& e) {
    CHECK(e.ref == AddressRef{"x", 3, "p"});
  }
}

TEST_CASE("endpoints format as host:port, IPv6 in brackets", "[core][env]") {
  CHECK(Endpoint{"10.0.0.1", 80}.to_string() == "10.0.0.1:80");
  CHECK(Endpoint{"fn1", 5000}.to_string() == "fn1:5000");
  CHECK(Endpoint{"::1", 80}.to_string() == "[::1]:80");
}

TEST_CASE("the task environment layers env, UCX, contract, framework and GPUs", "[core][env]") {
  const Plan plan = plan_ok(parse_ok(kGraph), hosts(2, 2));
  const ResolvedAddresses a = resolve_all(plan);
  const EnvMap env = task_environment(plan, *plan.find_task("learner", 0), {}, a);
  CHECK(env.at("OMP_NUM_THREADS") == "4");
  CHECK(env.at("UCX_TLS") == "tcp,sm");
  CHECK(env.at("UCX_NET_DEVICES") == "lo");
  CHECK(env.at("SLIPWAY_NODE") == "learner");
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);  // hosts planned without GPUs: no binding
  CHECK(ucx_environment(plan.program.nodes[0]).empty());
}

TEST_CASE("the task environment binds GPUs on hosts planned with GPUs", "[core][env]") {
  const Plan plan = plan_ok(parse_ok(kGraph), hosts(2, 2, 2));
  const ResolvedAddresses a = resolve_all(plan);
  const Task& learner = *plan.find_task("learner", 0);
  CHECK(task_environment(plan, learner, {}, a).at("CUDA_VISIBLE_DEVICES").empty());  // asks for none: sees none
  const EnvMap unbound = task_environment(plan, learner, {}, a, {false, {}, {}});
  CHECK(unbound.count("CUDA_VISIBLE_DEVICES") == 0);
}

TEST_CASE("GPU binding sets CUDA_VISIBLE_DEVICES from the task's GPUs", "[core][env]") {
  Task t;
  t.gpus = {2, 3};
  CHECK(gpu_environment(t, true) == EnvMap{{"CUDA_VISIBLE_DEVICES", "2,3"}});
  CHECK(gpu_environment(t, false).empty());
  t.gpus.clear();
  CHECK(gpu_environment(t, true) == EnvMap{{"CUDA_VISIBLE_DEVICES", ""}});  // hides the host's GPUs
}

TEST_CASE("torch: torchrun's variables, the world being the node's replicas", "[core][env][torch]") {
  const Program p = parse_ok(R"(
[program]
name = "ddp"
[node.trainer]
command = "python3 train.py"
replicas = 3
cpus = 2
framework = "torch"
max_retries = 4
)");
  const Plan plan = plan_ok(p, hosts(2, 4));  // 2 on fn1, 1 on fn2
  const ResolvedAddresses a = resolve_all(plan);
  const Task& t2 = *plan.find_task("trainer", 2);
  CHECK(implicit_ports(plan.program.nodes[0]).size() == 1);
  CHECK(required_addresses(plan, t2) == std::vector<AddressRef>{{"trainer", 0, "torch_master"}});
  const EnvMap env = framework_environment(plan, t2, {1, 1}, a);
  const EnvMap expected{{"MASTER_ADDR", "10.0.0.11"},
                        {"MASTER_PORT", port_str(plan, "trainer", 0, "torch_master")},
                        {"RANK", "2"},
                        {"WORLD_SIZE", "3"},
                        {"LOCAL_RANK", "0"},
                        {"LOCAL_WORLD_SIZE", "1"},
                        {"GROUP_RANK", "1"},
                        {"GROUP_WORLD_SIZE", "2"},
                        {"ROLE_RANK", "2"},
                        {"ROLE_WORLD_SIZE", "3"},
                        {"ROLE_NAME", "trainer"},
                        {"TORCHELASTIC_RUN_ID", "ddp-trainer"},
                        {"TORCHELASTIC_RESTART_COUNT", "1"},
                        {"TORCHELASTIC_MAX_RESTARTS", "4"}};
  CHECK(env == expected);
  const EnvMap env1 = framework_environment(plan, *plan.find_task("trainer", 1), {}, a);
  CHECK(env1.at("LOCAL_RANK") == "1");
  CHECK(env1.at("LOCAL_WORLD_SIZE") == "2");
  CHECK(env1.at("GROUP_RANK") == "0");
  for (const auto& [name, value] : env) {
    const auto& vars = framework_variables(Framework::torch);
    CHECK(std::find(vars.begin(), vars.end(), name) != vars.end());
  }
}

TEST_CASE("tensorflow: TF_CONFIG with a cluster of every tensorflow node", "[core][env][tensorflow]") {
  const Program p = parse_ok(R"(
[program]
name = "ps"
[node.chief]
command = "c"
framework = "tensorflow"
[node.worker]
command = "w"
replicas = 2
framework = "tensorflow"
[node.ps]
command = "p"
framework = "tensorflow"
[node.evaluator]
command = "e"
framework = "tensorflow"
[node.other]
command = "o"
)");
  const Plan plan = plan_ok(p, hosts(1, 8));
  const ResolvedAddresses a = resolve_all(plan);
  const Task& w1 = *plan.find_task("worker", 1);
  const auto config = nlohmann::json::parse(framework_environment(plan, w1, {}, a).at("TF_CONFIG"));
  const nlohmann::json expected_cluster{
      {"chief", {addr(plan, "chief", 0, "tf_server")}},
      {"worker", {addr(plan, "worker", 0, "tf_server"), addr(plan, "worker", 1, "tf_server")}},
      {"ps", {addr(plan, "ps", 0, "tf_server")}}};
  CHECK(config["cluster"] == expected_cluster);  // the evaluator stays out of the cluster
  CHECK(config["task"] == nlohmann::json({{"type", "worker"}, {"index", 1}}));
  const auto eval = nlohmann::json::parse(
      framework_environment(plan, *plan.find_task("evaluator", 0), {}, a).at("TF_CONFIG"));
  CHECK(eval["task"] == nlohmann::json({{"type", "evaluator"}, {"index", 0}}));
  CHECK(eval["cluster"] == expected_cluster);
  CHECK(required_addresses(plan, w1).size() == 4);  // the 4 cluster servers, its own among them
  CHECK(framework_environment(plan, *plan.find_task("other", 0), {}, a).empty());
}

TEST_CASE("jax: coordinator address, process count and id", "[core][env][jax]") {
  const Program p = parse_ok(R"(
[program]
name = "jx"
[node.proc]
command = "p"
replicas = 4
framework = "jax"
)");
  const Plan plan = plan_ok(p, hosts(2, 2));
  const ResolvedAddresses a = resolve_all(plan);
  const EnvMap env = framework_environment(plan, *plan.find_task("proc", 3), {}, a);
  CHECK(env == EnvMap{{"JAX_COORDINATOR_ADDRESS", addr(plan, "proc", 0, "jax_coordinator")},
                      {"JAX_NUM_PROCESSES", "4"},
                      {"JAX_PROCESS_ID", "3"}});
}

TEST_CASE("horovod: ranks, local and cross communicators, gloo rendezvous", "[core][env][horovod]") {
  const Program p = parse_ok(R"(
[program]
name = "hvd"
[node.w]
command = "w"
replicas = 5
framework = "horovod"
)");
  const Plan plan = plan_ok(p, hosts(3, 2));  // fn1: 0,1  fn2: 2,3  fn3: 4
  const ResolvedAddresses a = resolve_all(plan);
  const EnvMap w3 = framework_environment(plan, *plan.find_task("w", 3), {}, a);
  CHECK(w3 == EnvMap{{"HOROVOD_RANK", "3"},
                     {"HOROVOD_SIZE", "5"},
                     {"HOROVOD_LOCAL_RANK", "1"},
                     {"HOROVOD_LOCAL_SIZE", "2"},
                     {"HOROVOD_CROSS_RANK", "1"},
                     {"HOROVOD_CROSS_SIZE", "2"},  // local rank 1 exists on fn1 and fn2 only
                     {"HOROVOD_HOSTNAME", "fn2"},
                     {"HOROVOD_GLOO_RENDEZVOUS_ADDR", "10.0.0.11"},
                     {"HOROVOD_GLOO_RENDEZVOUS_PORT", port_str(plan, "w", 0, "horovod_rendezvous")},
                     {"HOROVOD_CONTROLLER", "gloo"},
                     {"HOROVOD_CPU_OPERATIONS", "gloo"}});
  const EnvMap w4 = framework_environment(plan, *plan.find_task("w", 4), {}, a);
  CHECK(w4.at("HOROVOD_CROSS_RANK") == "2");
  CHECK(w4.at("HOROVOD_CROSS_SIZE") == "3");
  CHECK(w4.at("HOROVOD_LOCAL_SIZE") == "1");
}

TEST_CASE("paddle: trainer id, count and every trainer's endpoint", "[core][env][paddle]") {
  const Program p = parse_ok(R"(
[program]
name = "pd"
[node.trainer]
command = "t"
replicas = 3
framework = "paddle"
)");
  const Plan plan = plan_ok(p, hosts(2, 2));
  const ResolvedAddresses a = resolve_all(plan);
  const EnvMap env = framework_environment(plan, *plan.find_task("trainer", 1), {}, a);
  CHECK(env == EnvMap{{"PADDLE_TRAINER_ID", "1"},
                      {"PADDLE_TRAINERS_NUM", "3"},
                      {"PADDLE_TRAINER_ENDPOINTS", addr(plan, "trainer", 0, "paddle_trainer") + "," +
                                                       addr(plan, "trainer", 1, "paddle_trainer") + "," +
                                                       addr(plan, "trainer", 2, "paddle_trainer")},
                      {"PADDLE_CURRENT_ENDPOINT", addr(plan, "trainer", 1, "paddle_trainer")}});
  CHECK(required_addresses(plan, *plan.find_task("trainer", 1)).size() == 3);
}

TEST_CASE("mpi and none add no framework variables or ports", "[core][env][mpi]") {
  const Program p = parse_ok(R"(
[program]
name = "m"
[node.solver]
command = "s"
replicas = 2
framework = "mpi"
)");
  const Plan plan = plan_ok(p, hosts(1, 2));
  CHECK(framework_environment(plan, plan.tasks[0], {}, ResolvedAddresses{}).empty());
  CHECK(implicit_ports(plan.program.nodes[0]).empty());
  CHECK(required_addresses(plan, plan.tasks[0]).empty());
  CHECK(framework_variables(Framework::mpi).empty());
}

TEST_CASE("implicit ports: one per framework, replica 0 only where one task serves", "[core][env]") {
  NodeSpec n;
  const std::pair<Framework, ImplicitPort> cases[] = {
      {Framework::torch, {"torch_master", true}},        {Framework::jax, {"jax_coordinator", true}},
      {Framework::horovod, {"horovod_rendezvous", true}}, {Framework::tensorflow, {"tf_server", false}},
      {Framework::paddle, {"paddle_trainer", false}}};
  for (const auto& [framework, port] : cases) {
    n.framework.value = framework;
    const auto ports = implicit_ports(n);
    REQUIRE(ports.size() == 1);
    CHECK(ports[0].name == port.name);
    CHECK(ports[0].first_replica_only == port.first_replica_only);
    CHECK(std::find(reserved_port_names().begin(), reserved_port_names().end(), port.name) !=
          reserved_port_names().end());
  }
  n.framework.value = Framework::none;
  CHECK(implicit_ports(n).empty());
}
