// The replay server: courier methods over the engine, its timer, and its
// checkpoints.
#include "server.hpp"

#include <sys/stat.h>

#include <future>
#include <stdexcept>
#include <utility>

#include "sample_reply.hpp"
#include "slipway/replay/wire.hpp"

namespace slipway::replay {

namespace fs = std::filesystem;

namespace {
std::string task_name(const ServerIdentity& identity) {
  return identity.node + "." + std::to_string(identity.replica);
}

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// When `file` was last written (Unix ms); nothing when it cannot be read.
std::optional<std::int64_t> written_unix_ms(const fs::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return std::nullopt;
  return std::int64_t{info.st_mtim.tv_sec} * 1000 + info.st_mtim.tv_nsec / 1000000;
}

Bytes refusal(Status status, std::string message) {
  Outcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return wire::encode_outcome(outcome);
}

// A parked method's reply, in one buffer; a sample with an item of
// kGatherBytes or more goes out gathered (gather_reply(), sample_reply.hpp):
// its large items leave from where the store keeps them instead of being
// copied into one buffer (the shard's CPU per item of the 40 KiB queue
// 14.5-15.7 us before, 11.6-12.6 after; docs/replay.md).
template <typename Reply>
void answer(channels::Responder& responder, const Reply& reply) {
  responder.reply(wire::encode_reply(reply));
}
void answer(channels::Responder& responder, const SampleReply& reply) {
  for (const auto& item : reply.items) {
    if (item.data->bytes().size() >= kGatherBytes) {
      responder.reply_gathered(gather_reply(reply));
      return;
    }
  }
  responder.reply(wire::encode_reply(reply));  // small items only: one buffer
}
}  // namespace

Server::Server(ServerConfig config, ServerIdentity identity, Log log)
    : config_(std::move(config)), identity_(std::move(identity)), log_(std::move(log)) {
  engine_ = std::make_unique<Engine>(config_.engine, identity_.replica);
  engine_->set_server_attempt(identity_.attempt);
  // PATH/NODE.REPLICA (each shard its own directory), PATH the configured
  // one or the run directory's replay/; outside slipway without a
  // configured path, no checkpoints.
  const std::string configured = config_.checkpoint ? config_.checkpoint->path : std::string();
  if (!configured.empty() || !identity_.run_dir.empty()) {
    const fs::path base = configured.empty() ? identity_.run_dir / "replay" : fs::path(configured);
    directory_path_ = base / task_name(identity_);
    directory_ = std::make_unique<CheckpointDirectory>(*directory_path_);
  }
  load();
  checkpointer_ = std::thread([this] { checkpoint_loop(); });
}

Server::~Server() {
  stop();
  {
    std::lock_guard lock(checkpoint_mutex_);
    checkpoint_stopping_ = true;
  }
  checkpoint_wanted_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
}

void Server::load() {
  if (!directory_) {
    log_("no checkpoint path (no SLIPWAY_RUN_DIR, no configured path): starting empty");
    return;
  }
  std::vector<std::string> skipped;
  CheckpointLimits limits;
  limits.max_blob_bytes = config_.engine.limits.max_item_bytes;
  limits.max_file_bytes = config_.engine.limits.max_data_bytes + kCheckpointRecordBytes;
  auto loaded = directory_->load_newest(engine_->store(), limits, skipped);
  for (const auto& why : skipped) log_("skipped checkpoint " + why);
  if (!loaded) {
    log_("no checkpoint under " + directory_->directory().string() + ": starting empty");
    return;
  }
  const std::size_t tables = loaded->snapshot.tables.size();
  const std::uint64_t items = loaded->snapshot.item_count();
  const std::uint64_t bytes = loaded->snapshot.data_bytes();
  try {
    for (const auto& note : engine_->restore(std::move(loaded->snapshot))) log_(note);
  } catch (const std::exception& error) {
    engine_ = std::make_unique<Engine>(config_.engine, identity_.replica);
    engine_->set_server_attempt(identity_.attempt);
    log_("checkpoint " + loaded->file.string() + " does not fit the configuration (" + error.what() +
         "): starting empty");
    return;
  }
  engine_->set_checkpoint_path(loaded->file.string());
  last_checkpoint_unix_ms_ = written_unix_ms(loaded->file);
  log_("loaded checkpoint " + loaded->file.string() + ": " + std::to_string(tables) + " tables, " +
       std::to_string(items) + " items, " + std::to_string(bytes) + " bytes of data");
}

void Server::wake_if_before(Time at) {
  // Called with mutex_ held.
  if (at < planned_) {
    planned_ = at;
    timer_.notify_one();
  }
}

template <typename Handle>
void Server::method(channels::Endpoint& endpoint, const char* name, Handle handle, channels::MethodOrder order) {
  endpoint.register_async_method(name, [this, name, handle](channels::ByteView request, channels::Responder r) {
    auto responder = std::make_shared<channels::Responder>(std::move(r));
    Bytes refused;
    try {
      ByteReader in(request);
      const Caller caller = wire::get_caller(in);
      handle(caller, in, responder);
      return;
    } catch (const ByteError& error) {
      refused = refusal(Status::invalid, std::string(name) + ": " + error.what());
    }
    responder->reply(std::move(refused));
  }, order);
}

void Server::serve(channels::Endpoint& endpoint) {
  method(endpoint, "info", [this](const Caller& caller, ByteReader& in, const Shared& responder) {
    in.finish("info request");
    std::lock_guard lock(mutex_);
    responder->reply(wire::encode_reply(engine_->info(caller, Clock::now())));
  });
  // The methods that may park: decode, hand to the engine with a
  // completion that answers, and wake the timer for the new deadline.
  const auto parking = [this, &endpoint](const char* name, auto decode, auto submit) {
    const bool leases = std::string_view(name) == "lease";
    // Inserts (up to 64 KiB and more each, from many actors) are handled
    // after the samples, leases and other small requests that came in with
    // them: a learner's sample does not wait behind a turn's inserts.
    const auto order = std::string_view(name) == "insert" ? channels::MethodOrder::bulk
                                                          : channels::MethodOrder::arrival;
    method(endpoint, name, [this, decode, submit, leases](const Caller& caller, ByteReader& in, const Shared& responder) {
      auto request = decode(in, *responder);
      const auto wait = std::chrono::milliseconds(std::min(request.wait_ms, config_.engine.limits.max_wait_ms));
      // Answered at once (the usual case) or parked: only a parked request
      // has a deadline the timer thread must know of, so only it wakes the
      // timer (waking it per request cost a futex round and the lock).
      auto answered = std::make_shared<bool>(false);
      std::lock_guard lock(mutex_);
      const Time now = Clock::now();
      submit(*engine_, caller, std::move(request), now, [responder, answered](auto reply) {
        *answered = true;  // under mutex_: the engine answers with it held
        answer(*responder, reply);
      });
      if (!*answered) wake_if_before(now + wait);
      if (leases) {
        if (const auto next = engine_->next_deadline()) wake_if_before(*next);  // the new leases' expiry
      }
    }, order);
  };
  // An insert keeps the courier's request: its items' data stay where they
  // came (the engine shares the buffer among them, or copies them out).
  const auto decode_insert = [](ByteReader& in, channels::Responder& r) {
    return wire::decode_insert(in, r.take_request());
  };
  const auto decode_sample = [](ByteReader& in, channels::Responder&) { return wire::decode_sample(in); };
  const auto decode_lease = [](ByteReader& in, channels::Responder&) { return wire::decode_lease(in); };
  parking("insert", decode_insert, [](Engine& e, const Caller& c, InsertRequest r, Time now, auto done) {
    e.insert(c, std::move(r), now, std::move(done));
  });
  parking("sample", decode_sample, [](Engine& e, const Caller& c, SampleRequest r, Time now, auto done) {
    e.sample(c, std::move(r), now, std::move(done));
  });
  parking("lease", decode_lease, [](Engine& e, const Caller& c, LeaseRequest r, Time now, auto done) {
    e.lease(c, std::move(r), now, std::move(done));
  });
  method(endpoint, "mutate", [this](const Caller& caller, ByteReader& in, const Shared& responder) {
    const MutateRequest request = wire::decode_mutate(in);
    std::lock_guard lock(mutex_);
    responder->reply(wire::encode_reply(engine_->mutate(caller, request, Clock::now())));
  });
  method(endpoint, "reset", [this](const Caller& caller, ByteReader& in, const Shared& responder) {
    const std::string table = wire::decode_table(in);
    std::lock_guard lock(mutex_);
    responder->reply(wire::encode_outcome(engine_->reset(caller, table, Clock::now())));
  });
  for (const bool ack : {true, false}) {
    method(endpoint, ack ? "ack" : "nack", [this, ack](const Caller& caller, ByteReader& in, const Shared& responder) {
      const wire::LeasesRequest request = wire::decode_leases(in);
      std::lock_guard lock(mutex_);
      const Time now = Clock::now();
      const auto reply = ack ? engine_->ack(caller, request.table, request.leases, now)
                             : engine_->nack(caller, request.table, request.leases, now);
      responder->reply(wire::encode_reply(reply));
    });
  }
  method(endpoint, "checkpoint", [this](const Caller& /*caller*/, ByteReader& in, const Shared& responder) {
    in.finish("checkpoint request");
    if (!directory_) {
      responder->reply(refusal(Status::invalid, "this replay server has no checkpoint path (outside slipway: "
                                                "set the configuration's checkpoint.path)"));
      return;
    }
    request_checkpoint([responder](const std::optional<CheckpointWritten>& written, const std::string& error) {
      if (!written) {
        responder->reply(refusal(Status::invalid, error));
        return;
      }
      PathReply reply;
      reply.path = written->file.string();
      responder->reply(wire::encode_reply(reply));
    });
  });
}

void Server::run() {
  const auto every = config_.checkpoint ? config_.checkpoint->every : std::chrono::milliseconds(0);
  Time next_checkpoint = every.count() > 0 ? Clock::now() + every : Time::max();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const Time now = Clock::now();
    engine_->tick(now);
    if (now >= next_checkpoint) {
      request_checkpoint({});
      next_checkpoint = now + every;
    }
    Time next = std::min(next_checkpoint, now + std::chrono::hours(1));
    if (const auto deadline = engine_->next_deadline()) next = std::min(next, *deadline);
    planned_ = next;
    timer_.wait_until(lock, next);
  }
  // Answer every parked request before the endpoint closes.
  engine_->drain(Clock::now());
}

