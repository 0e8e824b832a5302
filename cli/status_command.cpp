// `slipway status [PROGRAM]`: a running program's tasks, like squeue.
#include <chrono>
#include <cstdio>
#include <map>

#include "slipway/core/contract.hpp"
#include "slipway/core/live_plan.hpp"
#include "slipway/launch/run_counters.hpp"

#include "commands.hpp"
#include "option_checks.hpp"
#include "running_program.hpp"

namespace slipway::cli {
namespace {

std::string uptime(const rendezvous::MemberRecord& m) {
  using namespace std::chrono;
  std::int64_t end = m.ended_unix_ms
                         ? m.ended_unix_ms
                         : duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::int64_t s = std::max<std::int64_t>(0, (end - m.joined_unix_ms) / 1000);
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return text;
}

std::string state_of(const rendezvous::MemberRecord& m) {
  switch (m.state) {
    case rendezvous::MemberState::alive: return "running";
    case rendezvous::MemberState::left: return m.exit_status == 0 ? "done" : "exited(" + std::to_string(m.exit_status) + ")";
    case rendezvous::MemberState::failed: return "failed";
  }
  return "unknown";
}

}  // namespace

void register_status(CLI::App& app, CommandContext& ctx) {
  auto which = std::make_shared<std::string>();
  auto run_root = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("status", "Show the tasks of a running program");
  cmd->add_option("PROGRAM", *which,
                  "Program name or run directory (default: inside a task, its program; else the newest run)");
  add_run_root_option(cmd, *run_root);
  cmd->add_flag("--json", *json,
                "Print the program's status document instead (JSON, schema 1 of docs/observe.md: nodes,\n"
                "tasks, replay tables, the newest events), as the launcher published it (at most 1 s old)");
  cmd->footer("First the run directory and its resume count (docs/resume.md), then the tasks.\n"
              "Columns: NODE REPLICA HOST ATTEMPT EPOCH STATE UPTIME PID. EPOCH is the epoch\n"
              "of the node's world (- for a node in none); STATE is running, done,\n"
              "exited(N) or failed (its agent vanished). Then, for elastic nodes: NODE,\n"
              "SIZE (replicas live now), MIN:MAX, EPOCH and the live REPLICAS.");
  cmd->callback([&ctx, which, run_root, json] {
    try {
      std::string run_dir;
      auto client = connect_to_program(*which, *run_root, {}, &run_dir);
      if (*json) {
        auto document = client->get(std::string(core::keys::kObserveStatus));
        if (!document) {
          std::fprintf(stderr, "slipway status: the program has published no status yet (it is starting); try again\n");
          ctx.exit_code = 1;
          return;
        }
        std::printf("%s\n", document->c_str());
        ctx.exit_code = 0;
        return;
      }
      auto snapshot = client->members();
      if (!run_dir.empty()) {
        const auto resume = launch::read_resume(run_dir);
        std::printf("run %s (resume %u)\n\n", run_dir.c_str(), resume ? resume->resume : 0u);
      }
      std::map<std::string, std::string> epochs;  // by node: its world's epoch now
      std::map<std::string, core::LiveRecord> elastic;  // by node: its live/NODE
      for (const auto& m : snapshot.members) {
        if (epochs.count(m.identity.node)) continue;
        epochs[m.identity.node] = client->get(core::keys::epoch(m.identity.node)).value_or("-");
        if (auto live = client->get(core::keys::live(m.identity.node))) {
          if (auto record = core::parse_live_record(*live, core::kReplicaIndexLimit)) {
            elastic[m.identity.node] = std::move(*record);
          }
        }
      }
      std::printf("%-16s %-7s %-16s %-7s %-5s %-12s %-9s %s\n", "NODE", "REPLICA", "HOST",
                  "ATTEMPT", "EPOCH", "STATE", "UPTIME", "PID");
      for (const auto& m : snapshot.members) {
        std::printf("%-16s %-7u %-16s %-7u %-5s %-12s %-9s %lld\n", m.identity.node.c_str(),
                    m.identity.replica, m.identity.host.c_str(), m.identity.attempt,
                    epochs[m.identity.node].c_str(), state_of(m).c_str(), uptime(m).c_str(),
                    static_cast<long long>(m.identity.pid));
      }
      if (!elastic.empty()) {
        std::printf("\n%-16s %-5s %-11s %-5s %s\n", "ELASTIC NODE", "SIZE", "MIN:MAX", "EPOCH", "REPLICAS");
        for (const auto& [node, record] : elastic) {
          std::printf("%-16s %-5zu %-11s %-5s %s\n", node.c_str(), record.replicas.size(),
                      (std::to_string(record.min) + ":" + std::to_string(record.max)).c_str(),
                      epochs[node].c_str(), core::format_replica_list(record.replicas).c_str());
        }
      }
      if (snapshot.stopping) std::printf("program stopping: %s\n", snapshot.stop_reason.c_str());
      ctx.exit_code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway status: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
