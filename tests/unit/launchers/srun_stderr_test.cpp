// What a step's srun writes on stderr is passed on line by line, and
// Slurm's own lines are kept (bounded) to explain a step that never ran.
#include <catch2/catch.hpp>

#include <string>

#include "slipway/launch/srun_stderr.hpp"

using slipway::launch::SrunMessages;

TEST_CASE("srun's lines are passed on whole and Slurm's are kept") {
  SrunMessages m;
  CHECK(m.feed("worker.0: a task's line\nsrun: error: task 0 launch") == "worker.0: a task's line\n");
  CHECK(m.feed(" failed: Plugin initialization failed\nslurmstepd: error: x") ==
        "srun: error: task 0 launch failed: Plugin initialization failed\n");
  CHECK(m.finish() == "slurmstepd: error: x\n");
  CHECK(m.finish().empty());
  CHECK(m.slurm_lines() ==
        "srun: error: task 0 launch failed: Plugin initialization failed; slurmstepd: error: x");
}

TEST_CASE("what is kept of Slurm's lines is bounded") {
  SrunMessages m;
  for (int i = 0; i < 10; ++i) m.feed("srun: line " + std::to_string(i) + "\n");
  CHECK(m.slurm_lines() == "srun: line 6; srun: line 7; srun: line 8; srun: line 9");
  SrunMessages longer;
  longer.feed("srun: " + std::string(5000, 'x') + "\n");
  CHECK(longer.slurm_lines().size() == SrunMessages::kKeptLineBytes);
  // A line with no end is passed on in pieces, never held without bound.
  SrunMessages endless;
  std::string out = endless.feed(std::string(SrunMessages::kMaxLineBytes + 1, 'y'));
  CHECK(out.size() == SrunMessages::kMaxLineBytes + 2);
}
