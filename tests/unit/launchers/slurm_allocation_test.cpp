// Reading Slurm allocations: host lists, CPU counts, plain and
// heterogeneous jobs.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "slipway/launch/slurm_allocation.hpp"

using namespace slipway::launch;

namespace {
EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}
using Hosts = std::vector<std::string>;
}  // namespace

TEST_CASE("host lists expand ranges, lists and zero padding") {
  CHECK(expand_hostlist("fn1") == Hosts{"fn1"});
  CHECK(expand_hostlist("fn[1-3]") == Hosts{"fn1", "fn2", "fn3"});
  CHECK(expand_hostlist("fn[1-2,5],gpu[08-10]") ==
        Hosts{"fn1", "fn2", "fn5", "gpu08", "gpu09", "gpu10"});
  CHECK(expand_hostlist("a[1-2]-b[1-2]") == Hosts{"a1-b1", "a1-b2", "a2-b1", "a2-b2"});
  CHECK_THROWS_AS(expand_hostlist("fn[1-3"), std::invalid_argument);
  CHECK_THROWS_AS(expand_hostlist("fn[3-1]"), std::invalid_argument);
  CHECK_THROWS_AS(expand_hostlist("fn[x]"), std::invalid_argument);
}

TEST_CASE("CPU counts expand Slurm's run-length form") {
  CHECK(expand_counts("4") == std::vector<std::uint32_t>{4});
  CHECK(expand_counts("4(x3),2") == std::vector<std::uint32_t>{4, 4, 4, 2});
  CHECK_THROWS_AS(expand_counts("4(x3"), std::invalid_argument);
}

TEST_CASE("no job outside an allocation") {
  CHECK_FALSE(read_slurm_job(env_of({})).has_value());
}

TEST_CASE("a plain job becomes one host per node") {
  auto job = read_slurm_job(env_of({{"SLURM_JOB_ID", "42"},
                                    {"SLURM_JOB_NODELIST", "fn[1-3]"},
                                    {"SLURM_JOB_CPUS_PER_NODE", "4(x2),2"},
                                    {"SLURM_JOB_PARTITION", "cpu"},
                                    {"SLURM_MEM_PER_NODE", "4000"}}));
  REQUIRE(job);
  CHECK(job->job_id == "42");
  REQUIRE(job->components.size() == 1);
  CHECK(job->components[0].het_group == -1);
  auto allocation = allocation_of(*job);
  REQUIRE(allocation.hosts.size() == 3);
  CHECK(allocation.hosts[2].name == "fn3");
  CHECK(allocation.hosts[2].cpus == 2);
  CHECK(allocation.hosts[0].mem_mb == 4000);
  CHECK(allocation.hosts[0].partitions == Hosts{"cpu"});
}

TEST_CASE("a heterogeneous job keeps its components and partitions") {
  auto job = read_slurm_job(env_of({{"SLURM_JOB_ID", "7"},
                                    {"SLURM_HET_SIZE", "2"},
                                    {"SLURM_JOB_NODELIST_HET_GROUP_0", "fn1"},
                                    {"SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0", "4"},
                                    {"SLURM_JOB_PARTITION_HET_GROUP_0", "cpu"},
                                    {"SLURM_JOB_NODELIST_HET_GROUP_1", "fn[2-3]"},
                                    {"SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1", "2(x2)"},
                                    {"SLURM_JOB_PARTITION_HET_GROUP_1", "gpu"},
                                    {"SLURM_GPUS_PER_NODE_HET_GROUP_1", "gpu:2"}}));
  REQUIRE(job);
  REQUIRE(job->components.size() == 2);
  CHECK(job->components[1].het_group == 1);
  CHECK(job->components[1].gpus_per_host == 2);
  auto allocation = allocation_of(*job);
  REQUIRE(allocation.hosts.size() == 3);
  CHECK(allocation.hosts[1].partitions == Hosts{"gpu"});
  CHECK(allocation.hosts[1].gpus == 2);
  CHECK(allocation.hosts[0].gpus == 0);
}

