// The task runner's control plane over the launcher's own rendezvous
// server (see server_task_control.hpp).
#include "slipway/launch/server_task_control.hpp"

#include <unistd.h>

#include "slipway/base/local_address.hpp"
#include "slipway/rendezvous/agent_connection.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::launch {

ServerTaskControl::ServerTaskControl(rendezvous::Server& server, std::string endpoint,
                                     std::string token)
    : server_(server),
      endpoint_(std::move(endpoint)),
      token_(std::move(token)),
      host_name_(base::this_host_name()) {}

ServerTaskControl::~ServerTaskControl() { flush(); }

tasks::JoinResult ServerTaskControl::join_connected(const tasks::JoinRequest& request,
                                                    Member& member) {
  tasks::JoinResult result;
  try {
    if (!agent_ || !agent_->connected()) agent_ = rendezvous::AgentConnection::connect(endpoint_, token_);
    member.client = agent_->join(member.identity);
    for (const auto& [key, value] : request.published) {
      member.client->put(key, value, rendezvous::Scope::task);
    }
    result.values = server_.get_many(request.wanted);
  } catch (const std::exception& e) {
    member.client.reset();
    result.error = e.what();
  }
  return result;
}

std::vector<tasks::JoinResult> ServerTaskControl::join(
    const std::vector<tasks::JoinRequest>& requests) {
  flush();
  std::vector<tasks::JoinResult> results(requests.size());
  std::vector<rendezvous::Server::LocalJoinRequest> local;
  std::vector<std::size_t> local_index;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const tasks::JoinRequest& request = requests[i];
    Member& member = members_[request.id];
    member.identity = rendezvous::Identity{request.task->node, request.task->replica,
                                           request.attempt, host_name_, getpid()};
    if (request.needs_client) {
      results[i] = join_connected(request, member);
      continue;
    }
    local.push_back({member.identity, request.published, request.wanted});
    local_index.push_back(i);
  }
  if (!local.empty()) {
    auto joined = server_.join_local(local);
    for (std::size_t k = 0; k < local_index.size(); ++k) {
      tasks::JoinResult& result = results[local_index[k]];
      if (joined[k].status != rendezvous::Status::ok) {
        result.error = joined[k].message;
      } else {
        result.values = std::move(joined[k].values);
      }
    }
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!results[i].ok()) members_.erase(requests[i].id);
  }
  return results;
}

std::vector<std::optional<std::string>> ServerTaskControl::read(
    tasks::TaskId, const std::vector<std::string>& keys) {
  return server_.get_many(keys);
}

void ServerTaskControl::started(tasks::TaskId task, pid_t pid) {
  auto it = members_.find(task);
  if (it == members_.end() || it->second.client) return;
  changes_.push_back({it->second.identity, pid, std::nullopt});
}

void ServerTaskControl::ended(tasks::TaskId task, int exit_code) {
  auto it = members_.find(task);
  if (it == members_.end() || it->second.ended) return;
  Member& member = it->second;
  member.ended = true;
  if (!member.client) {
    changes_.push_back({member.identity, std::nullopt, exit_code});
    members_.erase(it);
    return;
  }
  try {
    member.client->leave(exit_code);
  } catch (const std::exception&) {
    // The server is going away with the launcher: nobody is left to tell.
  }
  // The connection stays until the launcher ends: a PMIx server host may
  // still hold it.
}

void ServerTaskControl::flush() { server_.update_local(std::exchange(changes_, {})); }

rendezvous::Client* ServerTaskControl::client(tasks::TaskId task) {
  auto it = members_.find(task);
  return it == members_.end() ? nullptr : it->second.client.get();
}

}  // namespace slipway::launch
