// HostLosses: what a launcher whose units run on hosts that can be lost
// (the Slurm controller) tells the launcher loop about them; given with
// LauncherLoop::hear_losses(). A launcher without one (the local launcher:
// its host is this machine) has no lost hosts, and a vanished agent's unit
// ends with its process's real status.
//
// Contract: unit_lost() is asked when a running unit's agent vanished from
// the rendezvous without leaving (`carrier` none when it ended already);
// it returns whether the unit failed now (else it ends with its carrier).
// Once a loss can be heard, a unit whose carrier ends while its agent has
// joined and not left waits a moment for the rendezvous's verdict
// (kLossVerdictWait in launcher_units.cpp). no_room_for() says why no host
// could take the unit were it to start again now, or nothing when one
// could (asked as a unit is lost, so that its elastic node shrinks before
// its world's next epoch). slot_unhosted(): an elastic node shrank because
// `lost` had no host with room; `unhosted`, a slot of the same node, is the
// one without a host from now on (ElasticNodes::lost_without_room).
// carrier_drained(): every unit of a still running carrier has ended.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/unit_handle.hpp"

namespace slipway::launch {

class HostLosses {
 public:
  virtual ~HostLosses() = default;
  virtual bool unit_lost(std::size_t unit, UnitHandle carrier, const MemberEnded& event) = 0;
  virtual std::optional<std::string> no_room_for(std::size_t unit) = 0;
  virtual void slot_unhosted(std::size_t lost, std::size_t unhosted) = 0;
  virtual void carrier_drained(UnitHandle carrier) = 0;
};

}  // namespace slipway::launch
