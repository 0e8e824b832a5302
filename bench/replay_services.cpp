// Starting and stopping the three services of `slipway-bench replay` (see
// replay_services.hpp). Every server runs in a process of its own; it is
// stopped with SIGTERM (SIGKILL after 5 s) when the benchmark ends.
#include "replay_services.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "peers.hpp"
#include "resp_client.hpp"
#include "slipway/base/child.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/held_port.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string peer(const std::string& name) {
  if (auto path = find_peer(name)) return *path;
  throw std::runtime_error(missing_peer_message(name));
}

// A server process (base::Child): its stdin held open (json_replay.py ends
// when it closes), its stdout readable line by line, stopped on destruction
// (SIGTERM, SIGKILL after 5 s).
class ServerProcess {
 public:
  ServerProcess(std::vector<std::string> argv, const std::vector<std::string>& extra_env, bool quiet)
      : child_(base::ChildOptions{std::move(argv), base::environment_with(extra_env),
                                  quiet ? base::ChildOptions::Output::discard : base::ChildOptions::Output::pipe,
                                  true, 5s}) {}
  pid_t pid() const noexcept { return child_.pid(); }

  // Throws when the process has ended.
  void check_running(const std::string& what) {
    if (auto ended = child_.poll_exit()) throw std::runtime_error(what + " ended at start: " + ended->describe());
  }

  // Its next stdout line within `timeout`; throws otherwise.
  std::string line(const std::string& what, std::chrono::milliseconds timeout) {
    if (auto line = child_.read_line(timeout)) return *line;
    check_running(what);
    throw std::runtime_error(what + " printed nothing within " + std::to_string(timeout.count()) + " ms");
  }

 private:
  base::Child child_;
};

class RedisService final : public ReplayService {
 public:
  explicit RedisService(std::uint64_t) {
    auto held = base::HeldPort::acquire("redis");
    port_ = held.port();
    held.release();  // redis-server binds it itself: a port below the ephemeral range
    process_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{peer("redis-server"), "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", ""},
        std::vector<std::string>{}, true);
    const auto deadline = Clock::now() + 10s;
    for (;;) {
      process_->check_running("redis-server");
      try {
        RespConnection redis("127.0.0.1", port_);
        redis.call({"FLUSHALL"});
        return;
      } catch (const std::exception& e) {
        if (Clock::now() > deadline) throw std::runtime_error(std::string("redis-server did not answer: ") + e.what());
      }
      std::this_thread::sleep_for(50ms);
    }
  }
  std::string address() const override { return "127.0.0.1:" + std::to_string(port_); }
  pid_t server_pid() const override { return process_->pid(); }

 private:
  std::uint16_t port_ = 0;
  std::unique_ptr<ServerProcess> process_;
};

class JsonService final : public ReplayService {
 public:
  explicit JsonService(std::uint64_t capacity)
      : process_({peer("python3"), peer("json_replay.py"), "--capacity", std::to_string(capacity)}, {}, false) {
    const std::string line = process_.line("json_replay.py", 20s);
    if (line.rfind("port ", 0) != 0) throw std::runtime_error("json_replay.py printed '" + line + "', not its port");
    address_ = "127.0.0.1:" + line.substr(5);
  }
  std::string address() const override { return address_; }
  pid_t server_pid() const override { return process_.pid(); }

 private:
  ServerProcess process_;
  std::string address_;
};

// slipway-replay as one shard of a node `node` with one table of the same
// name, `table` its JSON configuration less the name, found by its clients
// through a rendezvous this process serves.
class SlipwayService final : public ReplayService {
 public:
  SlipwayService(std::string node, const std::string& table, std::string ucx_tls)
      : node_(std::move(node)), token_(rendezvous::generate_token()), ucx_tls_(std::move(ucx_tls)) {
    const std::string program = peer("slipway-replay");
    rendezvous::ServerOptions options;
    options.token = token_;
    server_ = std::make_unique<rendezvous::Server>(options);
    server_->start();
    const std::string config = R"({"tables": [{"name": ")" + node_ + R"(", )" + table + "}]}";
    std::vector<std::string> env = role_env();
    env.push_back(std::string(core::env::kProgram) + "=bench-replay");
    env.push_back(std::string(core::env::kNode) + "=" + node_);
    env.push_back(std::string(core::env::kReplica) + "=0");
    env.push_back(std::string(core::env::kReplicas) + "=1");
    env.push_back(std::string(core::env::kAttempt) + "=0");
    env.push_back(std::string(core::env::kReplayConfig) + "=" + config);
    process_ = std::make_unique<ServerProcess>(std::vector<std::string>{program}, std::move(env), true);
    const auto deadline = Clock::now() + 30s;
    while (!server_->get("ucx/" + node_ + "/0")) {  // published: it serves
      process_->check_running("slipway-replay");
      if (Clock::now() > deadline) throw std::runtime_error("slipway-replay did not publish its address within 30 s");
      std::this_thread::sleep_for(20ms);
    }
  }
  ~SlipwayService() override {
    process_.reset();
    server_->stop();
  }
  std::string address() const override { return node_; }
  pid_t server_pid() const override { return process_->pid(); }
  std::vector<std::string> role_env() const override {
    std::vector<std::string> env = {std::string(core::env::kRendezvous) + "=" + server_->endpoint(),
                                    std::string(core::env::kToken) + "=" + token_};
    if (!ucx_tls_.empty()) env.push_back("UCX_TLS=" + ucx_tls_);
    return env;
  }

 private:
  std::string node_;
  std::string token_;
  std::string ucx_tls_;
  std::unique_ptr<rendezvous::Server> server_;
  std::unique_ptr<ServerProcess> process_;
};

}  // namespace

std::unique_ptr<ReplayService> start_redis(std::uint64_t capacity) { return std::make_unique<RedisService>(capacity); }
std::unique_ptr<ReplayService> start_json(std::uint64_t capacity) { return std::make_unique<JsonService>(capacity); }
std::unique_ptr<ReplayService> start_slipway(std::uint64_t capacity, const std::string& ucx_tls) {
  return std::make_unique<SlipwayService>(
      "replay",
      R"("kind": "table", "sampler": {"type": "uniform"}, "remover": {"type": "fifo"}, "max_size": )" +
          std::to_string(capacity) + R"(, "rate_limiter": {"type": "min_size", "min_size": 1})",
      ucx_tls);
}
std::unique_ptr<ReplayService> start_slipway_queue(std::uint64_t capacity, const std::string& ucx_tls) {
  return std::make_unique<SlipwayService>("queue", R"("kind": "queue", "max_size": )" + std::to_string(capacity),
                                          ucx_tls);
}

}  // namespace slipway::bench
