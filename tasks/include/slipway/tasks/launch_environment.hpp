// The environment a task's command starts with: the launching process's
// own, with slipway's variables laid over it, and the settings that come
// from the environment of the agent or launcher. Unit-tested.
//
// Contract:
// - added_environment(): what slipway adds to a task's inherited
//   environment: core::task_environment (SLIPWAY_ATTEMPT, SLIPWAY_EPOCH and
//   every variable derived from them carry `launch`), and for torch and horovod
//   nodes GLOO_SOCKET_IFNAME/TP_SOCKET_IFNAME naming the interface of
//   `advertise_host` (gloo picks its interface from the host name, which
//   often resolves to loopback on clusters), unless the user set them;
//   SLIPWAY_ADDR_FILE_* naming the live address files in `address_dir`
//   (none when it is empty).
// - merge_environment(): sets each variable of `added` in `env`, replacing
//   an entry of the same name (entries keep their position; new ones are
//   appended in order).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"

namespace slipway::tasks {

// A task starts from base::this_environment() with slipway's on top.
void merge_environment(std::vector<std::string>& env, const core::EnvMap& added);

core::EnvMap added_environment(const core::Plan& plan, const core::Task& task,
                               const core::ResolvedAddresses& addresses, core::TaskLaunch launch,
                               bool launcher_binds_gpus, const std::string& advertise_host,
                               const std::string& address_dir = {},
                               const std::string& run_dir = {});

// The address this host's tasks advertise: SLIPWAY_ADVERTISE_HOST when set,
// else `given` when not empty, else this host's address on the route to
// the rendezvous at `rendezvous_endpoint` (one every peer of the program can
// reach); empty when none of them gives one.
std::string advertise_host_from_environment(const std::string& given,
                                            const std::string& rendezvous_endpoint);

// The host a task's ports are published under: the plan's address for its
// host, else `advertise_host`, else `host_name`.
const std::string& advertised_host(const core::Host& host, const std::string& advertise_host,
                                   const std::string& host_name);

// SLIPWAY_WIRE_TIMEOUT (seconds) when set, else `given`.
std::chrono::milliseconds wire_timeout_from_environment(std::chrono::milliseconds given);

}  // namespace slipway::tasks
