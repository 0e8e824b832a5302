// ControlPlane: the launcher's handle on its in-process rendezvous server.
//
// Contract: the constructor starts the server (its own thread) on `bind`
// ("127.0.0.1" locally; "0.0.0.0" under Slurm, advertised as
// `advertise_host`) with a fresh secret. The callbacks run on the server's
// thread and must not block: on_stop_request when a task or `slipway stop`
// asks the program to stop (not when the launcher itself announces a
// stop); on_member_joined when a task's agent is admitted (as the
// rendezvous answers its join, so before its command starts);
// on_member_ended when a task's agent leaves (with its exit status) or
// fails (its connection dropped or its heartbeats stopped).
// announce_stop pushes "program stopping" to every task. on_key_changed
// hears changes of keys under observed_key_prefixes (empty: none), on the
// server's thread too. server() gives the launcher's own operations (tasks
// it runs itself: rendezvous::Server::join_local and the rest). The
// destructor stops the server.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace slipway::rendezvous {
class Server;
}

namespace slipway::launch {

struct MemberEnded {
  std::string task;  // "node.replica"
  std::uint32_t attempt = 0;
  std::string host;
  bool failed = false;   // true: vanished without leaving
  int exit_status = 0;   // when it left
  std::string reason;    // when it failed
};

struct MemberJoined {
  std::string task;  // "node.replica"
  std::uint32_t attempt = 0;
};

struct ControlPlaneOptions {
  std::string bind = "127.0.0.1";
  std::string advertise_host;  // empty: the server's default
  std::function<void(const std::string& reason)> on_stop_request;
  std::function<void(const MemberJoined&)> on_member_joined;
  std::function<void(const MemberEnded&)> on_member_ended;
  std::vector<std::string> observed_key_prefixes;
  std::function<void(const std::string& key)> on_key_changed;
  // The most tasks the plan puts on one host. Their agents share its CPUs:
  // starting hundreds at once, one may not run for seconds (1,000 tasks on
  // 3 hosts sharing 2 cores: over 3 s). The heartbeat budget (3 missed
  // intervals of 1 s) and the authentication deadline (5 s) grow by one
  // second per 40 tasks past the first 40, up to 30 s: a lost host is then
  // noticed that much later (tolerance_for_tasks_per_host()).
  std::uint32_t tasks_per_host = 0;
  // The program's secret: empty for a fresh one; a resumed run keeps its
  // own (what its replay queues signed with it stays readable: resume.md).
  std::string token;
};

// The rendezvous heartbeat miss budget (intervals of 1 s) and
// authentication deadline (ms) for hosts running `tasks_per_host` agents:
// the rendezvous server's defaults, raised as ControlPlaneOptions says.
struct LoadTolerance {
  std::uint32_t miss_budget = 0;
  std::uint32_t auth_timeout_ms = 0;
};
LoadTolerance tolerance_for_tasks_per_host(std::uint32_t tasks_per_host);

class ControlPlane {
 public:
  explicit ControlPlane(ControlPlaneOptions options);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  const std::string& endpoint() const;
  const std::string& token() const;
  void announce_stop(const std::string& reason);
  // Asks one task's agent to stop its command (SIGTERM, SIGKILL after its
  // grace): the key stop/NODE/REPLICA, which the agent watches. Used where
  // a signal cannot reach the agent gracefully (srun turns SIGTERM into
  // SIGKILL). clear_stop removes it before a relaunch.
  void stop_task(const std::string& node, std::uint32_t replica, const std::string& reason);
  void clear_stop(const std::string& node, std::uint32_t replica);
  // Records the epoch a world node runs now (the key epoch/NODE, which
  // `slipway status` shows).
  void set_epoch(const std::string& node, int epoch);
  // Declares how many replicas a node has (fences over the program).
  void declare(const std::string& node, std::uint32_t replicas);
  rendezvous::Server& server();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slipway::launch
