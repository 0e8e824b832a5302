// `slipway runs [PROGRAM] [--prune]`: the runs kept under the run root, like
// sacct (run, program, start, state, exit, the task that failed it: read
// from each run's outcome.json), and their pruning by the retention rule
// (docs/runs.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <memory>
#include <string>

#include "commands.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_history.hpp"

namespace slipway::cli {
namespace {

struct RunsOptions {
  std::string program;
  std::string run_root;
  bool prune = false;
  bool dry_run = false;
  std::size_t keep = 10;
  std::string max_age = "7d";
};

std::string local_time(std::time_t t) {
  char text[32];
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return text;
}

// "7d", "12h", "30m", "90s" or plain seconds; nothing when malformed.
std::optional<std::chrono::seconds> parse_age(const std::string& text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || text.size() - digits > 1) return std::nullopt;
  const long long n = std::stoll(text.substr(0, digits));
  const char unit = digits < text.size() ? text[digits] : 's';
  long long scale = 0;
  switch (unit) {
    case 's': scale = 1; break;
    case 'm': scale = 60; break;
    case 'h': scale = 3600; break;
    case 'd': scale = 86400; break;
    default: return std::nullopt;
  }
  if (n > 100LL * 365 * 86400 / scale) return std::nullopt;
  return std::chrono::seconds(n * scale);
}

// The FAILED column: who failed the run (outcome.json), at most this wide.
constexpr std::size_t kFailedWidth = 64;

std::string failed_column(const launch::RunRecord& run) {
  if (run.failed.empty()) return "-";
  if (run.failed.size() <= kFailedWidth) return run.failed;
  return run.failed.substr(0, kFailedWidth - 3) + "...";
}

void print_runs(const std::vector<launch::RunRecord>& runs) {
  std::size_t name_width = 3, program_width = 7;
  for (const auto& r : runs) {
    name_width = std::max(name_width, r.name.size());
    program_width = std::max(program_width, r.program.size());
  }
  std::printf("%-*s  %-*s  %-19s  %-7s  %-7s  %-4s  %s\n", static_cast<int>(name_width), "RUN",
              static_cast<int>(program_width), "PROGRAM", "START", "RESUMES", "STATE", "EXIT", "FAILED");
  for (const auto& r : runs) {
    std::printf("%-*s  %-*s  %-19s  %-7u  %-7s  %-4s  %s\n", static_cast<int>(name_width), r.name.c_str(),
                static_cast<int>(program_width), r.program.c_str(), local_time(r.started).c_str(), r.resumes,
                launch::to_string(r.state), r.exit_code ? std::to_string(*r.exit_code).c_str() : "-",
                failed_column(r).c_str());
  }
}

int run_runs(const RunsOptions& o) {
  const std::string root = o.run_root.empty() ? launch::default_run_root() : o.run_root;
  std::vector<launch::RunRecord> runs;
  for (auto& r : launch::list_runs(root)) {
    if (o.program.empty() || r.program == o.program) runs.push_back(std::move(r));
  }
  if (!o.prune) {
    if (runs.empty()) {
      std::fprintf(stderr, "slipway runs: no runs%s under %s\n",
                   o.program.empty() ? "" : (" of program '" + o.program + "'").c_str(), root.c_str());
      return 0;
    }
    print_runs(runs);
    return 0;
  }
  const auto age = parse_age(o.max_age);
  if (!age) {
    std::fprintf(stderr, "slipway runs: --max-age '%s' is not an age; write e.g. 7d, 12h, 30m or 90s\n",
                 o.max_age.c_str());
    return 2;
  }
  const auto doomed = launch::runs_to_prune(runs, launch::RetentionRule{o.keep, *age}, std::time(nullptr));
  int status = 0;
  for (const auto& r : doomed) {
    if (o.dry_run) {
      std::printf("would remove %s (%s)\n", r.path.c_str(), launch::to_string(r.state));
      continue;
    }
    std::string error;
    if (launch::remove_run(root, r, &error)) {
      std::printf("removed %s (%s)\n", r.path.c_str(), launch::to_string(r.state));
    } else {
      std::fprintf(stderr, "slipway runs: %s\n", error.c_str());
      status = 1;
    }
  }
  std::fprintf(stderr, "slipway runs: %s %zu of %zu run%s under %s (keeping the %zu newest of each "
               "program and none older than %s; never a running one)\n",
               o.dry_run ? "would prune" : "pruned", doomed.size(), runs.size(), runs.size() == 1 ? "" : "s",
               root.c_str(), o.keep, o.max_age.c_str());
  return status;
}

}  // namespace

void register_runs(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<RunsOptions>();
  auto* cmd = app.add_subcommand("runs", "List the runs kept under the run root, or prune them");
  cmd->add_option("PROGRAM", o->program, "Only the runs of this program");
  cmd->add_option("--run-root", o->run_root,
                  "Where run directories are (default $SLIPWAY_RUN_ROOT or ~/.slipway/runs)")
      ->type_name("DIR");
  auto* prune = cmd->add_flag("--prune", o->prune, "Remove the runs the retention rule does not keep");
  cmd->add_option("--keep", o->keep, "With --prune: runs of each program to keep (default 10)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
      ->needs(prune);
  cmd->add_option("--max-age", o->max_age,
                  "With --prune: remove runs that started longer ago than this (default 7d;\n"
                  "e.g. 12h, 30m, 90s)")
      ->type_name("AGE")
      ->needs(prune);
  cmd->add_flag("--dry-run", o->dry_run, "With --prune: list what would be removed, remove nothing")
      ->needs(prune);
  cmd->footer(
      "Columns: RUN (the run directory's name), PROGRAM, START (local time), RESUMES (times resumed),\n"
      "STATE, EXIT, FAILED (the task that failed the run, from its outcome.json; - for none).\n"
      "STATE is running, done (exit 0), failed (EXIT says how: 1 a task failed, 2 invalid\n"
      "topology, 128+N stopped by signal N) or lost (no exit status and no launcher: it was\n"
      "killed, or ran on a host that is gone).\n"
      "Retention rule (--prune): a run is removed when it is not running and either is not\n"
      "among the --keep newest of its program or started more than --max-age ago; a lost\n"
      "run whose files changed within --max-age is kept. See docs/runs.md.\n"
      "Exit status: 0 listed or pruned, 1 a run could not be removed, 2 bad option.");
  cmd->callback([o, &ctx] { ctx.exit_code = run_runs(*o); });
}

}  // namespace slipway::cli
