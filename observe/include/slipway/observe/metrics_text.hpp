// The Prometheus text exposition (format 0.0.4) of a status document:
// what /metrics serves (docs/observe.md lists every metric).
//
// Contract: names follow Prometheus's rules (slipway_ prefix, base units,
// _total only on counters); every family has HELP and TYPE; label values
// are escaped (\\, \", \n). Pure: no I/O.
#pragma once

#include <string>

#include "slipway/observe/program_status.hpp"

namespace slipway::observe {

std::string render_metrics(const ProgramStatus& status, const std::string& version);

}  // namespace slipway::observe
