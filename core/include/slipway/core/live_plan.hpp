// Live sets: which replicas of each elastic node run now, and the plan a
// task starts with when some nodes run fewer replicas than were planned.
//
// Contract: the plan of a program places every replica an elastic node may
// run (up to its maximum, as far as the allocation has room): its slots.
// A live set names the slots that run now, in replica order. live_plan
// keeps the tasks of every node without a live set, and of the others only
// the live ones, with Task::replicas the live count and the local and group
// ranks counted among them; Task::id is the index in the new plan. Every
// environment function of environment.hpp given that plan describes the
// program as it runs now (WORLD_SIZE, handles' addresses). A torch node's
// live set is always 0..size-1 (ranks stay dense); a none node's may have
// holes (replica indices are stable).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::core {

// Every replica index is below this (the topology's limit on replicas):
// what parse_replica_list is bounded by when no plan is at hand.
inline constexpr std::uint32_t kReplicaIndexLimit = 100000;

// By node name: its live replicas, ascending. A node absent runs all of
// its planned tasks.
using LiveSets = std::map<std::string, std::vector<std::uint32_t>>;

// `plan` with only the live tasks of the nodes in `live`. A replica named
// but not planned is ignored.
Plan live_plan(const Plan& plan, const LiveSets& live);

// "0-2,5,7-8": ascending replicas, runs of 3 or more as ranges; "" for none.
std::string format_replica_list(const std::vector<std::uint32_t>& replicas);

// The inverse of format_replica_list (any order of ranges accepted; the
// result is ascending, without duplicates). Nothing when the text is not
// such a list, or names a replica at or above `limit`.
std::optional<std::vector<std::uint32_t>> parse_replica_list(std::string_view text,
                                                             std::uint32_t limit);

// `--live NODE=LIST` as slipway-exec takes it: the node and its live set.
struct LiveSetArgument {
  std::string node;
  std::vector<std::uint32_t> replicas;
};
std::string format_live_set(const std::string& node, const std::vector<std::uint32_t>& replicas);
std::optional<LiveSetArgument> parse_live_set(std::string_view text, std::uint32_t limit);

// The program key live/NODE (contract.hpp): "size=N min=MIN max=MAX
// replicas=LIST", N the count of LIST. Parsing takes the fields in any
// order and ignores unknown ones; nothing when a field is missing or
// malformed, or the list names a replica at or above `limit`.
struct LiveRecord {
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  std::vector<std::uint32_t> replicas;
  friend bool operator==(const LiveRecord&, const LiveRecord&) = default;
};
std::string format_live_record(const LiveRecord& record);
std::optional<LiveRecord> parse_live_record(std::string_view text, std::uint32_t limit);

}  // namespace slipway::core
