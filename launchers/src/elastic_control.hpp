// ElasticControl: the launcher's side of elastic nodes (docs/elastic.md)
// between the rendezvous and ElasticNodes (elastic_nodes.hpp): the nodes'
// specs from the plan, the live plan every start is given, what a scale
// request (the key scale/NODE) says, which units a resize starts and
// retires, and the satellite slots a launcher that can host them grants
// and releases. I/O-free: the loop carries out what it decides, and says
// the lines it returns.
//
// Contract:
// - live_plan() is core::live_plan of the live sets, renewed by every
//   resize_steps(); live_record(node) is the value of live/NODE (nothing
//   for a node that is not elastic).
// - scale_request(key, value, now) reads the key scale/NODE's value,
//   "COUNT[ WHO]", and returns the line to say (empty: nothing to say); key
//   and value are as a task wrote them and are escaped here.
// - replica_of(unit): the elastic node's replica a unit runs (a unit of one
//   task of an elastic, uncolocated node), or nothing.
// - cannot_shrink(unit): why a replica that found no room fails instead of
//   shrinking its node (it runs its minimum), or "" for a unit of no
//   elastic node.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/launch/elastic_nodes.hpp"
#include "slipway/launch/launch_units.hpp"

namespace slipway::launch {

class ElasticControl {
 public:
  using Clock = std::chrono::steady_clock;

  ElasticControl(const core::Plan& plan, const std::vector<LaunchUnit>& units);

  ElasticNodes& nodes() { return nodes_; }
  const ElasticNodes& nodes() const { return nodes_; }
  const std::shared_ptr<const core::Plan>& live_plan() const { return live_plan_; }
  // slipway-exec's arguments for the live plan: "--live", "NODE=LIST" per node.
  std::vector<std::string> live_arguments() const;
  std::optional<std::string> live_record(const std::string& node) const;
  std::string scale_request(const std::string& key, const std::string& value, Clock::time_point now);

  struct ReplicaOf {
    std::string node;
    std::uint32_t replica;
  };
  std::optional<ReplicaOf> replica_of(std::size_t unit) const;
  // Whether `unit` starts idle: a replica outside its node's live set.
  bool starts_idle(std::size_t unit) const;
  std::string cannot_shrink(std::size_t unit) const;

  // What a resize does: the units it starts and retires, the line to say
  // (empty for a world's: the supervisor says it, with its epoch), and the
  // event's cause. `ended`: a unit that ended already (not said to stop).
  struct Steps {
    std::vector<std::size_t> start;
    std::vector<std::size_t> retire;
    std::string line;
    std::string event_cause;
  };
  Steps resize_steps(const Resize& resize, std::optional<std::size_t> ended);

  // Satellite slots: one granted to `node` (returns its unit); the unit of
  // a granted slot no longer wanted, released unless `busy(unit)` (its
  // step still ends); the line said when a node settles for its hosted
  // slots.
  std::size_t grant_satellite(const std::string& node, const std::string& why, Clock::time_point now);
  std::optional<std::size_t> release_satellite(const std::string& node, const std::function<bool(std::size_t)>& busy);
  std::string abandon_satellites(const std::string& node, const std::string& why);

 private:
  std::size_t unit_of(const std::string& node, std::uint32_t replica) const;

  const core::Plan& plan_;
  const std::vector<LaunchUnit>& units_;
  std::vector<std::size_t> unit_of_task_;  // by index in Plan::tasks
  ElasticNodes nodes_;
  std::shared_ptr<const core::Plan> live_plan_;
};

}  // namespace slipway::launch
