// Built by installed.sh against the installed libslipway-dev: the replay
// client's C++ wrapper (replay.hpp over replay.h) compiles and links to
// libslipway-courier.so, and a client for a node that no directory knows
// fails with a status instead of throwing anything else.
#include <cstdio>

#include "slipway/channels/courier.hpp"
#include "slipway/replay/replay.hpp"

int main() {
  slipway_endpoint_options options = slipway::courier::Endpoint::default_options();
  options.name = "check";
  options.directory = SLIPWAY_DIRECTORY_NONE;
  slipway::courier::Endpoint endpoint(options);
  try {
    slipway::courier::ReplayClient client(endpoint, "replay");
    std::printf("a replay client without a directory was made\n");
    return 1;
  } catch (const slipway::courier::Error& e) {
    std::printf("replay client: %s\n", slipway_status_name(e.code()));
  }
  return 0;
}
