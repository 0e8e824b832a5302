// ElasticNodes: requests for sizes, settle windows and live sets (see header).
#include "slipway/launch/elastic_nodes.hpp"

#include <algorithm>
#include <stdexcept>

namespace slipway::launch {
namespace {

std::vector<std::uint32_t> first(std::uint32_t count) {
  std::vector<std::uint32_t> out(count);
  for (std::uint32_t r = 0; r < count; ++r) out[r] = r;
  return out;
}

const std::string kAskedBy = "asked by ";

// "asked by A, B; satellite job 7 granted on fn3": who asked, then the
// other causes.
std::string causes_text(const std::vector<std::string>& causes) {
  std::string asked, other;
  for (const auto& cause : causes) {
    if (cause.rfind(kAskedBy, 0) == 0) {
      asked += (asked.empty() ? kAskedBy : ", ") + cause.substr(kAskedBy.size());
    } else {
      other += (other.empty() ? "" : "; ") + cause;
    }
  }
  return asked + (asked.empty() || other.empty() ? "" : "; ") + other;
}

std::string range_text(const ElasticNodeSpec& spec) {
  return "replicas = \"" + std::to_string(spec.min) + ":" + std::to_string(spec.max) + "\"";
}

}  // namespace

ElasticNodes::ElasticNodes(std::vector<ElasticNodeSpec> nodes) {
  for (auto& spec : nodes) {
    Node n;
    spec.hosted = std::min(spec.hosted, spec.slots);
    n.wanted = spec.grow_manual ? std::min(spec.min, spec.slots) : spec.slots;
    n.hosted.assign(spec.slots, false);
    for (std::uint32_t slot = 0; slot < spec.hosted; ++slot) n.hosted[slot] = true;
    n.live = first(std::min(n.wanted, spec.hosted));
    n.spec = std::move(spec);
    std::string name = n.spec.node;
    nodes_.emplace(std::move(name), std::move(n));
  }
}

const std::vector<std::uint32_t>& ElasticNodes::live(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) throw std::out_of_range("no elastic node '" + node + "'");
  return it->second.live;
}

core::LiveSets ElasticNodes::live_sets() const {
  core::LiveSets out;
  for (const auto& [name, n] : nodes_) out[name] = n.live;
  return out;
}

std::string ElasticNodes::request(const std::string& node, std::int64_t count, const std::string& who,
                                  Clock::time_point now) {
  Node& n = nodes_.at(node);
  const ElasticNodeSpec& s = n.spec;
  std::string line;
  std::uint32_t size = 0;
  const std::string asked = who + " asked for " + std::to_string(count) + " replicas of " + node;
  if (count < static_cast<std::int64_t>(s.min)) {
    size = s.min;
    line = asked + ": clamped to " + std::to_string(size) + ", its MIN (" + range_text(s) + ")";
  } else if (count > static_cast<std::int64_t>(s.slots)) {
    size = s.slots;
    line = asked + ": clamped to " + std::to_string(size) +
           (s.slots == s.max ? ", its MAX (" + range_text(s) + ")"
                             : ": the plan placed " + std::to_string(s.slots) + " of its " +
                                   std::to_string(s.max) + " replicas (the allocation has no room for more)");
  } else {
    size = static_cast<std::uint32_t>(count);
  }
  n.wanted = size;
  open_window(n, kAskedBy + who, now);
  return line;
}

void ElasticNodes::open_window(Node& n, const std::string& cause, Clock::time_point now) {
  if (std::find(n.askers.begin(), n.askers.end(), cause) == n.askers.end()) n.askers.push_back(cause);
  if (!n.settle_until) n.settle_until = now + n.spec.settle;
}

std::uint32_t ElasticNodes::Node::hosted_count() const {
  return static_cast<std::uint32_t>(std::count(hosted.begin(), hosted.end(), true));
}

std::optional<std::uint32_t> ElasticNodes::Node::highest_hosted() const {
  for (std::size_t slot = hosted.size(); slot-- > 0;) {
    if (hosted[slot]) return static_cast<std::uint32_t>(slot);
  }
  return std::nullopt;
}

std::uint32_t ElasticNodes::satellites_wanted(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return 0;
  const Node& n = it->second;
  const std::uint32_t count = n.hosted_count();
  return n.wanted > count ? n.wanted - count : 0;
}

std::uint32_t ElasticNodes::grant(const std::string& node, const std::string& why, Clock::time_point now) {
  Node& n = nodes_.at(node);
  const auto slot = std::find(n.hosted.begin(), n.hosted.end(), false);
  if (slot == n.hosted.end()) throw std::logic_error("every slot of " + node + " is hosted already");
  *slot = true;
  if (n.wanted > n.live.size()) open_window(n, why, now);
  return static_cast<std::uint32_t>(slot - n.hosted.begin());
}

