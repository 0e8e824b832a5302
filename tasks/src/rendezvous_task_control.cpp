// The task runner's control plane over the rendezvous client (see
// rendezvous_task_control.hpp).
#include "slipway/tasks/rendezvous_task_control.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
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
// How long the control's end waits for the replies to its members' leaves.
constexpr std::chrono::seconds kLeaveWait{10};

}  // namespace

// What the client's threads hand to the runner's: notices, and the values
// pushed for wanted keys.
struct RendezvousTaskControl::Inbox {
  std::mutex mutex;
  std::vector<ControlNotice> notices;
  std::map<std::string, std::string> values;
  std::map<TaskId, std::size_t> answered;  // waits answered per task, since the last take
  std::size_t leaving = 0;                  // leaves sent, not answered yet
  std::condition_variable left;             // `leaving` went down
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

RendezvousTaskControl::~RendezvousTaskControl() { flush(); }

// Every leave answered (a lost connection answers them all at once), at
// most kLeaveWait.
void RendezvousTaskControl::flush() {
  std::unique_lock lock(inbox_->mutex);
  inbox_->left.wait_for(lock, kLeaveWait, [&] { return inbox_->leaving == 0; });
}

namespace {

// Counts a batch of asynchronous requests down to their last reply, and
// keeps each member's first error.
class Replies {
 public:
  explicit Replies(std::size_t members) : errors_(members) {}
  void expect() {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  rendezvous::Client::DoneCallback done(std::size_t member) {
    return [this, member](rendezvous::Status status, const std::string& message) {
      std::lock_guard lock(mutex_);
      if (status != rendezvous::Status::ok && errors_[member].empty()) {
        errors_[member] = message.empty() ? std::string(rendezvous::to_string(status)) : message;
      }
      if (--outstanding_ == 0) cv_.notify_all();
    };
  }
  // Each member's first error, once every reply came or at `deadline`
  // (then timed_out()).
  std::vector<std::string> wait(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_until(lock, deadline, [&] { return outstanding_ == 0; })) timed_out_ = true;
    return errors_;
  }
  bool timed_out() {
    std::lock_guard lock(mutex_);
    return timed_out_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t outstanding_ = 0;
  std::vector<std::string> errors_;
  bool timed_out_ = false;
};

}  // namespace

// All members at once, on the agent's one connection: every join first,
// then every member's subscriptions, stop-key read and addresses, each
// batch pipelined (an agent of 128 replicas waits two round trips, not
// 512 one after another).
std::vector<JoinResult> RendezvousTaskControl::join(const std::vector<JoinRequest>& requests) {
  std::vector<JoinResult> results(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    results[i].values.assign(requests[i].wanted.size(), std::nullopt);  // pushed later, as notices
  }
  std::vector<rendezvous::AgentConnection::Joining> joining;
  joining.reserve(requests.size());
  for (const JoinRequest& request : requests) {
    rendezvous::AgentConnection::Joining j;
    j.options.on_disconnect = [inbox = inbox_](const rendezvous::Error& error) {
      inbox->post({ControlNotice::Kind::stop, {}, TaskId{}, std::string("lost the rendezvous: ") + error.what(), true});
    };
    j.identity.node = request.task->node;
    j.identity.replica = request.task->replica;
    j.identity.attempt = request.attempt;
    joining.push_back(std::move(j));
  }
  std::vector<rendezvous::AgentConnection::Joined> joined;
  try {
    if (!agent_ || !agent_->connected()) agent_ = rendezvous::AgentConnection::connect(endpoint_, token_);
    joined = agent_->join_all(std::move(joining));
  } catch (const std::exception& e) {
    for (JoinResult& result : results) result.error = e.what();
    return results;
  }
  // Kept alive by the callbacks until the last reply, or the connection's
  // end, which fails every pending request (the wait below may give up
  // first).
  auto replies = std::make_shared<Replies>(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const JoinRequest& request = requests[i];
    rendezvous::Client* client = joined[i].client.get();
    if (!client) {
      results[i].error = joined[i].error ? joined[i].error->what() : "not joined";
      continue;
    }
    auto done = [replies, i](rendezvous::Status status, const std::string& message) {
      replies->done(i)(status, message);
    };
    try {
      // One subscription hears both a program stop and the key through
      // which the launcher stops this one task; the stop key is read after
      // it (the connection keeps the order), so a stop is never missed.
      const std::string stop_key = core::keys::stop(request.task->node, request.task->replica);
      const auto kinds = static_cast<std::uint8_t>(
          static_cast<std::uint8_t>(rendezvous::EventKind::program_stopping) |
          static_cast<std::uint8_t>(rendezvous::EventKind::key_changed));
      replies->expect();
      client->subscribe_async(
          kinds, stop_key,
          [inbox = inbox_, stop_key, id = request.id](const rendezvous::Event& event) {
            if (event.kind == rendezvous::EventKind::program_stopping) {
              inbox->post({ControlNotice::Kind::stop, {}, TaskId{}, event.reason});
            } else if (event.key == stop_key && event.value) {
              inbox->post({ControlNotice::Kind::stop, {}, id, *event.value});
            }
          },
          done);
      replies->expect();
      client->subscribe_async(
          static_cast<std::uint8_t>(rendezvous::EventKind::key_changed), std::string(core::keys::kCheckpointNotice),
          [inbox = inbox_, id = request.id](const rendezvous::Event& event) {
            if (event.key == core::keys::kCheckpointNotice && event.value) {
              inbox->post({ControlNotice::Kind::checkpoint, {}, id, *event.value});
            }
          },
          done);
      replies->expect();
      client->get_async(stop_key, [inbox = inbox_, id = request.id, done](rendezvous::Status status,
                                                                           std::optional<std::string> value,
                                                                           const std::string& message) {
        if (value) inbox->post({ControlNotice::Kind::stop, {}, id, *value});
        done(status == rendezvous::Status::not_found ? rendezvous::Status::ok : status, message);
      });
      for (const auto& [key, value] : request.published) {
        replies->expect();
        client->put_async(key, value, rendezvous::Scope::task, done);
      }
    } catch (const std::exception& e) {
      results[i].error = e.what();
    }
  }
  const auto wait = rendezvous::ClientOptions{}.request_timeout;
  const std::vector<std::string> errors = replies->wait(std::chrono::steady_clock::now() + wait);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!joined[i].client || !results[i].error.empty()) continue;
    if (!errors[i].empty()) {
      results[i].error = errors[i];
      continue;
    }
    if (replies->timed_out()) {
      results[i].error = "no reply from the rendezvous within " + std::to_string(wait.count()) + " ms";
      continue;
    }
    auto member = std::make_unique<Member>();
    member->client = std::move(joined[i].client);
    member->unsent.assign(requests[i].wanted.begin(), requests[i].wanted.end());
    send_waits(requests[i].id, *member);
    members_[requests[i].id] = std::move(member);
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

// The leave goes out at once, its reply is not waited for here: tasks that
// end together leave in one batch, not one round trip each. The destructor
// waits for the replies (a leave still unsent when the process exits would
// read, to the launcher, as a lost task).
void RendezvousTaskControl::ended(TaskId task, int exit_code) {
  auto it = members_.find(task);
  if (it == members_.end() || it->second->left) return;
  it->second->left = true;
  it->second->unsent.clear();
  try {
    {
      std::lock_guard lock(inbox_->mutex);
      ++inbox_->leaving;
    }
    it->second->client->leave_async(exit_code, [inbox = inbox_](rendezvous::Status, const std::string&) {
      {
        std::lock_guard lock(inbox->mutex);
        --inbox->leaving;
      }
      inbox->left.notify_all();
    });
  } catch (const std::exception&) {
    // The rendezvous is gone (the launcher ended): nobody is left to tell.
    std::lock_guard lock(inbox_->mutex);
    --inbox_->leaving;
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
