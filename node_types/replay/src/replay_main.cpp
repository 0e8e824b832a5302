// slipway-replay: the program a `type = "replay"` node runs. It reads its
// tables from SLIPWAY_REPLAY_CONFIG (JSON) and its identity from the task's
// environment (SLIPWAY_NODE, SLIPWAY_REPLICA, SLIPWAY_ATTEMPT,
// SLIPWAY_RUN_DIR, the rendezvous), loads its newest checkpoint, publishes
// a courier endpoint as NODE.REPLICA and serves until SIGTERM or SIGINT.
// docs/replay.md.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "server.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/core/contract.hpp"

using namespace slipway;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : std::string(value);
}

std::uint32_t env_number(const char* name) {
  const std::string text = env_or(name, "0");
  try {
    const unsigned long value = std::stoul(text);
    if (value > 0xFFFFFFFFUL) throw std::out_of_range(name);
    return static_cast<std::uint32_t>(value);
  } catch (const std::exception&) {
    throw std::runtime_error(std::string(name) + " is not a number: '" + text + "'");
  }
}

std::mutex log_mutex;
void log_line(const std::string& line) {
  std::lock_guard lock(log_mutex);
  std::fprintf(stdout, "slipway-replay: %s\n", line.c_str());
  std::fflush(stdout);
}

int serve() {
  const char* config_text = std::getenv(core::env::kReplayConfig);
  if (config_text == nullptr) {
    throw std::runtime_error(std::string(core::env::kReplayConfig) +
                             " is not set: slipway-replay runs as a `type = \"replay\"` node (docs/replay.md)");
  }
  replay::ServerConfig config = replay::parse_config(config_text);
  replay::ServerIdentity identity;
  identity.node = env_or(core::env::kNode, "replay");
  identity.replica = env_number(core::env::kReplica);
  identity.attempt = env_number(core::env::kAttempt);
  identity.run_dir = env_or(core::env::kRunDir, "");

  // Signals go to one thread that asks the server to stop; every other
  // thread (UCX's, the endpoint's) inherits them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  replay::Server server(std::move(config), identity, log_line);
  channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
  server.serve(endpoint);
  endpoint.publish();
  log_line("serving " + identity.node + "." + std::to_string(identity.replica) + " (attempt " +
           std::to_string(identity.attempt) + ")");
  std::thread waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  });
  server.run();  // returns after stop(), parked requests answered
  endpoint.close();
  waiter.join();  // run() returns only after the waiter's stop()
  log_line("stopped");
  return 0;
}

}  // namespace

int main() {
  try {
    return serve();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "slipway-replay: %s\n", error.what());
    return 1;
  }
}
