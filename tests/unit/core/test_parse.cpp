// Parsing valid topologies into the model: every key, [defaults], file
// order, source locations, workdir resolution, load_topology's file errors.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core_test_support.hpp"

using namespace slipway::core;
using slipway::core::test::parse_errors;
using slipway::core::test::parse_ok;

namespace {

const char* kFull = R"([program]
name = "impala"
max_retries = 1

[defaults]
cpus = 2
env = { OMP_NUM_THREADS = 2, SHARED = "from-defaults" }
wrapper = "nice -n 5"
partition = "batch"

[node.replay]
command = ["replay-server", "--size", "1000000"]
ports = ["grpc"]
daemon = true
wrapper = []

[node.learner]
command = "python3 learner.py --lr '0.1'"
replicas = 2
cpus = 4
gpus = 1
mem = "16G"
framework = "torch"
handles = ["replay"]
env = { OMP_NUM_THREADS = "4", DEBUG = true }
max_retries = 3
workdir = "run/learner"
time = "1:30:00"
account = "proj1"
qos = "high"
constraint = "a100"
nodes = 2
ucx = { tls = ["tcp", "sm"], net_devices = "eth0", rndv_thresh = 8192 }
ports = ["stats"]

[node.actor]
command = "python3 actor.py"
replicas = "2:8"
handles = ["replay", "learner"]
type = "exec"
colocate = "acting"
workdir = "/abs/dir/"
)";

std::string env_value(const NodeSpec& n, const std::string& name) {
  for (const auto& e : n.env) {
    if (e.name.value == name) return e.value.value;
  }
  return "<unset>";
}

}  // namespace

TEST_CASE("a full topology parses into the model", "[core][parse]") {
  const Program p = parse_ok(kFull, "/topo/impala.toml");
  CHECK(p.name.value == "impala");
  CHECK(p.max_retries.value == 1u);
  CHECK(p.source_file == "/topo/impala.toml");
  CHECK(p.base_dir == "/topo");
  REQUIRE(p.nodes.size() == 3);

  SECTION("nodes keep the file's order, not alphabetical order") {
    CHECK(p.nodes[0].name.value == "replay");
    CHECK(p.nodes[1].name.value == "learner");
    CHECK(p.nodes[2].name.value == "actor");
  }
  SECTION("replay: argv list, ports, daemon, wrapper cleared, defaults applied") {
    const NodeSpec& n = p.nodes[0];
    CHECK(n.command.value == std::vector<std::string>{"replay-server", "--size", "1000000"});
    REQUIRE(n.ports.size() == 1);
    CHECK(n.ports[0].value == "grpc");
    CHECK(n.daemon.value);
    CHECK(n.wrapper.value.empty());
    CHECK(n.cpus.value == 2u);
    CHECK(n.partition.value == "batch");
    CHECK(n.max_retries.value == 1u);  // from [program]
    CHECK(n.replicas.value == ReplicaRange{1, 1});
    CHECK(n.framework.value == Framework::none);
    CHECK(n.workdir.value == "/topo");
  }
  SECTION("learner: every per-node key") {
    const NodeSpec& n = p.nodes[1];
    CHECK(n.command.value == std::vector<std::string>{"python3", "learner.py", "--lr", "0.1"});
    CHECK(n.wrapper.value == std::vector<std::string>{"nice", "-n", "5"});
    CHECK(n.replicas.value == ReplicaRange{2, 2});
    CHECK(n.cpus.value == 4u);
    CHECK(n.gpus.value == 1u);
    CHECK(n.mem_mb.value == 16384u);
    CHECK(n.framework.value == Framework::torch);
    REQUIRE(n.handles.size() == 1);
    CHECK(n.handles[0].value == "replay");
    CHECK(n.handles_node("replay"));
    CHECK_FALSE(n.handles_node("actor"));
    CHECK(env_value(n, "OMP_NUM_THREADS") == "4");  // the node's value wins
    CHECK(env_value(n, "SHARED") == "from-defaults");
    CHECK(env_value(n, "DEBUG") == "true");
    CHECK(n.max_retries.value == 3u);
    CHECK(n.workdir.value == "/topo/run/learner");
    CHECK(n.time_minutes.value == 90u);
    CHECK(n.account.value == "proj1");
    CHECK(n.qos.value == "high");
    CHECK(n.constraint.value == "a100");
    CHECK(n.hosts.value == 2u);
    CHECK(n.ucx.value.tls == std::optional<std::string>("tcp,sm"));
    CHECK(n.ucx.value.net_devices == std::optional<std::string>("eth0"));
    CHECK(n.ucx.value.rndv_thresh == std::optional<std::string>("8192"));
  }
  SECTION("actor: elastic replicas, colocate, absolute workdir, defaults' env") {
    const NodeSpec& n = p.nodes[2];
    CHECK(n.replicas.value == ReplicaRange{2, 8});
    CHECK(n.replicas.value.elastic());
    CHECK(n.colocate.value == "acting");
    CHECK(n.type.value == NodeType::exec);
    CHECK(n.workdir.value == "/abs/dir");
    CHECK(env_value(n, "OMP_NUM_THREADS") == "2");
    CHECK(n.ucx.value.empty());
  }
  SECTION("values keep their source locations") {
    const NodeSpec& learner = p.nodes[1];
    CHECK(learner.name.where == SourceLocation{17, 7});      // [node.learner]
    CHECK(learner.replicas.where == SourceLocation{19, 12});
    CHECK(learner.handles[0].where == SourceLocation{24, 12});
    CHECK(p.nodes[0].cpus.where == SourceLocation{6, 8});    // taken from [defaults]
    CHECK(p.name.where == SourceLocation{2, 8});
  }
  CHECK(p.find_node("learner") == &p.nodes[1]);
  CHECK(p.find_node("nope") == nullptr);
}

