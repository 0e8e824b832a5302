// ElasticNodes: the I/O-free policy of elastic nodes' sizes while a program
// runs (docs/elastic.md). It holds each elastic node's live set and turns
// requests for a size into resizes, which the launcher carries out
// (Supervisor::resize).
//
// Contract:
// - A node's slots are the replicas the plan placed (MIN..MAX), those on
//   the allocation's hosts first (0..hosted-1), then those held for
//   satellite jobs (core/satellite_slots.hpp). A slot can run once it is
//   hosted: at start the first `hosted` are; grant() hosts the lowest
//   slot that is not (a satellite job was granted, or room found in the
//   job), release() gives the highest hosted one back when it is past the
//   plan's own (spec.hosted). A world's hosted slots are always 0..N-1.
// - Each node has a wanted size: at start every slot (grow = "auto") or MIN
//   of them (grow = "manual"), and it runs min(wanted, hosted) replicas.
//   satellites_wanted() is how many more slots it needs hosted.
// - request() asks for a size: it is clamped to MIN..slots (the line it
//   returns says so, and why) and becomes the wanted size. The first
//   request opens the node's settle window; later ones within it only
//   change the wanted size, so requests that come together make one
//   resize. A grant that the wanted size waits for opens the window too.
// - tick() returns the resizes whose window has passed and whose size
//   differs from the live one. A world node's live set is always
//   0..size-1 (dense ranks); a none node grows into its lowest free slots
//   and shrinks from its highest replicas (indices are stable: the others
//   keep theirs).
// - lost() shrinks a node at once by a replica that failed in a node with
//   on_loss = "shrink" (a world drops its highest rank instead: ranks stay
//   dense), unless it runs MIN already; the wanted size follows.
// - lost_without_room() shrinks it the same way for a replica whose host
//   is lost with no other host of the job having room, and one slot has
//   no host any more (Resize::unhosted): a world's highest hosted one (the
//   lost rank's replica takes its host), else the lost replica's own. With
//   `grow_back` the wanted size stays, so the node asks for that slot to be
//   hosted again (satellites_wanted) and grows back once it is; without,
//   the wanted size follows the live one, as with lost().
// - settle_for_hosted() lowers the wanted size to what is hosted (the
//   satellites it waited for will not come).
// - next_deadline() is the latest time by which tick() must be called.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "slipway/core/live_plan.hpp"
#include "slipway/launch/supervisor.hpp"

namespace slipway::launch {

struct ElasticNodeSpec {
  std::string node;
  std::uint32_t min = 1;
  std::uint32_t max = 1;
  std::uint32_t slots = 1;   // replicas the plan placed, MIN..MAX
  std::uint32_t hosted = 1;  // of them, on the allocation's hosts (the rest wait for satellites)
  bool world = false;        // its replicas form a world (torch)
  bool grow_manual = false;  // starts at MIN
  bool shrink_on_loss = false;  // a failed replica shrinks the node instead of restarting
  std::chrono::milliseconds settle{1000};
};

struct Resize {
  std::string node;
  std::vector<std::uint32_t> from;  // the live set before
  std::vector<std::uint32_t> live;  // the live set now
  std::string cause;                // "trainer grows from 2 to 4 replicas (slipway scale by ...)"
  // lost_without_room(): the slot that has no host from now on.
  std::optional<std::uint32_t> unhosted;
};

class ElasticNodes {
 public:
  explicit ElasticNodes(std::vector<ElasticNodeSpec> nodes);

  bool knows(const std::string& node) const { return nodes_.count(node) != 0; }
  const std::vector<std::uint32_t>& live(const std::string& node) const;
  // Every elastic node's live set.
  core::LiveSets live_sets() const;

  // `count` replicas of `node` (which must be known), asked by `who`.
  // Returns a line for the user when the request was clamped, else "".
  std::string request(const std::string& node, std::int64_t count, const std::string& who,
                      Clock::time_point now);
  std::vector<Resize> tick(Clock::time_point now);
  // `replica` of `node` is gone (`why`): the resize that drops it, or
  // nothing when the node is at MIN (or unknown).
  std::optional<Resize> lost(const std::string& node, std::uint32_t replica, const std::string& why);
  std::optional<Resize> lost_without_room(const std::string& node, std::uint32_t replica,
                                          const std::string& why, bool grow_back);
  bool shrinks_on_loss(const std::string& node) const;

  // Slots `node` wants hosted beyond those it has (0 for an unknown node).
  std::uint32_t satellites_wanted(const std::string& node) const;
  // The lowest unhosted slot of `node` is hosted now (`why`: "satellite job
  // 12 granted on fn3"); returns that slot.
  std::uint32_t grant(const std::string& node, const std::string& why, Clock::time_point now);
  // The highest hosted slot of `node` when it is past the plan's own
  // hosted slots, runs nothing and is not wanted (more slots are hosted
  // than wanted), else nothing; release() gives it back: it is no longer
  // hosted.
  std::optional<std::uint32_t> releasable(const std::string& node) const;
  std::optional<std::uint32_t> release(const std::string& node);
  // The wanted size of `node` drops to what is hosted (at least its live
  // size); returns the wanted size it had.
  std::uint32_t settle_for_hosted(const std::string& node);
  // Names of the elastic nodes.
  std::vector<std::string> names() const;
  std::optional<Clock::time_point> next_deadline() const;

 private:
  struct Node {
    ElasticNodeSpec spec;
    std::vector<std::uint32_t> live;
    std::uint32_t wanted = 0;
    std::vector<bool> hosted;  // by slot
    std::uint32_t hosted_count() const;
    std::optional<std::uint32_t> highest_hosted() const;
    std::optional<Clock::time_point> settle_until;
    std::vector<std::string> askers;  // and grants: the causes of the next resize
  };
  void open_window(Node& n, const std::string& cause, Clock::time_point now);
  static Resize shrink(Node& n, std::uint32_t replica, const std::string& why);
  std::map<std::string, Node> nodes_;
};

}  // namespace slipway::launch
