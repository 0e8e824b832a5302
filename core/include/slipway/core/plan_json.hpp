// The plan's JSON form (docs/plan-json.md): everything a task needs to start
// (slipway-exec receives the plan file plus its node and replica).
//
// Contract: plan_from_json(plan_to_json(p)) reproduces p except for source
// locations (read back as unknown). plan_from_json checks every field's type
// and bounds every count and length; on bad input it throws PlanJsonError
// naming the JSON path of the offending field.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "slipway/core/plan.hpp"

namespace slipway::core {

inline constexpr int kPlanJsonVersion = 1;

class PlanJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json plan_to_json(const Plan& plan);

// The most bytes one task of `node` can add to plan_to_json(plan).dump(2)
// (the form the launchers write), whatever its replica, host, ranks and
// attempt within the limits plan_from_json accepts.
std::uint64_t task_json_bytes_bound(const NodeSpec& node);
Plan plan_from_json(const nlohmann::json& json);

// Reads a plan file written with plan_to_json(...).dump(); throws
// PlanJsonError naming the file on unreadable, malformed or invalid content.
Plan read_plan_file(const std::string& path);

}  // namespace slipway::core