TEST_CASE("a node may handle itself to learn its peers' addresses", "[core][parse]") {
  const Program p = parse_ok(R"(
[program]
name = "peers"
[node.gossip]
command = "gossip"
replicas = 3
ports = ["peer"]
handles = ["gossip"]
)");
  CHECK(p.nodes[0].handles_node("gossip"));
}

TEST_CASE("handles may form cycles", "[core][parse]") {
  parse_ok(R"(
[program]
name = "cycle"
[node.a]
command = "a"
ports = ["p"]
handles = ["b"]
[node.b]
command = "b"
ports = ["p"]
handles = ["a"]
)");
}

TEST_CASE("quoted node names may hold dots and dashes", "[core][parse]") {
  const Program p = parse_ok(R"(
[program]
name = "dots"
[node."learner.v2"]
command = "x"
[node.actor-pool]
command = "y"
)");
  CHECK(p.nodes[0].name.value == "learner.v2");
  CHECK(env_name_part("learner.v2") == "LEARNER_V2");
  CHECK(env_name_part("actor-pool") == "ACTOR_POOL");
}

TEST_CASE("node types exec and courier are known", "[core][parse]") {
  const Program p = parse_ok(R"(
[program]
name = "types"
[node.rpc]
command = "serve"
type = "courier"
[node.client]
command = "call"
handles = ["rpc"]
)");
  CHECK(p.nodes[0].type.value == NodeType::courier);
  CHECK(to_string(NodeType::courier) == "courier");
  CHECK(node_type_from_string("exec") == NodeType::exec);
  CHECK_FALSE(node_type_from_string("Exec").has_value());
}

TEST_CASE("framework names round-trip", "[core][parse]") {
  for (Framework f : {Framework::none, Framework::torch, Framework::tensorflow, Framework::jax,
                      Framework::horovod, Framework::paddle, Framework::mpi}) {
    CHECK(framework_from_string(to_string(f)) == f);
  }
  CHECK_FALSE(framework_from_string("pytorch").has_value());
}

TEST_CASE("a problem in [defaults] is reported once, not once per node", "[core][parse]") {
  const auto errors = parse_errors(R"([program]
name = "d"
[defaults]
cpus = "two"
[node.a]
command = "a"
[node.b]
command = "b"
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "t.toml:4:8: 'cpus' in [defaults] must be an integer, not a string");
}

TEST_CASE("every problem is reported at once, in file order", "[core][parse]") {
  const auto errors = parse_errors(R"([program]
name = "many"
[node.b]
command = "b"
cpus = 0
[node.a]
replcas = 2
handles = ["zzz"]
)");
  REQUIRE(errors.size() == 4);
  CHECK_THAT(errors[0], Catch::StartsWith("t.toml:5:8: 'cpus' in node 'b' must be at least 1"));
  CHECK_THAT(errors[1], Catch::StartsWith("t.toml:6:7: node 'a' has no command"));
  CHECK_THAT(errors[2], Catch::StartsWith("t.toml:7:1: unknown key 'replcas' in node 'a'; did you mean 'replicas'?"));
  CHECK_THAT(errors[3], Catch::StartsWith("t.toml:8:12: handle 'zzz' of node 'a' names no node"));
}

TEST_CASE("integers and booleans in env become strings; defaults' env merges", "[core][parse]") {
  const Program p = parse_ok(R"(
[program]
name = "env"
[defaults]
env = { A = 1, B = "b" }
[node.x]
command = "x"
env = { B = false, C = "c" }
)");
  const auto& env = p.nodes[0].env;
  REQUIRE(env.size() == 3);
  CHECK(env_value(p.nodes[0], "A") == "1");
  CHECK(env_value(p.nodes[0], "B") == "false");
  CHECK(env_value(p.nodes[0], "C") == "c");
}

