// `slipway events [PROGRAM] [-f]`: a run's event record (RUN/events.jsonl,
// docs/observe.md) as readable lines; -f follows it until the run ends.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "commands.hpp"
#include "option_checks.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_history.hpp"
#include "slipway/observe/event_log.hpp"

namespace slipway::cli {
namespace {

struct EventsOptions {
  std::string which;
  std::string run_root;
  std::string node;
  bool follow = false;
  bool json = false;
  std::size_t last = 0;
};

constexpr std::size_t kMaxEvents = 1'000'000;
constexpr std::uint64_t kMaxRead = 64u << 20;

bool shown(const EventsOptions& o, const observe::Event& e) { return o.node.empty() || e.node == o.node; }

// Prints the events after `after`; returns the newest seq seen.
std::uint64_t print_new(const EventsOptions& o, const std::string& run, std::uint64_t after, bool first_round) {
  auto events = observe::read_events(run, after, kMaxEvents, kMaxRead);
  if (first_round && o.last > 0) {
    std::vector<observe::Event> kept;
    for (auto& e : events) {
      if (shown(o, e)) kept.push_back(std::move(e));
    }
    if (kept.size() > o.last) kept.erase(kept.begin(), kept.end() - static_cast<std::ptrdiff_t>(o.last));
    const std::uint64_t newest = events.empty() ? after : events.back().seq;
    events = std::move(kept);
    for (const auto& e : events) {
      std::fputs(o.json ? observe::to_json_line(e).c_str() : (observe::format_event(e, true) + "\n").c_str(), stdout);
    }
    std::fflush(stdout);
    return newest;
  }
  for (const auto& e : events) {
    if (!shown(o, e)) continue;
    std::fputs(o.json ? observe::to_json_line(e).c_str() : (observe::format_event(e, true) + "\n").c_str(), stdout);
  }
  std::fflush(stdout);
  return events.empty() ? after : events.back().seq;
}

int run_events(const EventsOptions& o) {
  const std::string root = o.run_root.empty() ? launch::default_run_root() : o.run_root;
  std::string error;
  auto run = launch::find_run_directory(root, o.which, &error);
  if (!run) {
    std::fprintf(stderr, "slipway events: %s\n", error.c_str());
    return 1;
  }
  if (!o.json) {
    std::printf("%-24s %-17s %-20s %-7s %-5s %-12s %s\n", "TIME", "KIND", "TASK", "ATTEMPT", "EPOCH", "HOST",
                "CAUSE");
  }
  std::uint64_t seen = print_new(o, *run, 0, true);
  if (!o.follow) return 0;
  bool ended = false;
  for (;;) {
    const std::uint64_t before = seen;
    seen = print_new(o, *run, seen, false);
    if (seen != before) continue;
    if (ended) break;
    ended = launch::run_has_ended(*run);
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return 0;
}

}  // namespace

void register_events(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<EventsOptions>();
  auto* cmd = app.add_subcommand("events", "Print (or follow) the event record of a run");
  cmd->add_option("PROGRAM", o->which,
                  "Program name (its newest run), run directory or run name (default: the newest run)");
  cmd->add_flag("-f,--follow", o->follow, "Keep printing new events until the run ends");
  cmd->add_option("--node", o->node, "Only the events of this node")->type_name("NODE");
  cmd->add_option("-n,--last", o->last, "Only the newest N events (then follow, with -f)")->type_name("N");
  cmd->add_flag("--json", o->json, "Print the record's JSON lines as they are");
  add_run_root_option(cmd, o->run_root);
  cmd->footer(
      "Each line: TIME (UTC), KIND, TASK (NODE.REPLICA, or the node, or - for the whole\n"
      "program), ATTEMPT, EPOCH (of a world), HOST and CAUSE. Kinds: program_start, resume,\n"
      "start, restart, exit, epoch, resize, satellite_request, satellite_grant,\n"
      "satellite_release, satellite_abandon, notice, stop, program_end (docs/observe.md).\n"
      "Exit status: 0 printed, 1 no such run.");
  cmd->callback([o, &ctx] { ctx.exit_code = run_events(*o); });
}

}  // namespace slipway::cli
