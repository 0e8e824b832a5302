// `slipway top [PROGRAM]`: a running program's live view in the terminal,
// like `flux top`: its nodes, replay tables and newest events, from the
// status document the launcher publishes (one get per interval), redrawn
// when it changes or a key is pressed. --once prints one frame as text.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/launch/run_history.hpp"
#include "top_keys.hpp"
#include "top_model.hpp"
#include "top_screen.hpp"
#include "top_source.hpp"
#include "top_view.hpp"


namespace slipway::cli {
namespace {

using namespace std::chrono;
using top::Fetch;

struct TopOptions {
  std::string which;
  std::string run_root;
  std::string file;
  std::string node;
  double interval = 1.0;
  bool once = false;
};

// How long --once waits for a launcher that has not published yet.
constexpr auto kFirstDocumentWait = seconds(3);

long local_utc_offset() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  return local.tm_gmtoff;
}

std::string node_names(const top::Status& status) {
  std::string names;
  for (const auto& n : status.nodes) names += (names.empty() ? "" : ", ") + n.name;
  return names;
}

// --once: the first document, printed. Exit status 0, or 1 with a message.
int print_once(top::StatusSource& source, const TopOptions& options) {
  const auto deadline = steady_clock::now() + kFirstDocumentWait;
  Fetch fetch = source.fetch();
  while (fetch.kind == Fetch::Kind::missing && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
    fetch = source.fetch();
  }
  if (fetch.kind == Fetch::Kind::gone) {
    std::printf("%s\n", fetch.message.c_str());
    return 0;
  }
  if (fetch.kind == Fetch::Kind::missing) throw std::runtime_error(fetch.message);
  top::Model model;
  model.update(std::move(fetch.text));
  top::ViewState view;
  view.filter = options.node;
  if (!options.node.empty() && !top::filtered_node(model.status(), view)) {
    throw std::runtime_error("no node '" + options.node + "' in " + model.status().program + " (its nodes: " +
                             node_names(model.status()) + ")");
  }
  for (const auto& line : top::render(model, view, 0, 0, local_utc_offset())) std::printf("%s\n", line.text.c_str());
  return 0;
}

// Runs $PAGER (or `less +G`) on `path` in the terminal; waits for it.
void page(const std::string& path) {
  base::SpawnOptions spawn;
  const char* pager = std::getenv("PAGER");
  if (pager && *pager) spawn.argv = {"/bin/sh", "-c", std::string(pager) + " \"$1\"", "sh", path};
  else spawn.argv = {"less", "+G", path};
  spawn.env = base::this_environment();
  spawn.new_process_group = false;  // the pager reads the terminal: it stays in the foreground group
  const pid_t pid = base::spawn(spawn);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// The live view. Exit status: 0 on q, Ctrl-C or a key after the program
// ended; 128 + the signal on SIGTERM or SIGHUP.
int live(top::StatusSource& source, const TopOptions& options) {
  top::Screen screen;
  top::Model model;
  top::ViewState view;
  view.filter = options.node;
  const long offset = local_utc_offset();
  const auto interval = duration_cast<steady_clock::duration>(duration<double>(options.interval));
  auto next_fetch = steady_clock::now();
  auto last_new = next_fetch;
  bool gone = false;
  bool dirty = true;
  while (true) {
    auto now = steady_clock::now();
    if (!gone && now >= next_fetch) {
      next_fetch = now + interval;
      Fetch fetch = source.fetch();
      switch (fetch.kind) {
        case Fetch::Kind::document:
          try {
            if (model.update(std::move(fetch.text))) {
              ++view.heartbeat;
              last_new = now;
              view.waiting.clear();
              dirty = true;
            }
          } catch (const std::exception& e) {
            dirty = dirty || view.banner != e.what();
            view.banner = e.what();
          }
          break;
        case Fetch::Kind::missing:
          dirty = dirty || view.waiting != fetch.message;
          view.waiting = fetch.message;
          break;
        case Fetch::Kind::gone:
          gone = true;
          view.waiting.clear();
          view.banner = fetch.message + ": press any key";
          dirty = true;
          break;
      }
    }
    if (model.has_status() && !gone) {
      // No new document for 5 s, or for 3 intervals when longer: say so.
      const auto stale = duration_cast<seconds>(now - last_new).count();
      const auto stale_after = std::max<std::int64_t>(5, static_cast<std::int64_t>(3 * options.interval));
      const std::int64_t shown = stale >= stale_after ? stale : 0;
      dirty = dirty || shown != view.stale_seconds;
      view.stale_seconds = shown;
    }
    if (dirty) {
      screen.paint(top::render(model, view, screen.rows(), screen.cols(), offset));
      dirty = false;
    }
    const auto wait = gone ? milliseconds(-1)  // until a key
                           : std::max(milliseconds(0), duration_cast<milliseconds>(next_fetch - steady_clock::now()));
    auto code = screen.next_key(wait);
    if (screen.signal() == SIGINT) return 0;
    if (screen.signal()) return 128 + screen.signal();
    if (screen.resized()) dirty = true;
    if (!code) continue;
    if (gone) return 0;
    const auto key = top::Screen::key_for(*code);
    if (!key) continue;
    if (!view.banner.empty()) view.banner.clear();
    const std::size_t page_rows = std::max<std::size_t>(screen.rows() / 2, 1);
    const top::Action action = top::handle_key(*key, model, view, page_rows);
    dirty = true;
    switch (action.kind) {
      case top::Action::Kind::redraw: break;
      case top::Action::Kind::quit: return 0;
      case top::Action::Kind::find:
        if (auto text = screen.prompt("node: ")) top::find_node(*text, model, view);
        if (screen.signal() == SIGINT) return 0;
        if (screen.signal()) return 128 + screen.signal();
        break;
      case top::Action::Kind::open_log: {
        const std::string run = !source.run_directory().empty() ? source.run_directory() : model.status().run;
        const std::string path = launch::task_log_path(run, action.task);
        std::error_code ec;
        if (run.empty() || !std::filesystem::is_regular_file(path, ec)) {
          view.banner = "no log of " + action.task + " yet (a task's log begins with its first output): " + path;
          break;
        }
        try {
          top::Screen::Suspend suspended(screen);
          page(path);
        } catch (const std::exception& e) {
          view.banner = std::string("cannot run the pager: ") + e.what() + " (set PAGER)";
        }
        break;
      }
    }
  }
}

}  // namespace

void register_top(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<TopOptions>();
  auto* cmd = app.add_subcommand("top", "Show a running program live: nodes, replay tables, events");
  cmd->add_option("PROGRAM", options->which,
                  "Program name or run directory (default: inside a task, its program; else the newest run)");
  add_run_root_option(cmd, options->run_root);
  cmd->add_option("-i,--interval", options->interval, "Seconds between updates (default 1)")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("-n,--node", options->node, "Show this node and its tasks only");
  cmd->add_flag("-1,--once", options->once, "Print one frame as text to standard output and exit");
  cmd->add_option("--file", options->file,
                  "Read the status document from FILE (as `slipway status --json` writes it) instead of a program");
  cmd->footer(
      "Reads the status document the program's launcher publishes each second (docs/observe.md):\n"
      "locally or from a Slurm job, from the login node, as `slipway status` does.\n"
      "Header: program, state, resume count, uptime, rendezvous members, an update mark.\n"
      "Nodes: NODE TYPE LIVE MIN:MAX RUN PEND BACK FAIL DONE RESTARTS EPOCH CPU% RSS LAST EXIT\n"
      "  (LIVE: live replicas; DONE: succeeded or stopped; CPU% of one core, from two updates).\n"
      "Tasks of one node: REPLICA HOST STATE ATTEMPT EPOCH CPU% RSS LAST EXIT.\n"
      "Replay: TASK TABLE SIZE(/MAX) INSERTS/s SAMPLES/s PARKED (inserts/samples waiting).\n"
      "Keys: j/k or arrows move, s sorts (node order, restarts, cpu, rss), f shows the\n"
      "selected node's tasks (f again: every node), / finds a node by name, Enter or l\n"
      "opens a node, then the selected task's log ($PAGER, else less +G), h or Esc goes\n"
      "back, q quits.\n"
      "Exit status: 0 on q or Ctrl-C and when the program ended; 1 when it cannot be\n"
      "reached or publishes no status.");
  cmd->callback([&ctx, options] {
    try {
      auto source = options->file.empty() ? top::program_status(options->which, options->run_root)
                                           : top::file_status(options->file);
      ctx.exit_code = options->once ? print_once(*source, *options) : live(*source, *options);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway top: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
