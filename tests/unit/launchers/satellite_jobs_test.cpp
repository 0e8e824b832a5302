// Satellite jobs: the sbatch line, sbatch's answer, what the submission
// leaves out of the environment, and the book of pending and granted jobs.
#include <catch2/catch.hpp>

#include "slipway/launch/satellite_jobs.hpp"

using namespace slipway::launch;
using namespace std::chrono_literals;

TEST_CASE("a satellite job asks for one host with one replica's resources, and runs the keeper") {
  SatelliteRequest r;
  r.program = "impala";
  r.node = "trainer";
  r.slipway_path = "/opt/slip way's/bin/slipway";
  r.log_path = "/runs/x/logs/satellite-%j.log";
  r.cpus = 3;
  CHECK(satellite_sbatch_command(r) ==
        std::vector<std::string>{"sbatch", "--parsable", "--job-name=impala:satellite:trainer", "--nodes=1",
                                 "--ntasks=1", "--cpus-per-task=3", "--no-requeue",
                                 "--output=/runs/x/logs/satellite-%j.log",
                                 "--wrap=exec '/opt/slip way'\\''s/bin/slipway' keeper"});
  r.gpus = 2;
  r.mem_mb = 4096;
  r.partition = "gpu";
  r.account = "ml";
  r.qos = "high";
  r.constraint = "a100";
  const auto argv = satellite_sbatch_command(r);
  const std::vector<std::string> tail(argv.begin() + 8, argv.end() - 1);
  CHECK(tail == std::vector<std::string>{"--gres=gpu:2", "--mem=4096M", "--partition=gpu", "--account=ml",
                                         "--qos=high", "--constraint=a100"});
}

TEST_CASE("sbatch --parsable's answer gives the job id") {
  CHECK(parse_job_id("123\n") == "123");
  CHECK(parse_job_id("123;cluster\n") == "123");
  CHECK(parse_job_id("77") == "77");
  CHECK_FALSE(parse_job_id(""));
  CHECK_FALSE(parse_job_id("sbatch: error: Batch job submission failed"));
  CHECK_FALSE(parse_job_id("12x"));
  CHECK_FALSE(parse_job_id("123456789012345678901234"));
}

TEST_CASE("a submission carries none of the allocation's SLURM variables, nor the secret") {
  CHECK(satellite_drops_variable("SLURM_JOB_ID=12"));
  CHECK(satellite_drops_variable("SLURM_NODELIST=fn1"));
  CHECK(satellite_drops_variable("SLIPWAY_TOKEN=secret"));
  CHECK_FALSE(satellite_drops_variable("SLURM_CONF=/etc/slurm/slurm.conf"));
  CHECK_FALSE(satellite_drops_variable("PATH=/usr/bin"));
  CHECK_FALSE(satellite_drops_variable("SLIPWAY_RUN_DIR=/runs/x"));
}

TEST_CASE("the book follows jobs from submission to grant, and times out pending ones") {
  const SatelliteBook::Clock::time_point t0{};
  SatelliteBook book;
  book.submitted("7", "trainer", t0);
  book.submitted("8", "trainer", t0 + 1s);
  book.submitted("9", "actor", t0 + 2s);
  CHECK(book.size() == 3);
  CHECK(book.pending_for("trainer") == 2);
  CHECK(book.newest_pending("trainer") == "8");
  CHECK(book.deadline(60s) == t0 + 60s);
  const SatelliteBook::Job* granted = book.granted("7", "fn2");
  REQUIRE(granted);
  CHECK(granted->node == "trainer");
  CHECK_FALSE(granted->replacement);
  CHECK_FALSE(book.granted("7", "fn3"));   // announced once
  CHECK_FALSE(book.granted("42", "fn3"));  // not ours
  CHECK(book.pending_for("trainer") == 1);
  CHECK(book.deadline(60s) == t0 + 61s);
  book.bind("7", 5);
  REQUIRE(book.of_unit(5));
  CHECK(book.of_unit(5)->host == "fn2");
  CHECK_FALSE(book.of_unit(4));
  const auto expired = book.expired(t0 + 61s, 60s);
  REQUIRE(expired.size() == 1);
  CHECK(expired[0].id == "8");
  CHECK(book.remove("8"));
  CHECK_FALSE(book.remove("8"));
  CHECK(book.ids() == std::vector<std::string>{"7", "9"});
}

TEST_CASE("a replacement is bound to its unit from submission, apart from the node's growth jobs") {
  const SatelliteBook::Clock::time_point t0{};
  SatelliteBook book;
  book.submitted("7", "worker", t0);
  book.submitted_for("8", "worker", 3, t0 + 1s);
  CHECK(book.size() == 2);
  // Growth bookkeeping leaves the replacement alone.
  CHECK(book.pending_for("worker") == 1);
  CHECK(book.newest_pending("worker") == "7");
  REQUIRE(book.of_unit(3));
  CHECK(book.of_unit(3)->id == "8");
  CHECK(book.of_unit(3)->host.empty());  // still pending
  // It times out as any pending job does, under the same wait.
  CHECK(book.deadline(60s) == t0 + 60s);
  auto expired = book.expired(t0 + 61s, 60s);
  REQUIRE(expired.size() == 2);
  CHECK(expired[1].replacement);
  CHECK(expired[1].unit == std::optional<std::size_t>(3));
  const SatelliteBook::Job* granted = book.granted("8", "fn3");
  REQUIRE(granted);
  CHECK(granted->replacement);
  CHECK(granted->unit == std::optional<std::size_t>(3));
  CHECK(book.expired(t0 + 61s, 60s).size() == 1);  // granted: no longer pending
  // A world's lost rank takes over another slot's host: their jobs trade units.
  book.bind("7", 5);
  book.swap_units(3, 5);
  CHECK(book.of_unit(3)->id == "7");
  CHECK(book.of_unit(5)->id == "8");
  book.swap_units(5, 6);
  CHECK_FALSE(book.of_unit(5));
  CHECK(book.of_unit(6)->id == "8");
  CHECK(book.jobs().size() == 2);
}