void Server::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  timer_.notify_all();
}

ShardStats Server::stats() {
  std::lock_guard lock(mutex_);
  return {engine_->stats(Clock::now()), last_checkpoint_unix_ms_};
}

void Server::request_checkpoint(CheckpointDone done) {
  {
    std::unique_lock lock(checkpoint_mutex_);
    if (checkpoint_stopping_) {
      lock.unlock();
      if (done) done(std::nullopt, "the replay server is stopping");
      return;
    }
    if (done) checkpoint_waiters_.push_back(std::move(done));
    checkpoint_requested_ = true;
  }
  checkpoint_wanted_.notify_one();
}

CheckpointWritten Server::checkpoint_now() {
  if (!directory_) {
    throw std::runtime_error("this replay server has no checkpoint path (outside slipway: set the "
                             "configuration's checkpoint.path)");
  }
  auto written = std::make_shared<std::promise<CheckpointWritten>>();
  std::future<CheckpointWritten> result = written->get_future();
  request_checkpoint([written](const std::optional<CheckpointWritten>& file, const std::string& error) {
    if (file) {
      written->set_value(*file);
    } else {
      written->set_exception(std::make_exception_ptr(std::runtime_error(error)));
    }
  });
  return result.get();
}

void Server::checkpoint_loop() {
  while (true) {
    std::vector<CheckpointDone> waiters;
    {
      std::unique_lock lock(checkpoint_mutex_);
      checkpoint_wanted_.wait(lock, [this] { return checkpoint_requested_ || checkpoint_stopping_; });
      if (checkpoint_stopping_) {
        for (auto& waiter : checkpoint_waiters_) waiter(std::nullopt, "the replay server is stopping");
        return;
      }
      checkpoint_requested_ = false;
      waiters.swap(checkpoint_waiters_);
    }
    std::optional<CheckpointWritten> written;
    std::string error;
    try {
      Snapshot snapshot;
      {
        std::lock_guard lock(mutex_);
        snapshot = engine_->snapshot();
      }
      std::vector<std::string> notes;
      const fs::path file = directory_->write(snapshot, notes);
      for (const auto& note : notes) log_(note);
      {
        std::lock_guard lock(mutex_);
        engine_->set_checkpoint_path(file.string());
        last_checkpoint_unix_ms_ = unix_ms_now();
      }
      written = CheckpointWritten{file, snapshot.item_count(), snapshot.data_bytes()};
      if (waiters.empty()) {
        log_("checkpoint " + file.string() + ": " + std::to_string(written->items) + " items, " +
             std::to_string(written->bytes) + " bytes of data");
      }
    } catch (const std::exception& failure) {
      error = std::string("checkpoint failed: ") + failure.what();
      log_(error);
    }
    for (auto& waiter : waiters) waiter(written, error);
  }
}

}  // namespace slipway::replay