TEST_CASE("GPUs per host come from scontrol's per-node GRES lines") {
  const char* detail =
      "JobId=10 JobName=interactive\n"
      "   JOB_GRES=gpu:1\n"
      "     Nodes=fn[4-5] CPU_IDs=3 Mem=0 GRES=gpu:2(IDX:0-1)\n"
      "     Nodes=fn6 CPU_IDs=0 Mem=0 GRES=gpu:tesla:1(IDX:0),nic:1\n"
      "     Nodes=fn1 CPU_IDs=0 Mem=0 GRES=\n";
  auto gpus = gpus_from_scontrol(detail);
  CHECK(gpus == std::map<std::string, std::uint32_t>{{"fn4", 2}, {"fn5", 2}, {"fn6", 1}});
  SlurmJob job{"10", {SlurmComponent{1, "10", "gpu", {"fn4"}, {1}, 0, 0}}};
  apply_gpus(job, gpus);
  CHECK(job.components[0].gpus_per_host == 2);
}

TEST_CASE("a node's address comes from scontrol's node record") {
  const char* detail =
      "NodeName=fn10 Arch=x86_64 CoresPerSocket=1\n"
      "   NodeAddr=10.0.0.10 NodeHostName=fn10 Version=22.05.8\n"
      "NodeName=fn1 Arch=x86_64 CoresPerSocket=1\n"
      "   NodeAddr=10.213.0.11 NodeHostName=fn1 Version=22.05.8\n"
      "NodeName=fn2 CoresPerSocket=1 NodeHostName=fn2 Version=22.05.8\n"
      "JobId=3 JobName=x\n";
  CHECK(node_address_from_scontrol(detail, "fn1") == "10.213.0.11");
  CHECK(node_address_from_scontrol(detail, "fn10") == "10.0.0.10");
  CHECK_FALSE(node_address_from_scontrol(detail, "fn2"));  // no NodeAddr in its record
  CHECK_FALSE(node_address_from_scontrol(detail, "fn3"));
  CHECK(node_address_from_scontrol("NodeName=fn3 NodeAddr=h3 State=IDLE", "fn3") == "h3");
}

TEST_CASE("MaxStepCount is read from slurm.conf or scontrol show config") {
  const char* config =
      "Configuration data as of 2026-11-28T15:00:00\n"
      "MaxJobCount             = 10000\n"
      "MaxStepCount            = 40000\n"
      "MaxTasksPerNode         = 512\n";
  CHECK(max_step_count_from_config(config) == 40000u);
  CHECK(max_step_count_from_config("ClusterName=x\n  maxstepcount=12 # a comment\nMaxTasksPerNode=4\n") == 12u);
  CHECK(max_step_count_from_config("#MaxStepCount=3\nNodeName=fn1 MaxStepCount=7\n") == std::nullopt);
  CHECK(max_step_count_from_config("x\nMaxStepCount = lots\n") == std::nullopt);
  CHECK(max_step_count_from_config("x\nMaxStepCount = 99999999999999999999999\n") == std::nullopt);
  CHECK(max_step_count_from_config("MaxStepCounts=9\n") == std::nullopt);
  CHECK(max_step_count_from_config("") == std::nullopt);
  CHECK(max_step_count_from_config("MaxStepCount=8") == 8u);
  // A file without the line: Slurm's default; no file: nothing to check.
  const std::string path = "/tmp/slipway-unit-slurm-" + std::to_string(::getpid()) + ".conf";
  std::ofstream(path) << "ClusterName=x\n";
  CHECK(max_step_count_of_slurm_conf(path) == kSlurmMaxStepCount);
  std::ofstream(path) << "MaxStepCount=4\n";
  CHECK(max_step_count_of_slurm_conf(path) == 4u);
  std::remove(path.c_str());
  CHECK(max_step_count_of_slurm_conf(path) == std::nullopt);
}
