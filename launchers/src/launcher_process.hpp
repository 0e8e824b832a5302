// The launcher's process, set up once before its loop starts: the signals
// it handles blocked (before any thread starts) and back to their default
// dispositions, SIGPIPE ignored (task output goes through it: a closed
// terminal must not stop the program), the descriptor limit raised (two
// pipes per task it runs itself), its stdout and stderr never blocking (a
// stalled reader never holds the loop), no core dumps (it holds the
// program's secret), a subreaper (no orphan escapes its teardown), and the
// rendezvous's log level (detail only with SLIPWAY_DEBUG=1).
#pragma once

#include <vector>

namespace slipway::launch {

void prepare_launcher_process(const std::vector<int>& handled_signals);

}  // namespace slipway::launch
