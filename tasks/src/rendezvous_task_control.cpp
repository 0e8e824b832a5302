// The task runner's control plane over the rendezvous client (see
// rendezvous_task_control.hpp).
#include "slipway/tasks/rendezvous_task_control.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <stdexcept>

#include "slipway/base/unique_fd.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/agent_connection.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::tasks {
namespace {

constexpr std::size_t kWaitsPerTask = 256;

}  // namespace

// What the client's threads hand to the runner's: notices, and the values
// pushed for wanted keys.
struct RendezvousTaskControl::Inbox {
  std::mutex mutex;
  std::vector<ControlNotice> notices;
  std::map<std::string, std::string> values;
  std::map<TaskId, std::size_t> answered;  // waits answered per task, since the last take
  base::UniqueFd event{eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};

  void post(ControlNotice notice) {
    {
      std::lock_guard lock(mutex);
      notices.push_back(std::move(notice));
    }
    std::uint64_t one = 1;
    ssize_t ignored = ::write(event.get(), &one, sizeof one);
    (void)ignored;
  }
};

struct RendezvousTaskControl::Member {
  std::unique_ptr<rendezvous::Client> client;
  std::deque<std::string> unsent;  // wanted keys not waited for yet
  std::size_t outstanding = 0;
  bool left = false;
};

RendezvousTaskControl::RendezvousTaskControl(std::string endpoint, std::string token,
                                             std::chrono::milliseconds wait_timeout)
    : endpoint_(std::move(endpoint)),
      token_(std::move(token)),
      wait_timeout_(wait_timeout),
      inbox_(std::make_shared<Inbox>()) {
  if (!inbox_->event) throw std::runtime_error("cannot create an eventfd");
}

std::unique_ptr<RendezvousTaskControl> RendezvousTaskControl::from_environment(
    std::chrono::milliseconds wait_timeout) {
  const char* endpoint = std::getenv(core::env::kRendezvous);
  const char* token = std::getenv(core::env::kToken);
  if (!endpoint || !*endpoint) {
    throw std::runtime_error(std::string(core::env::kRendezvous) +
                             " is not set: slipway-exec is started by `slipway run` or "
                             "`slipway launch`, which set it");
  }
  if (!token || !*token) throw std::runtime_error(std::string(core::env::kToken) + " is not set");
  return std::make_unique<RendezvousTaskControl>(endpoint, token, wait_timeout);
}

RendezvousTaskControl::~RendezvousTaskControl() = default;

std::vector<JoinResult> RendezvousTaskControl::join(const std::vector<JoinRequest>& requests) {
  std::vector<JoinResult> results(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const JoinRequest& request = requests[i];
    JoinResult& result = results[i];
    result.values.assign(request.wanted.size(), std::nullopt);  // pushed later, as notices
    auto member = std::make_unique<Member>();
    try {
      rendezvous::ClientOptions options;
      options.on_disconnect = [inbox = inbox_](const rendezvous::Error& error) {
        inbox->post({ControlNotice::Kind::stop, {}, TaskId{},
                     std::string("lost the rendezvous: ") + error.what(), true});
      };
      rendezvous::Identity identity;
      identity.node = request.task->node;
      identity.replica = request.task->replica;
      identity.attempt = request.attempt;
      if (!agent_ || !agent_->connected()) {
        agent_ = rendezvous::AgentConnection::connect(endpoint_, token_);
      }
      member->client = agent_->join(identity, options);
      // One subscription hears both a program stop and the key through
      // which the launcher stops this one task.
      const std::string stop_key = core::keys::stop(request.task->node, request.task->replica);
      const auto kinds = static_cast<std::uint8_t>(
          static_cast<std::uint8_t>(rendezvous::EventKind::program_stopping) |
          static_cast<std::uint8_t>(rendezvous::EventKind::key_changed));
      member->client->subscribe(
          kinds, stop_key,
          [inbox = inbox_, stop_key, id = request.id](const rendezvous::Event& event) {
            if (event.kind == rendezvous::EventKind::program_stopping) {
              inbox->post({ControlNotice::Kind::stop, {}, TaskId{}, event.reason});
            } else if (event.key == stop_key && event.value) {
              inbox->post({ControlNotice::Kind::stop, {}, id, *event.value});
            }
          });
      member->client->subscribe(
          static_cast<std::uint8_t>(rendezvous::EventKind::key_changed), std::string(core::keys::kCheckpointNotice),
          [inbox = inbox_, id = request.id](const rendezvous::Event& event) {
            if (event.key == core::keys::kCheckpointNotice && event.value) {
              inbox->post({ControlNotice::Kind::checkpoint, {}, id, *event.value});
            }
          });
      if (auto already = member->client->get(stop_key)) {
        inbox_->post({ControlNotice::Kind::stop, {}, request.id, *already});
      }
      for (const auto& [key, value] : request.published) {
        member->client->put(key, value, rendezvous::Scope::task);
      }
    } catch (const std::exception& e) {
      result.error = e.what();
      continue;
    }
    member->unsent.assign(request.wanted.begin(), request.wanted.end());
    send_waits(request.id, *member);
    members_[request.id] = std::move(member);
  }
  return results;
}