TEST_CASE("load_topology reads files and names unreadable ones", "[core][parse]") {
  const auto dir = std::filesystem::temp_directory_path() / ("slipway-core-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "ok.toml";
  std::ofstream(file) << "[program]\nname = \"f\"\n[node.a]\ncommand = \"a\"\n";

  const TopologyResult ok = load_topology(file.string());
  REQUIRE(ok.ok());
  CHECK(ok.program->base_dir == dir.string());
  CHECK(ok.program->nodes[0].workdir.value == dir.string());

  const TopologyResult missing = load_topology((dir / "missing.toml").string());
  REQUIRE(missing.diagnostics.size() == 1);
  CHECK(format_diagnostic(missing.diagnostics[0]) ==
        (dir / "missing.toml").string() + ": cannot open: No such file or directory");

  const TopologyResult directory = load_topology(dir.string());
  REQUIRE(directory.diagnostics.size() == 1);
  CHECK(format_diagnostic(directory.diagnostics[0]) == dir.string() + ": cannot open: is a directory");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a topology larger than the bound is refused before parsing", "[core][parse]") {
  std::string huge(17u << 20, '#');
  const TopologyResult r = parse_topology(huge, "huge.toml");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK_THAT(format_diagnostic(r.diagnostics[0]), Catch::StartsWith("huge.toml: is larger than 16 MiB"));
}

TEST_CASE("diagnostics format as FILE:LINE:COL: message", "[core][parse]") {
  CHECK(format_diagnostic({"a.toml", {3, 7}, "bad"}) == "a.toml:3:7: bad");
  CHECK(format_diagnostic({"a.toml", {}, "cannot open: x"}) == "a.toml: cannot open: x");
}

TEST_CASE("elastic tables: a node's keys, then [program.elastic]'s, then the defaults", "[core][parse][elastic]") {
  const Program p = parse_ok(R"(
[program]
name = "e"
elastic = { settle = 2.5 }
[node.actor]
command = "act"
replicas = "2:8"
elastic = { grow = "manual", on_loss = "shrink" }
[node.trainer]
command = "train"
framework = "torch"
replicas = "2:4"
elastic = { settle = 0 }
[node.learner]
command = "learn"
)");
  const auto actor = elastic_settings(p, *p.find_node("actor"));
  CHECK(actor.grow_manual);
  CHECK(actor.settle_ms == 2500);
  CHECK(actor.shrink_on_loss);
  const auto trainer = elastic_settings(p, *p.find_node("trainer"));
  CHECK_FALSE(trainer.grow_manual);
  CHECK(trainer.settle_ms == 0);
  CHECK_FALSE(trainer.shrink_on_loss);
  const auto learner = elastic_settings(p, *p.find_node("learner"));
  CHECK(learner.settle_ms == 2500);
}

TEST_CASE("elastic tables are checked like every key", "[core][parse][elastic]") {
  const auto errors = parse_errors(R"([program]
name = "e"
[node.actor]
command = "act"
replicas = 3
elastic = { grow = "sometimes", settle = -1, setle = 1 }
)");
  REQUIRE(errors.size() == 4);
  CHECK(errors[0] == "t.toml:6:11: 'elastic' in node 'actor' applies to elastic nodes only, but 'replicas' is 3; give replicas = \"MIN:MAX\" or remove the table");
  CHECK(errors[1].find("'elastic.grow' in node 'actor' is 'sometimes', which is not one of auto, manual") != std::string::npos);
  CHECK(errors[2].find("'elastic.settle' in node 'actor' is out of range; give 0 to 600 seconds") != std::string::npos);
  CHECK(errors[3].find("unknown key 'setle' in the elastic table in node 'actor'; did you mean 'settle'?") != std::string::npos);
}

TEST_CASE("satellite keys belong to [program.elastic], also for a program of fixed nodes", "[core][parse][elastic]") {
  const Program p = parse_ok(R"([program]
name = "e"
elastic = { satellites = 4, satellite_wait = 90 }
[node.actor]
command = "act"
replicas = "2:8"
)");
  const auto satellites = satellite_settings(p);
  CHECK(satellites.jobs == 4);
  CHECK(satellites.wait_ms == 90000);
  const Program none = parse_ok(R"([program]
name = "e"
[node.actor]
command = "act"
)");
  CHECK(satellite_settings(none).jobs == 0);
  CHECK(satellite_settings(none).wait_ms == 600000);
  const auto errors = parse_errors(R"([program]
name = "e"
elastic = { satellites = 65 }
[node.actor]
command = "act"
replicas = "2:3"
elastic = { satellites = 1 }
)");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "t.toml:3:26: 'elastic.satellites' in [program] must be a count of jobs, 0 to 64");
  CHECK(errors[1] == "t.toml:7:13: 'elastic.satellites' in node 'actor' belongs to the whole program: set it in [program.elastic]");
  // Satellite jobs replace the lost hosts of fixed nodes too.
  const Program fixed = parse_ok(R"([program]
name = "e"
elastic = { satellites = 2, satellite_wait = 30 }
[node.actor]
command = "act"
replicas = 3
)");
  CHECK(satellite_settings(fixed).jobs == 2);
  CHECK(satellite_settings(fixed).wait_ms == 30000);
}
