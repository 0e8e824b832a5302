// The rendered batch script: header per component, stop and requeue, body.
#include <catch2/catch.hpp>

#include <string>

#include "program_text.hpp"
#include "slipway/jobscripts/batch_script.hpp"

using namespace slipway::jobscripts;

namespace {

const char* kTwoShapes = R"(
[program]
name = "rl"
[node.learner]
command = "l"
cpus = 4
gpus = 1
partition = "gpu"
time = "2:00:00"
[node.actor]
command = "a"
replicas = 3
partition = "cpu"
)";

BatchOptions options() {
  BatchOptions o;
  o.slipway_command = "/opt/slipway/bin/slipway";
  o.topology_path = "/jobs/it's.toml";
  return o;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a heterogeneous job with one component per shape", "[jobscripts][script]") {
  const auto script = render_batch_script(program_from(kTwoShapes), options());
  REQUIRE(script.text);
  const std::string& t = *script.text;
  CHECK(t.starts_with("#!/bin/bash\n"));
  CHECK_THAT(t, Catch::Contains("#SBATCH --job-name=rl\n#SBATCH --signal=B:USR1@120\n"
                                "#SBATCH --no-requeue\n"));
  CHECK_THAT(t, Catch::Contains("# component 0: learner\n#SBATCH --partition=gpu\n"
                                "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=4\n"
                                "#SBATCH --gpus-per-task=1\n#SBATCH --time=2:00:00\n"
                                "#SBATCH hetjob\n# component 1: actor x3\n"
                                "#SBATCH --partition=cpu\n#SBATCH --ntasks=3\n"));
  CHECK(count(t, "#SBATCH hetjob") == 1);
  CHECK(count(t, "#SBATCH --time=2:00:00") == 2);
}

TEST_CASE("the body runs slipway launch on the topology", "[jobscripts][script]") {
  const auto script = render_batch_script(program_from(kTwoShapes), options());
  REQUIRE(script.text);
  const std::string& t = *script.text;
  CHECK_THAT(t, Catch::Contains("slipway='/opt/slipway/bin/slipway'\n"));
  CHECK_THAT(t, Catch::Contains("topology='/jobs/it'\\''s.toml'\n"));
  CHECK_THAT(t, Catch::Contains("requeue=0\n"));
  CHECK_THAT(t, Catch::Contains("\"$slipway\" launch \"$topology\" &\n"));
  CHECK_THAT(t, Catch::Contains("trap on_warning USR1\n"));
  CHECK_THAT(t, Catch::Contains("trap on_terminate TERM\n"));
  CHECK(t.find("{{") == std::string::npos);
}

TEST_CASE("the body requeues the run's own job, an array task by its array id", "[jobscripts][script]") {
  const auto script = render_batch_script(program_from(kTwoShapes), options());
  REQUIRE(script.text);
  const std::string& t = *script.text;
  CHECK_THAT(t, Catch::Contains("job=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\n"));
  CHECK_THAT(t, Catch::Contains("scontrol requeue \"$job\""));
  CHECK(t.find("requeue \"$SLURM_JOB_ID\"") == std::string::npos);
  // SIGUSR1 reaches the batch shell alone (B:): it is passed on as it came.
  CHECK_THAT(t, Catch::Contains("kill -USR1 \"$launcher\""));
}

TEST_CASE("an array job: one #SBATCH --array line", "[jobscripts][script][array]") {
  auto o = options();
  o.array = "0-2%2";
  const auto script = render_batch_script(
      program_from("[program]\nname = \"one\"\n[node.a]\ncommand = \"a\"\nreplicas = 2\n"), o);
  REQUIRE(script.text);
  CHECK_THAT(*script.text, Catch::Contains("#SBATCH --no-requeue\n# Job array: each task runs"));
  CHECK_THAT(*script.text, Catch::Contains("SLIPWAY_ARRAY_TASK=$SLURM_ARRAY_TASK_ID"));
  CHECK(count(*script.text, "#SBATCH --array=0-2%2\n") == 1);
  CHECK(render_batch_script(program_from(kTwoShapes), options()).text->find("--array") ==
        std::string::npos);
}

TEST_CASE("a heterogeneous program cannot be an array", "[jobscripts][script][array]") {
  auto o = options();
  o.array = "0-2";
  const auto script = render_batch_script(program_from(kTwoShapes), o);
  CHECK_FALSE(script.text);
  CHECK_THAT(script.error, Catch::Contains("heterogeneous job (2 components"));
  CHECK_THAT(script.error, Catch::Contains("cannot make one a job array"));
}

TEST_CASE("array ranges as sbatch writes them", "[jobscripts][array]") {
  for (const char* good : {"0", "0-2", "1,3,5", "0-20:4", "0-9%2", "1-3,7,10-20:5%3", "999999999"}) {
    INFO(good);
    CHECK(array_range_error(good).empty());
  }
  for (const char* bad : {"", "-1", "0-", "0--2", "a-b", "0-2%", "%2", "0,,1", "0-2:", "0 -2", "1,",
                          "0-2%2%2", "1234567890", "0;rm"}) {
    INFO(bad);
    CHECK_THAT(array_range_error(bad), Catch::Contains("array range"));
  }
  CHECK_THAT(array_range_error(std::string(1001, '1')), Catch::Contains("1 to 1000 characters"));
}

TEST_CASE("a single shape is a plain job", "[jobscripts][script]") {
  const auto script = render_batch_script(
      program_from("[program]\nname = \"one\"\n[node.a]\ncommand = \"a\"\nreplicas = 2\n"), options());
  REQUIRE(script.text);
  CHECK(script.text->find("hetjob") == std::string::npos);
  CHECK(script.text->find("--time") == std::string::npos);
  CHECK_THAT(*script.text, Catch::Contains("#SBATCH --ntasks=2\n"));
}

TEST_CASE("requeue and grace are asked for", "[jobscripts][script]") {
  auto o = options();
  o.requeue = true;
  o.max_requeues = 3;
  o.grace_seconds = 300;
  const auto script = render_batch_script(program_from(kTwoShapes), o);
  REQUIRE(script.text);
  CHECK_THAT(*script.text, Catch::Contains("#SBATCH --signal=B:USR1@300\n#SBATCH --requeue\n"
                                              "#SBATCH --open-mode=append\n"));
  CHECK_THAT(*script.text, Catch::Contains("requeue=1\nmax_requeues=3\n"));
}

TEST_CASE("the script is the same every time", "[jobscripts][script]") {
  const auto program = program_from(kTwoShapes);
  CHECK(*render_batch_script(program, options()).text == *render_batch_script(program, options()).text);
}

TEST_CASE("bad grace and unwritable values are errors", "[jobscripts][script]") {
  auto o = options();
  o.grace_seconds = 0;
  auto script = render_batch_script(program_from(kTwoShapes), o);
  CHECK_FALSE(script.text);
  CHECK_THAT(script.error, Catch::Contains("grace period"));

  script = render_batch_script(program_from(R"(
[program]
name = "p"
[node.a]
command = "a"
constraint = "big'mem"
)"),
                               options());
  CHECK_FALSE(script.text);
  CHECK_THAT(script.error, Catch::Contains("node 'a': constraint 'big'mem'"));
}

TEST_CASE("shell quoting", "[jobscripts][script]") {
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
}
