// The launcher's process set-up (see launcher_process.hpp).
#include "launcher_process.hpp"

#include <signal.h>

#include <cstdlib>

#include <spdlog/spdlog.h>

#include "slipway/base/event_loop.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/core/contract.hpp"

namespace slipway::launch {

void prepare_launcher_process(const std::vector<int>& handled_signals) {
  for (int sig : handled_signals) {
    signal(sig, SIG_DFL);  // a background shell may have left SIGINT ignored
  }
  base::block_signals(handled_signals);  // before any thread starts
  signal(SIGPIPE, SIG_IGN);
  base::raise_descriptor_limit();
  base::terminal_stdout().never_block();
  base::terminal_stderr().never_block();
  base::disable_core_dumps();
  base::become_subreaper();
  spdlog::set_level(std::getenv(core::env::kDebug) ? spdlog::level::debug : spdlog::level::warn);
}

}  // namespace slipway::launch
