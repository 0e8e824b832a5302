// LocalDirectory: published addresses and their watchers in one process.
#include <algorithm>
#include <list>
#include <vector>

#include "slipway/channels/directory.hpp"

namespace slipway::channels {

namespace {
using Key = std::pair<std::string, std::uint32_t>;
}

struct LocalDirectory::State {
  struct Watcher {
    Key key;
    OnChange on_change;
    std::mutex calling;  // one call at a time; held while a call runs
    bool active = true;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::map<Key, Bytes> addresses;
  std::map<std::string, std::uint32_t> declared;
  std::map<std::string, std::uint32_t> highest_plus_one;
  std::list<std::shared_ptr<Watcher>> watchers;

  void notify(const Key& key, const std::optional<Bytes>& address) {
    std::vector<std::shared_ptr<Watcher>> targets;
    {
      std::lock_guard lock(mutex);
      for (auto& w : watchers) {
        if (w->key == key) targets.push_back(w);
      }
    }
    for (auto& w : targets) {
      std::lock_guard call(w->calling);
      if (w->active) w->on_change(address);
    }
  }
};

namespace {

class LocalWatch final : public AddressDirectory::Watch {
 public:
  LocalWatch(std::weak_ptr<LocalDirectory::State> state,
             std::shared_ptr<LocalDirectory::State::Watcher> watcher)
      : state_(std::move(state)), watcher_(std::move(watcher)) {}
  ~LocalWatch() override {
    {
      std::lock_guard call(watcher_->calling);
      watcher_->active = false;
    }
    if (auto state = state_.lock()) {
      std::lock_guard lock(state->mutex);
      state->watchers.remove(watcher_);
    }
  }

 private:
  std::weak_ptr<LocalDirectory::State> state_;
  std::shared_ptr<LocalDirectory::State::Watcher> watcher_;
};

}  // namespace

LocalDirectory::LocalDirectory() : state_(std::make_shared<State>()) {}
LocalDirectory::~LocalDirectory() = default;

void LocalDirectory::publish(const std::string& node, std::uint32_t replica, ByteView address) {
  Key key{node, replica};
  Bytes copy = to_bytes(address);
  {
    std::lock_guard lock(state_->mutex);
    state_->addresses[key] = copy;
    auto& high = state_->highest_plus_one[node];
    high = std::max(high, replica + 1);
  }
  state_->changed.notify_all();
  state_->notify(key, copy);
}

void LocalDirectory::withdraw(const std::string& node, std::uint32_t replica, ByteView address) {
  Key key{node, replica};
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->addresses.find(key);
    if (it == state_->addresses.end() || ByteView(it->second).size() != address.size() ||
        !std::equal(address.begin(), address.end(), it->second.begin())) {
      return;
    }
    state_->addresses.erase(it);
  }
  state_->notify(key, std::nullopt);
}

std::unique_ptr<AddressDirectory::Watch> LocalDirectory::watch(const std::string& node,
                                                               std::uint32_t replica,
                                                               OnChange on_change) {
  auto watcher = std::make_shared<State::Watcher>();
  watcher->key = Key{node, replica};
  watcher->on_change = std::move(on_change);
  std::optional<Bytes> current;
  // Registering and reading the current address under `calling` keeps a
  // concurrent publish from being delivered before the initial value.
  std::lock_guard call(watcher->calling);
  {
    std::lock_guard lock(state_->mutex);
    state_->watchers.push_back(watcher);
    auto it = state_->addresses.find(watcher->key);
    if (it != state_->addresses.end()) current = it->second;
  }
  if (current) watcher->on_change(current);
  return std::make_unique<LocalWatch>(state_, watcher);
}

std::optional<std::uint32_t> LocalDirectory::replicas(const std::string& node,
                                                      std::chrono::milliseconds timeout) {
  std::unique_lock lock(state_->mutex);
  auto known = [&]() -> std::optional<std::uint32_t> {
    if (auto it = state_->declared.find(node); it != state_->declared.end()) return it->second;
    if (auto it = state_->highest_plus_one.find(node); it != state_->highest_plus_one.end()) {
      return it->second;
    }
    return std::nullopt;
  };
  std::optional<std::uint32_t> count;
  state_->changed.wait_for(lock, timeout, [&] { return (count = known()).has_value(); });
  return count;
}

std::string LocalDirectory::where(const std::string& node, std::uint32_t replica) const {
  return "the in-process directory entry " + node + "." + std::to_string(replica);
}

void LocalDirectory::declare_replicas(const std::string& node, std::uint32_t count) {
  {
    std::lock_guard lock(state_->mutex);
    state_->declared[node] = count;
  }
  state_->changed.notify_all();
}

}  // namespace slipway::channels
