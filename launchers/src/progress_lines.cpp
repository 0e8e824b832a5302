// The launchers' progress lines (see progress_lines.hpp).
#include "progress_lines.hpp"

#include "slipway/base/terminal_stream.hpp"

namespace slipway::launch {

void say(const std::string& message) { base::terminal_stderr().write("slipway: " + message + "\n"); }

}  // namespace slipway::launch