void RendezvousTaskControl::send_waits(TaskId id, Member& member) {
  const auto timeout = std::min<std::chrono::milliseconds>(
      wait_timeout_ + std::chrono::seconds(5), std::chrono::hours(24));
  while (!member.unsent.empty() && member.outstanding < kWaitsPerTask) {
    std::string key = std::move(member.unsent.front());
    member.unsent.pop_front();
    ++member.outstanding;
    member.client->wait_for_async(
        key, timeout,
        [inbox = inbox_, key, id](rendezvous::Status, std::optional<std::string> value,
                                  const std::string&) {
          {
            std::lock_guard lock(inbox->mutex);
            ++inbox->answered[id];
            if (value) inbox->values[key] = *value;
          }
          // A timed-out wait is the runner's to report (its own deadline).
          if (value) inbox->post({ControlNotice::Kind::key_set, key, TaskId{}, {}});
        });
  }
}

std::vector<std::optional<std::string>> RendezvousTaskControl::read(
    TaskId, const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> values;
  values.reserve(keys.size());
  std::lock_guard lock(inbox_->mutex);
  for (const auto& key : keys) {
    auto it = inbox_->values.find(key);
    values.push_back(it == inbox_->values.end() ? std::nullopt
                                                : std::optional<std::string>(it->second));
  }
  return values;
}

void RendezvousTaskControl::ended(TaskId task, int exit_code) {
  auto it = members_.find(task);
  if (it == members_.end() || it->second->left) return;
  it->second->left = true;
  it->second->unsent.clear();
  try {
    it->second->client->leave(exit_code);
  } catch (const std::exception&) {
    // The rendezvous is gone (the launcher ended): nobody is left to tell.
  }
}

rendezvous::Client* RendezvousTaskControl::client(TaskId task) {
  auto it = members_.find(task);
  return it == members_.end() ? nullptr : it->second->client.get();
}

int RendezvousTaskControl::pollable() const { return inbox_->event.get(); }

std::vector<ControlNotice> RendezvousTaskControl::take_notices() {
  std::uint64_t count;
  ssize_t ignored = ::read(inbox_->event.get(), &count, sizeof count);
  (void)ignored;
  std::vector<ControlNotice> notices;
  std::map<TaskId, std::size_t> answered;
  {
    std::lock_guard lock(inbox_->mutex);
    notices.swap(inbox_->notices);
    answered.swap(inbox_->answered);
  }
  for (const auto& [id, n] : answered) {
    auto it = members_.find(id);
    if (it == members_.end() || it->second->left) continue;
    it->second->outstanding -= std::min(it->second->outstanding, n);
    send_waits(id, *it->second);
  }
  return notices;
}

}  // namespace slipway::tasks
