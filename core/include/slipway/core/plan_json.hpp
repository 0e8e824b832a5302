// The plan's JSON form (docs/plan-json.md): everything a task needs to start
// (slipway-exec receives the plan file plus its node and replica).
//
// Contract: plan_from_json(plan_to_json(p, form)) reproduces p in either form
// except for source locations (read back as unknown). plan_from_json checks every field's type
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

// How the tasks are written: one object each ("tasks", what `slipway plan
// --json` prints), or as runs ("task_runs": consecutive tasks of one node
// that differ only in id, replica and local rank share one object with a
// "count"; what the launchers write for the agents, so that each agent of a
// 10,000-task program reads a few objects, not 10,000).
enum class PlanTasks { listed, runs };

nlohmann::json plan_to_json(const Plan& plan, PlanTasks form = PlanTasks::listed);

// The most bytes one task of `node` can add to plan_to_json(plan, form).dump(2)
// in either form (a run of one), whatever its replica, host, ranks and
// attempt within the limits plan_from_json accepts.
std::uint64_t task_json_bytes_bound(const NodeSpec& node);
Plan plan_from_json(const nlohmann::json& json);

// Reads a plan file written with plan_to_json(...).dump(); throws
// PlanJsonError naming the file on unreadable, malformed or invalid content.
Plan read_plan_file(const std::string& path);

}  // namespace slipway::core
