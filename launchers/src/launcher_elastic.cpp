// LauncherLoop, elastic nodes: it carries out what ElasticControl
// (elastic_control.hpp) decides: scale requests heard, resizes as the
// supervisor's, the live record and address files renewed, replicas that
// found no room shrinking their node, satellite slots for a launcher that
// can host them.
#include "launcher_loop.hpp"

#include <signal.h>
#include <chrono>
#include <string>
#include <vector>

#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/server.hpp"

namespace slipway::launch {

void LauncherLoop::publish_live(const std::string& node) {
  if (auto record = elastic_->live_record(node)) control_->server().put(core::keys::live(node), *record);
}

void LauncherLoop::on_scale_request(const std::string& key) {
  const auto value = control_->server().get(key);
  if (!value || finished_) return;
  const std::string line = elastic_->scale_request(key, *value, Clock::now());
  if (!line.empty()) say(line);
}

std::vector<std::string> LauncherLoop::elastic_node_names() const { return elastic_->nodes().names(); }

std::uint32_t LauncherLoop::satellites_wanted(const std::string& node) const {
  return finished_ || supervisor_->stopping() ? 0 : elastic_->nodes().satellites_wanted(node);
}

std::size_t LauncherLoop::satellite_granted(const std::string& node, const std::string& why) {
  return elastic_->grant_satellite(node, why, Clock::now());
}

std::optional<std::size_t> LauncherLoop::satellite_releasable(const std::string& node) {
  // A unit whose step still ends is not released yet.
  return elastic_->release_satellite(node, [this](std::size_t unit) { return unit_carrier(unit) || unit_starting(unit); });
}

void LauncherLoop::satellites_abandoned(const std::string& node, const std::string& why) {
  say(elastic_->abandon_satellites(node, why));
}

void LauncherLoop::apply_resizes(Clock::time_point now) {
  if (finished_) return;
  for (const Resize& r : elastic_->nodes().tick(now)) apply_resize(r, now);
}

bool LauncherLoop::shrink_for(std::size_t unit, const std::string& why, bool grow_back) {
  const auto replica = elastic_->replica_of(unit);
  if (!replica) return false;
  auto resize = elastic_->nodes().lost_without_room(
      replica->node, replica->replica, "no host has room for " + plan_.tasks[units_[unit].tasks.front()].name(),
      grow_back);
  if (!resize) return false;
  say(units_[unit].name + ": " + why);
  if (resize->unhosted && losses_ != nullptr) {
    losses_->slot_unhosted(unit, unit_of_task(replica->node + "." + std::to_string(*resize->unhosted)));
  }
  const auto now = Clock::now();
  apply_resize(*resize, now, unit);
  // Expected now: its world restarts without it, or it is retired.
  carry_out(supervisor_->unit_exited(unit, UnitExit{true, SIGKILL}, now));
  return true;
}

void LauncherLoop::apply_resize(const Resize& r, Clock::time_point now, std::optional<std::size_t> ended) {
  const ElasticControl::Steps steps = elastic_->resize_steps(r, ended);
  publish_live(r.node);
  if (!steps.line.empty()) say(steps.line);
  record_event("resize", r.node, steps.event_cause);
  carry_out(supervisor_->resize(steps.start, steps.retire, r.cause, now));
  address_files_.write(r.node, *elastic_->live_plan());
}

std::vector<std::string> LauncherLoop::live_arguments() const { return elastic_->live_arguments(); }

const std::shared_ptr<const core::Plan>& LauncherLoop::live_plan() const { return elastic_->live_plan(); }

void LauncherLoop::ended_without_room(std::size_t unit, const std::string& why_text, bool grow_back) {
  if (shrink_for(unit, why_text, grow_back)) return;
  std::string why = why_text;
  if (const std::string minimum = elastic_->cannot_shrink(unit); !minimum.empty()) why += "; " + minimum;
  say(units_[unit].name + ": " + why);
  outcome_.not_started(unit, supervisor_->unit(unit).attempt, why);
  carry_out(supervisor_->unit_exited(unit, UnitExit{false, 127}, Clock::now()));
}

void LauncherLoop::host_found(std::size_t unit) {
  queue_->host_found(unit);  // started by start_queued, at the end of this turn
}

void LauncherLoop::host_not_found(std::size_t unit, const std::string& why) {
  if (!queue_->host_not_found(unit)) return;
  ended_without_room(unit, why, false);
}

}  // namespace slipway::launch
