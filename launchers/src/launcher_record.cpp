// LauncherLoop, the run's record: events (RUN/events.jsonl, through the
// program observer), the task counters a resume counts on (RUN/counters),
// checkpoint notices published and asked for, and the page's URL said.
#include "launcher_loop.hpp"

#include <signal.h>
#include <chrono>
#include <string>
#include <vector>

#include "slipway/base/local_address.hpp"
#include "slipway/core/checkpoint_notice.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/printable.hpp"
#include "slipway/rendezvous/server.hpp"

namespace slipway::launch {

using std::chrono::milliseconds;

Clock::time_point LauncherLoop::publish_notice(const std::string& reason, bool stop) {
  const auto now = Clock::now();
  const auto deadline = now + notice_window_;
  core::CheckpointNotice notice;
  notice.seq = ++notice_seq_;
  notice.reason = reason;
  notice.stop = stop;
  notice.deadline_unix_ms = std::chrono::duration_cast<milliseconds>(
                                (std::chrono::system_clock::now() + notice_window_).time_since_epoch())
                                .count();
  const std::string text = core::format_notice(notice);
  control_->server().put(std::string(core::keys::kCheckpointNotice), text);
  for (LoopListener* listener : listeners_) listener->notice_published(text);
  record_event("notice", "", reason + (stop ? "; then the program stops" : ""));
  return deadline;
}

void LauncherLoop::on_checkpoint_request() {
  if (supervisor_->stopping()) return;
  const std::string key(core::keys::kCheckpointRequest);
  auto value = control_->server().get(key);
  if (!value) return;
  control_->server().erase(key);  // the same request again is a new one
  constexpr std::string_view kStopWord = "stop ";
  const bool stop = value->starts_with(kStopWord);
  std::string reason = rendezvous::printable(stop ? value->substr(kStopWord.size()) : *value);
  if (reason.size() > core::kMaxReasonBytes) reason.resize(core::kMaxReasonBytes);
  if (!stop) {
    publish_notice(reason, false);
    say("checkpoint notice " + std::to_string(notice_seq_) + " to every task: " + reason);
    return;
  }
  const auto deadline = publish_notice(reason, true);
  say("checkpoint notice " + std::to_string(notice_seq_) + " to every task, then stopping: " + reason);
  carry_out(supervisor_->stop_with_notice(reason, 128 + SIGTERM, deadline, Clock::now()));
}

void LauncherLoop::record_launch(const std::vector<std::size_t>& units, int attempt) {
  for (std::size_t unit : units) {
    for (std::uint32_t t : units_[unit].tasks) {
      counters_[plan_.tasks[t].name()] = TaskCounters{task_attempt(attempt), unit_epoch(unit)};
    }
  }
  counters_changed_ = true;
}

void LauncherLoop::write_counters() {
  if (!counters_changed_) return;
  counters_changed_ = false;
  try {
    run_dir_.write_file("counters", format_counters(counters_));
  } catch (const std::exception& e) {
    say(std::string("warning: a resume of this run would count attempts again from its last record: ") + e.what());
  }
}

void LauncherLoop::record_event(const std::string& kind, const std::string& node, const std::string& cause,
                                const std::string& host) {
  if (!observer_) return;
  observe::Event event;
  event.kind = kind;
  event.node = node;
  event.cause = cause;
  event.host = host;
  observer_->record(std::move(event));
}

void LauncherLoop::record_unit_event(const std::string& kind, std::size_t unit, int attempt,
                                     const std::string& cause) {
  if (!observer_) return;
  for (std::uint32_t t : units_[unit].tasks) {
    const core::Task& task = plan_.tasks[t];
    observe::Event event;
    event.kind = kind;
    event.node = task.node;
    event.replica = task.replica;
    event.attempt = task_attempt(attempt);
    if (units_[unit].world >= 0) event.epoch = unit_epoch(unit);
    event.host = unit_host_name(unit);
    event.cause = cause;
    observer_->record(std::move(event));
  }
}

void LauncherLoop::observe_started() {
  const std::string url = observe_url();
  if (url.empty()) return;
  if (!observe_reach_hint_) {
    say("page and metrics of the program: " + url);
  } else if (!observe_loopback()) {
    say("page and metrics of the program: " + url + " (with the view token: docs/observe.md)");
  } else {
    const std::string name = base::this_host_name();
    const std::string port = url.substr(url.rfind(':') + 1, url.size() - url.rfind(':') - 2);
    say("page and metrics of the program: " + url + " on " + name + "; from the login node: ssh -N -L " + port +
        ":127.0.0.1:" + port + " " + name + ", then open http://127.0.0.1:" + port + "/");
  }
}

}  // namespace slipway::launch
