// The MPI world of a plan and the local view of one PMIx server
// (mpi_world.hpp).
#include "slipway/pmix/mpi_world.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace slipway::pmix {
namespace {

// PMIX_MAX_NSLEN is 255; stay well inside it (Open MPI hashes the name).
constexpr std::size_t kMaxNamespaceBytes = 200;

std::string sanitized(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

}  // namespace

std::string short_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

std::string namespace_name(std::string_view program, std::string_view instance) {
  std::string tail = instance.empty() ? "" : "-" + sanitized(instance);
  std::string head = "slipway-" + sanitized(program);
  if (head.size() + tail.size() > kMaxNamespaceBytes) {
    head = head.substr(0, kMaxNamespaceBytes - std::min(tail.size(), kMaxNamespaceBytes / 2));
    tail = tail.substr(0, kMaxNamespaceBytes - head.size());
  }
  return head + tail;
}

std::optional<MpiWorld> MpiWorld::from_plan(const core::Plan& plan, std::string_view instance) {
  MpiWorld world;
  world.nspace_ = namespace_name(*plan.program.name, instance);
  std::map<std::uint32_t, std::uint32_t> nodeid_of_host;
  std::map<std::string, std::uint32_t> app_of_node;
  for (const core::Task& task : plan.tasks) {
    const core::NodeSpec& spec = plan.node(task);
    if (*spec.framework != core::Framework::mpi) continue;
    auto app = app_of_node.find(task.node);
    if (app == app_of_node.end()) {
      WorldApp a;
      a.node = task.node;
      a.appnum = static_cast<std::uint32_t>(world.apps_.size());
      a.first_rank = world.size();
      a.workdir = *spec.workdir;
      a.argv = *spec.wrapper;
      a.argv.insert(a.argv.end(), spec.command->begin(), spec.command->end());
      app = app_of_node.emplace(task.node, a.appnum).first;
      world.apps_.push_back(std::move(a));
    }
    WorldApp& a = world.apps_[app->second];
    auto host = nodeid_of_host.find(task.host);
    if (host == nodeid_of_host.end()) {
      WorldHost h;
      h.name = plan.host(task).name;
      h.nodeid = static_cast<std::uint32_t>(world.hosts_.size());
      host = nodeid_of_host.emplace(task.host, h.nodeid).first;
      world.hosts_.push_back(std::move(h));
    }
    WorldProc p;
    p.rank = world.size();
    p.task_id = task.id;
    p.node = task.node;
    p.replica = task.replica;
    p.appnum = a.appnum;
    p.app_rank = a.size++;
    p.nodeid = host->second;
    world.hosts_[p.nodeid].ranks.push_back(p.rank);
    world.procs_.push_back(std::move(p));
  }
  if (world.procs_.empty()) return std::nullopt;
  return world;
}

std::optional<std::uint32_t> MpiWorld::rank_of(std::string_view node, std::uint32_t replica) const {
  for (const WorldApp& a : apps_) {
    if (a.node != node) continue;
    // Plan order gives replicas 0..size-1 in order within an application.
    if (replica >= a.size) return std::nullopt;
    return a.first_rank + replica;
  }
  return std::nullopt;
}

std::string MpiWorld::task_name(std::uint32_t rank) const {
  if (rank >= procs_.size()) return "rank " + std::to_string(rank);
  return procs_[rank].node + "." + std::to_string(procs_[rank].replica);
}

std::vector<std::uint32_t> MpiWorld::all_ranks() const {
  std::vector<std::uint32_t> ranks(procs_.size());
  for (std::uint32_t r = 0; r < ranks.size(); ++r) ranks[r] = r;
  return ranks;
}

std::vector<MemberRange> MpiWorld::member_ranges(std::vector<std::uint32_t> ranks) const {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::vector<MemberRange> out;
  for (std::uint32_t rank : ranks) {
    if (rank >= procs_.size()) throw std::out_of_range("rank " + std::to_string(rank) + " is not in the world");
    const WorldProc& p = procs_[rank];
    if (!out.empty() && out.back().node == p.node &&
        out.back().first + out.back().count == p.replica) {
      ++out.back().count;
    } else {
      out.push_back(MemberRange{p.node, p.replica, 1});
    }
  }
  return out;
}

LocalView::LocalView(const MpiWorld& world, std::vector<std::uint32_t> ranks) : ranks_(std::move(ranks)) {
  std::sort(ranks_.begin(), ranks_.end());
  ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
  for (std::uint32_t r : ranks_) {
    if (r >= world.size()) throw std::out_of_range("rank " + std::to_string(r) + " is not in the world");
  }
  if (!ranks_.empty()) nodeid_ = world.procs()[ranks_.front()].nodeid;
}

bool LocalView::hosts(std::uint32_t rank) const {
  return std::binary_search(ranks_.begin(), ranks_.end(), rank);
}

std::optional<std::uint16_t> LocalView::local_rank(std::uint32_t rank) const {
  auto it = std::lower_bound(ranks_.begin(), ranks_.end(), rank);
  if (it == ranks_.end() || *it != rank) return std::nullopt;
  return static_cast<std::uint16_t>(it - ranks_.begin());
}

}  // namespace slipway::pmix
