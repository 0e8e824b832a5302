// Reading a replay node's configuration back from its plan JSON field
// "replay" (written by replay_config_json): every field's type, name and
// bounds checked, a PlanJsonError naming the path of the first bad one.
#pragma once

#include "json_in.hpp"
#include "slipway/core/replay_settings.hpp"

namespace slipway::core {

ReplaySettings read_replay_settings(const In& in);

}  // namespace slipway::core