std::optional<std::uint32_t> ElasticNodes::releasable(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return std::nullopt;
  const Node& n = it->second;
  const auto slot = n.highest_hosted();
  if (!slot || *slot < n.spec.hosted || n.wanted >= n.hosted_count()) return std::nullopt;
  if (std::binary_search(n.live.begin(), n.live.end(), *slot)) return std::nullopt;
  return slot;
}

std::optional<std::uint32_t> ElasticNodes::release(const std::string& node) {
  const auto slot = releasable(node);
  if (slot) nodes_.at(node).hosted[*slot] = false;
  return slot;
}

std::uint32_t ElasticNodes::settle_for_hosted(const std::string& node) {
  Node& n = nodes_.at(node);
  const std::uint32_t had = n.wanted;
  n.wanted = std::min(n.wanted, std::max(n.hosted_count(), static_cast<std::uint32_t>(n.live.size())));
  return had;
}

std::vector<std::string> ElasticNodes::names() const {
  std::vector<std::string> out;
  for (const auto& [name, n] : nodes_) out.push_back(name);
  return out;
}

std::vector<Resize> ElasticNodes::tick(Clock::time_point now) {
  std::vector<Resize> out;
  for (auto& [name, n] : nodes_) {
    if (!n.settle_until || *n.settle_until > now) continue;
    n.settle_until.reset();
    std::vector<std::string> askers;
    askers.swap(n.askers);
    const std::uint32_t hosted = n.hosted_count();
    const std::uint32_t target = std::min(n.wanted, hosted);
    const std::uint32_t size = static_cast<std::uint32_t>(n.live.size());
    if (target == size) {
      if (n.wanted > hosted) askers.swap(n.askers);  // they wait for satellites
      continue;
    }
    Resize r;
    r.node = name;
    r.from = n.live;
    if (n.spec.world) {
      n.live = first(target);
    } else if (target > size) {
      for (std::uint32_t slot = 0; slot < n.spec.slots && n.live.size() < target; ++slot) {
        if (n.hosted[slot] && !std::binary_search(n.live.begin(), n.live.end(), slot)) {
          n.live.insert(std::upper_bound(n.live.begin(), n.live.end(), slot), slot);
        }
      }
    } else {
      n.live.resize(target);  // the highest replicas go
    }
    r.live = n.live;
    const std::string by = causes_text(askers);
    r.cause = name + (target > size ? " grows" : " shrinks") + " from " + std::to_string(size) + " to " +
              std::to_string(target) + " replicas (" + by + ")";
    out.push_back(std::move(r));
  }
  return out;
}

bool ElasticNodes::shrinks_on_loss(const std::string& node) const {
  auto it = nodes_.find(node);
  return it != nodes_.end() && it->second.spec.shrink_on_loss;
}

Resize ElasticNodes::shrink(Node& n, std::uint32_t replica, const std::string& why) {
  const std::uint32_t size = static_cast<std::uint32_t>(n.live.size());
  const std::string& node = n.spec.node;
  Resize r;
  r.node = node;
  r.from = n.live;
  if (n.spec.world) {
    n.live = first(size - 1);
  } else {
    n.live.erase(std::remove(n.live.begin(), n.live.end(), replica), n.live.end());
  }
  r.live = n.live;
  r.cause = node + " shrinks from " + std::to_string(size) + " to " + std::to_string(r.live.size()) +
            " replicas (" + why + ")";
  return r;
}

std::optional<Resize> ElasticNodes::lost(const std::string& node, std::uint32_t replica,
                                         const std::string& why) {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.live.size() <= it->second.spec.min) return std::nullopt;
  Node& n = it->second;
  Resize r = shrink(n, replica, why);
  n.wanted = static_cast<std::uint32_t>(n.live.size());
  return r;
}

std::optional<Resize> ElasticNodes::lost_without_room(const std::string& node, std::uint32_t replica,
                                                      const std::string& why, bool grow_back) {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.live.size() <= it->second.spec.min) return std::nullopt;
  Node& n = it->second;
  const std::uint32_t wanted = std::max(n.wanted, static_cast<std::uint32_t>(n.live.size()));
  Resize r = shrink(n, replica, why);
  // A world's ranks stay on hosted slots 0..N-1: its highest hosted slot
  // gives up its host, which the lost rank's replica takes over.
  r.unhosted = n.spec.world ? n.highest_hosted() : std::optional<std::uint32_t>(replica);
  if (r.unhosted && *r.unhosted < n.hosted.size()) n.hosted[*r.unhosted] = false;
  n.wanted = grow_back ? wanted : static_cast<std::uint32_t>(n.live.size());
  return r;
}

std::optional<Clock::time_point> ElasticNodes::next_deadline() const {
  std::optional<Clock::time_point> next;
  for (const auto& [name, n] : nodes_) {
    if (n.settle_until && (!next || *n.settle_until < *next)) next = n.settle_until;
  }
  return next;
}

}  // namespace slipway::launch
