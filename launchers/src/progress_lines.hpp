// The launchers' progress lines: what they start, restart, lose, and how
// the program finished, as "slipway: MESSAGE" on stderr (through the
// non-blocking terminal stream: a stalled reader never holds the launcher).
#pragma once

#include <string>

namespace slipway::launch {

void say(const std::string& message);

}  // namespace slipway::launch
