// slipway-replay: the program a `type = "replay"` node runs. It reads its
// tables from SLIPWAY_REPLAY_CONFIG (JSON) and its identity from the task's
// environment (SLIPWAY_NODE, SLIPWAY_REPLICA, SLIPWAY_ATTEMPT,
// SLIPWAY_RUN_DIR, the rendezvous), loads its newest checkpoint, publishes
// a courier endpoint as NODE.REPLICA, puts its tables' stats as
// replay/stats/NODE.REPLICA every 2 s, and serves until SIGTERM or SIGINT. A
// checkpoint notice (SLIPWAY_NOTICE_FILE) makes it write a checkpoint at
// once and serve on; SIGTERM or SIGINT, a final checkpoint before it exits.
// docs/replay.md.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "notice_watch.hpp"
#include "server.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/core/contract.hpp"
#include "stats_reporter.hpp"

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

// A notice's reason as one printable line (it comes from a file).
std::string printable(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  return out;
}

// Checkpoints for each notice of SLIPWAY_NOTICE_FILE, while the shard serves.
std::unique_ptr<replay::NoticeWatch> watch_notices(replay::Server& server) {
  const std::string file = env_or(core::env::kNoticeFile, "");
  if (file.empty()) return nullptr;
  return std::make_unique<replay::NoticeWatch>(
      file,
      [&server](const core::CheckpointNotice& notice) {
        const std::string which = std::to_string(notice.seq) + " (" + printable(notice.reason) + ")";
        if (!server.checkpoint_directory()) {
          log_line("checkpoint notice " + which + ": this shard has no checkpoint path, nothing written");
          return;
        }
        try {
          const replay::CheckpointWritten written = server.checkpoint_now();
          log_line("checkpoint " + written.file.string() + " written for notice " + which);
        } catch (const std::exception& error) {
          log_line("no checkpoint for notice " + which + ": " + error.what());
        }
      },
      log_line);
}

// The program's rendezvous, for the courier directory and the stats.
std::shared_ptr<rendezvous::Client> connect_rendezvous() {
  try {
    return rendezvous::Client::connect_observer_from_environment();
  } catch (const rendezvous::Error& error) {
    throw std::runtime_error(std::string("cannot reach the program's rendezvous: ") + error.what() +
                             " (SLIPWAY_RDZV and SLIPWAY_TOKEN are set by `slipway run` and `slipway launch` "
                             "for every task)");
  }
}

// replay/stats/NODE.REPLICA every 2 s while the shard serves.
std::unique_ptr<replay::StatsReporter> report_stats(replay::Server& server, const replay::ServerIdentity& identity,
                                                    const std::shared_ptr<rendezvous::Client>& client) {
  return std::make_unique<replay::StatsReporter>(
      replay::stats_key(identity.node, identity.replica), [&server] { return server.stats(); },
      [client](const std::string& key, const std::string& value, replay::StatsReporter::Done done) {
        client->put_async(key, value, rendezvous::Scope::program,
                          [done](rendezvous::Status status, const std::string& message) {
                            done(status == rendezvous::Status::ok, message);
                          });
      },
      log_line);
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
  const auto rdzv = connect_rendezvous();
  channels::Endpoint endpoint({}, std::make_shared<channels::RendezvousDirectory>(rdzv));
  server.serve(endpoint);
  endpoint.publish();
  log_line("serving " + identity.node + "." + std::to_string(identity.replica) + " (attempt " +
           std::to_string(identity.attempt) + ")");
  auto notices = watch_notices(server);
  auto stats = report_stats(server, identity, rdzv);
  std::atomic<int> received{0};
  std::thread waiter([&] {
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    received = signal_number;
    server.stop();
  });
  server.run();  // returns after stop(), parked requests answered
  notices.reset();
  stats.reset();
  endpoint.close();  // no request comes in after the final checkpoint's snapshot
  waiter.join();     // run() returns only after the waiter's stop()
  if (server.checkpoint_directory()) {
    const std::string why = sigabbrev_np(received) != nullptr ? std::string("SIG") + sigabbrev_np(received)
                                                              : "signal " + std::to_string(received.load());
    try {
      const replay::CheckpointWritten written = server.checkpoint_now();
      log_line("final checkpoint " + written.file.string() + " written (" + why + "): " +
               std::to_string(written.items) + " items, " + std::to_string(written.bytes) + " bytes of data");
    } catch (const std::exception& error) {
      log_line("no final checkpoint (" + why + "): " + error.what());
    }
  }
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
