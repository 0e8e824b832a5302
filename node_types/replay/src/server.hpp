// The replay server of one shard: the engine behind a courier endpoint's
// async methods (docs/replay.md, "Wire protocol"), a timer that answers
// parked requests at their deadline and expires leases, and checkpoints
// (periodic, on request, on a checkpoint notice, at stop; loaded at start).
//
// Contract: handlers decode, lock the engine, and answer (now or later,
// from whichever thread unblocks them); they never block on I/O. Checkpoint
// files are written by a thread of their own from a snapshot taken under
// the lock (no data copied). serve() registers the methods; run() returns
// after stop(), having answered every parked request (not_ready). Close the
// endpoint before the Server goes (handlers use it).
#pragma once

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint_files.hpp"
#include "slipway/channels/endpoint.hpp"
#include "slipway/replay/config.hpp"
#include "slipway/replay/engine.hpp"
#include "slipway/replay/stats.hpp"

namespace slipway::replay {

// A checkpoint written: its file and what it holds.
struct CheckpointWritten {
  std::filesystem::path file;
  std::uint64_t items = 0;
  std::uint64_t bytes = 0;
};

struct ServerIdentity {
  std::string node;
  std::uint32_t replica = 0;
  std::uint32_t attempt = 0;
  std::filesystem::path run_dir;  // empty: outside slipway (the working directory)
};

class Server {
 public:
  using Log = std::function<void(const std::string&)>;
  // Loads the newest checkpoint when one is configured, logging one line
  // saying what was loaded from which file, or that there was none.
  Server(ServerConfig config, ServerIdentity identity, Log log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void serve(channels::Endpoint& endpoint);
  void run();
  void stop();

  // Writes a checkpoint now, from a snapshot taken after the call (so it
  // holds every item acknowledged before it), after any checkpoint being
  // written, and returns when it is on disk. Throws std::runtime_error
  // (saying why) when the shard has no checkpoint directory or the write
  // failed. Also after stop() (the final checkpoint); not from a handler.
  CheckpointWritten checkpoint_now();

  // Each table's counters and parked requests, and when a checkpoint was
  // last written (or the one loaded was written): the shard's stats
  // (slipway/replay/stats.hpp). Any thread.
  ShardStats stats();

  // Where this shard's checkpoints go (nullopt: none configured).
  const std::optional<std::filesystem::path>& checkpoint_directory() const noexcept { return directory_path_; }

 private:
  using Shared = std::shared_ptr<channels::Responder>;
  // Told of the checkpoint written for a request (nullopt and why: failed).
  using CheckpointDone = std::function<void(const std::optional<CheckpointWritten>&, const std::string& error)>;
  template <typename Handle>
  void method(channels::Endpoint& endpoint, const char* name, Handle handle,
              channels::MethodOrder order = channels::MethodOrder::arrival);
  void wake_if_before(Time at);
  void load();
  void checkpoint_loop();
  void request_checkpoint(CheckpointDone done);  // done may be empty (periodic)

  ServerConfig config_;
  ServerIdentity identity_;
  Log log_;
  std::optional<std::filesystem::path> directory_path_;
  std::unique_ptr<CheckpointDirectory> directory_;

  std::mutex mutex_;  // the engine, planned_, stopping_, last_checkpoint_unix_ms_
  std::condition_variable timer_;
  std::unique_ptr<Engine> engine_;
  std::optional<std::int64_t> last_checkpoint_unix_ms_;
  Time planned_ = Time::max();
  bool stopping_ = false;

  std::mutex checkpoint_mutex_;
  std::condition_variable checkpoint_wanted_;
  std::vector<CheckpointDone> checkpoint_waiters_;
  bool checkpoint_requested_ = false;
  bool checkpoint_stopping_ = false;
  std::thread checkpointer_;
};

}  // namespace slipway::replay
