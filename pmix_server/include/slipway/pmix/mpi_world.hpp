// The MPI world of a program: the tasks of its framework = "mpi" nodes, as
// one PMIx namespace. Pure functions of the plan (no libpmix), so every
// task agent computes the same world on its own.
//
// Contract: ranks follow plan order (nodes in file order, replicas in
// order), so each mpi node is one application (MPMD: appnum = the node's
// index among the mpi nodes) holding a contiguous run of ranks. The PMIx
// nodes of the world are the plan hosts its ranks run on, numbered in order
// of first use. local_view() describes the ranks one PMIx server (one task
// agent) hosts: their local ranks are their order among those ranks, as
// openpmix and Open MPI require (local_rank < local size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::pmix {

struct WorldProc {
  std::uint32_t rank = 0;
  std::uint32_t task_id = 0;   // index in Plan::tasks
  std::string node;
  std::uint32_t replica = 0;
  std::uint32_t appnum = 0;
  std::uint32_t app_rank = 0;  // rank within its application
  std::uint32_t nodeid = 0;    // index in MpiWorld::hosts()
};

struct WorldApp {
  std::string node;
  std::uint32_t appnum = 0;
  std::uint32_t first_rank = 0;
  std::uint32_t size = 0;
  std::string workdir;
  std::vector<std::string> argv;  // wrapper + command
};

struct WorldHost {
  std::string name;                  // the plan host's name (PMIX_HOSTNAME)
  std::uint32_t nodeid = 0;
  std::vector<std::uint32_t> ranks;  // world ranks placed there, ascending
};

// A run of replicas of one node: what the rendezvous fences over.
struct MemberRange {
  std::string node;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  friend bool operator==(const MemberRange&, const MemberRange&) = default;
};

class MpiWorld {
 public:
  // The world of `plan`, named by namespace_name(program, instance); nothing
  // when the program has no framework = "mpi" node.
  static std::optional<MpiWorld> from_plan(const core::Plan& plan, std::string_view instance);

  const std::string& nspace() const { return nspace_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(procs_.size()); }
  const std::vector<WorldProc>& procs() const { return procs_; }  // indexed by rank
  const std::vector<WorldApp>& apps() const { return apps_; }
  const std::vector<WorldHost>& hosts() const { return hosts_; }

  std::optional<std::uint32_t> rank_of(std::string_view node, std::uint32_t replica) const;
  // "node.replica" of a rank (for messages).
  std::string task_name(std::uint32_t rank) const;

  // The fewest member ranges covering `ranks` (any order, no duplicates
  // expected; duplicates are ignored).
  std::vector<MemberRange> member_ranges(std::vector<std::uint32_t> ranks) const;
  std::vector<std::uint32_t> all_ranks() const;

 private:
  std::string nspace_;
  std::vector<WorldProc> procs_;
  std::vector<WorldApp> apps_;
  std::vector<WorldHost> hosts_;
};

// The ranks one PMIx server hosts, and each one's local rank.
class LocalView {
 public:
  // `ranks` in any order; kept sorted.
  LocalView(const MpiWorld& world, std::vector<std::uint32_t> ranks);
  const std::vector<std::uint32_t>& ranks() const { return ranks_; }
  bool hosts(std::uint32_t rank) const;
  std::optional<std::uint16_t> local_rank(std::uint32_t rank) const;
  // The PMIx node (plan host) of these ranks: the host of the first one.
  std::uint32_t nodeid() const { return nodeid_; }

 private:
  std::vector<std::uint32_t> ranks_;
  std::uint32_t nodeid_ = 0;
};

// "slipway-<program>-<instance>", shortened to fit PMIx's namespace length;
// characters outside [A-Za-z0-9._-] become '_'. `instance` tells apart two
// runs of one program (e.g. a hash of the rendezvous endpoint).
std::string namespace_name(std::string_view program, std::string_view instance);

// 16 hex digits of FNV-1a/64: short, stable names for instances and fences.
std::string short_hash(std::string_view text);

}  // namespace slipway::pmix
