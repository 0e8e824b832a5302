// `slipway sbatch FILE [--dry-run]`: writes the batch script of a program
// (jobscripts/: one heterogeneous-job component per resource shape, graceful
// stop before the time limit, requeue on request, a job array of one run per
// task on request, body `slipway launch FILE`)
// and submits it with sbatch, or prints it with --dry-run. This is also where
// `sbatch --program=FILE` lands (the SPANK plugin execs it).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "program_loading.hpp"
#include "option_checks.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/jobscripts/batch_script.hpp"
#include "slipway/jobscripts/submit.hpp"

namespace slipway::cli {
namespace {

struct SbatchOptions {
  std::string path;
  bool dry_run = false;
  std::vector<std::string> sbatch_args;
  bool requeue = false;
  std::uint32_t max_requeues = 10;
  std::uint32_t grace_seconds = 120;
  std::string array;
};

// The slipway the batch script runs: $SLIPWAY_BIN, else this executable.
std::string slipway_command() {
  if (const char* bin = std::getenv(core::env::kBin); bin != nullptr && *bin != '\0') {
    return bin;
  }
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("slipway") : self.string();
}

std::string quoted_args(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    out += " " + jobscripts::shell_quote(a);
  }
  return out;
}

int run_sbatch(const SbatchOptions& o) {
  const auto program = load_program(o.path);
  if (!program) return 2;
  jobscripts::BatchOptions options;
  options.slipway_command = slipway_command();
  options.topology_path = std::filesystem::absolute(o.path).lexically_normal().string();
  options.requeue = o.requeue;
  options.max_requeues = o.max_requeues;
  options.grace_seconds = o.grace_seconds;
  options.array = o.array;
  const jobscripts::BatchScript script = jobscripts::render_batch_script(*program, options);
  if (!script.text) {
    std::fprintf(stderr, "%s: %s\n", o.path.c_str(), script.error.c_str());
    return 2;
  }
  if (o.dry_run) {
    std::fputs(script.text->c_str(), stdout);
    std::fprintf(stderr, "slipway sbatch: --dry-run: would run: sbatch%s < (this script)\n",
                 quoted_args(o.sbatch_args).c_str());
    return 0;
  }
  std::fflush(stdout);
  try {
    return jobscripts::submit_batch_script(*script.text, o.sbatch_args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway sbatch: cannot run sbatch: %s (is Slurm's client installed and in PATH?)\n",
                 e.what());
    return 1;
  }
}

}  // namespace

void register_sbatch(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<SbatchOptions>();
  auto* cmd = app.add_subcommand(
      "sbatch", "Write the Slurm batch script of a topology and submit it (or print it)");
  cmd->add_option("FILE", o->path, "Topology file (TOML); see docs/topology.md")
      ->required()
      ->check(reread_file("sbatch"));
  cmd->add_flag("--dry-run", o->dry_run, "Print the batch script instead of submitting it");
  cmd->add_option("--sbatch-arg", o->sbatch_args,
                  "One argument for sbatch's command line (repeatable, in order), e.g. "
                  "--sbatch-arg=--account=proj; it overrides the script's #SBATCH lines")
      ->type_name("ARG")
      ->allow_extra_args(false);
  cmd->add_flag("--requeue", o->requeue,
                "When the time limit is near, stop the program (after its checkpoint notice) and "
                "requeue the job, which resumes the same run; also lets Slurm requeue it after a "
                "node failure or a preemption");
  cmd->add_option("--max-requeues", o->max_requeues,
                  "With --requeue: how many times at most (default 10)")
      ->type_name("N")
      ->check(CLI::Range(0u, 100000u));
  cmd->add_option("--grace", o->grace_seconds,
                  "Seconds before the time limit at which the program gets its checkpoint notice "
                  "and is stopped (default 120)")
      ->type_name("SECONDS")
      ->check(CLI::Range(1u, jobscripts::kMaxGraceSeconds));
  cmd->add_option("--array", o->array,
                  "Submit a job array: each task (SLIPWAY_ARRAY_TASK in its tasks) runs the "
                  "program as a run of its own, requeued by its own id; RANGE as sbatch's, "
                  "e.g. 0-9 or 0-9%2")
      ->type_name("RANGE")
      ->check([](const std::string& range) { return jobscripts::array_range_error(range); });
  cmd->footer(
      "The job has one component per resource shape (partition, constraint, account,\n"
      "qos, cpus, gpus, memory), as a heterogeneous job when there are several; elastic\n"
      "nodes count at their maximum. See docs/slurm.md.\n"
      "Exit status: sbatch's; 2 invalid topology or options; 1 sbatch could not be run.");
  cmd->callback([o, &ctx] { ctx.exit_code = run_sbatch(*o); });
}

}  // namespace slipway::cli
