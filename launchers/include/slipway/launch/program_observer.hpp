// What the launcher shows of a running program (docs/observe.md): the event
// record RUN/events.jsonl, the status document it publishes once a second
// (the program key observe/status, read by `slipway status --json` and
// `slipway top`), and the observe endpoint (/metrics and the page) with
// its Prometheus target files.
//
// Contract: record() appends an event (never throws). due(now) says
// whether a status is to be published now (a second since the last, or
// sooner after an event); publish() then hands the status to the endpoint
// and the rendezvous (`put`). next_deadline() is when due() next turns
// true. The endpoint is optional (ObserveOptions::address empty); when it
// cannot be bound the constructor throws std::runtime_error naming the
// address. Nothing here reads a task's environment or the program secret.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "slipway/core/topology.hpp"
#include "slipway/observe/event_log.hpp"
#include "slipway/observe/program_status.hpp"

namespace slipway::observe {
class ObserveEndpoint;
class PrometheusTargets;
}  // namespace slipway::observe

namespace slipway::launch {

struct ObserveOptions {
  // The endpoint's "HOST:PORT" (port 0: any free one); empty: none.
  std::string address = "127.0.0.1:0";
  std::string run_root;  // where ROOT/.prometheus-RUN.json goes (empty: not written)
  std::chrono::milliseconds interval{1000};
};

// The endpoint's address from `--metrics` (`flag`: "HOST:PORT", "PORT",
// "none" for none, empty for the default) and [program] metrics_port.
std::string observe_address(const std::string& flag, const core::Program& program);

class ProgramObserver {
 public:
  using Clock = std::chrono::steady_clock;
  // `put`: stores the status document's JSON as the program key observe/status.
  ProgramObserver(const std::string& run_directory, const std::string& program, const ObserveOptions& options,
                  std::function<void(const std::string& key, const std::string& value)> put);
  ~ProgramObserver();

  const observe::Event& record(observe::Event event);
  const observe::EventLog& events() const { return events_; }

  bool due(Clock::time_point now) const { return now >= next_publish_; }
  Clock::time_point next_deadline() const { return next_publish_; }
  void publish(observe::ProgramStatus status, Clock::time_point now);

  // The endpoint's page URL ("" when there is none).
  std::string url() const;
  bool loopback() const;

  // What the status shows of a task's last end ("NODE.REPLICA").
  void task_ended(const std::string& task, observe::LastExit exit) { last_exits_[task] = std::move(exit); }
  const std::optional<observe::LastExit> last_exit(const std::string& task) const;

 private:
  std::string run_directory_;
  ObserveOptions options_;
  std::function<void(const std::string&, const std::string&)> put_;
  observe::EventLog events_;
  std::unique_ptr<observe::ObserveEndpoint> endpoint_;
  std::unique_ptr<observe::PrometheusTargets> targets_;
  std::map<std::string, observe::LastExit> last_exits_;
  Clock::time_point next_publish_{};
};

}  // namespace slipway::launch
