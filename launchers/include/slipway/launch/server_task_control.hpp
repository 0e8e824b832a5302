// ServerTaskControl: the task runner's control plane (tasks/task_control.hpp)
// for the tasks the local launcher runs itself, over its own in-process
// rendezvous server: a task joins as a member with no connection
// (rendezvous::Server::join_local), many in one trip to the server thread,
// and its pid and end are sent in batches (update_local). A task whose
// hooks need a member connection (an mpi task: its PMIx server speaks to
// the rendezvous) joins instead as a rendezvous client of the server, as an
// agent's task would: all such tasks on one connection
// (rendezvous::AgentConnection).
//
// Contract: as TaskControl. Published keys are not announced by notices:
// the launcher hears key changes from its ControlPlane and passes them to
// TaskRunner::key_changed. Stops come from the launcher itself.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "slipway/rendezvous/server.hpp"
#include "slipway/tasks/task_control.hpp"

namespace slipway::rendezvous {
class AgentConnection;
}

namespace slipway::launch {

class ServerTaskControl final : public tasks::TaskControl {
 public:
  ServerTaskControl(rendezvous::Server& server, std::string endpoint, std::string token);
  ~ServerTaskControl() override;

  std::vector<tasks::JoinResult> join(const std::vector<tasks::JoinRequest>& requests) override;
  std::vector<std::optional<std::string>> read(tasks::TaskId task,
                                               const std::vector<std::string>& keys) override;
  void started(tasks::TaskId task, pid_t pid) override;
  void ended(tasks::TaskId task, int exit_code) override;
  void flush() override;
  rendezvous::Client* client(tasks::TaskId task) override;

 private:
  struct Member {
    rendezvous::Identity identity;
    std::unique_ptr<rendezvous::Client> client;  // when it joined by connecting
    bool ended = false;
  };
  tasks::JoinResult join_connected(const tasks::JoinRequest& request, Member& member);

  rendezvous::Server& server_;
  std::string endpoint_;
  std::string token_;
  std::string host_name_;
  std::shared_ptr<rendezvous::AgentConnection> agent_;  // carries the connected members
  std::map<tasks::TaskId, Member> members_;
  std::vector<rendezvous::Server::LocalChange> changes_;  // not sent yet
};

}  // namespace slipway::launch
