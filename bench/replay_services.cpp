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
#include "slipway/base/held_port.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

extern char** environ;

namespace slipway::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string peer(const std::string& name) {
  if (auto path = find_peer(name)) return *path;
  throw std::runtime_error(missing_peer_message(name));
}

// A server process: its stdin held open (json_replay.py ends when it
// closes), its stdout readable line by line, stopped on destruction.
class ServerProcess {
 public:
  ServerProcess(std::vector<std::string> argv, std::vector<std::string> extra_env, bool quiet) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    base::UniqueFd in_read(in[0]), out_write(out[1]);
    stdin_ = base::UniqueFd(in[1]);
    stdout_ = base::UniqueFd(out[0]);
    base::UniqueFd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    base::SpawnOptions options;
    options.argv = std::move(argv);
    options.env = environment_with(extra_env);
    options.stdin_fd = in_read.get();
    options.stdout_fd = quiet ? null.get() : out_write.get();
    pid_ = base::spawn(options);
  }
  ~ServerProcess() {
    stdin_.reset();
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(50ms);
    }
    ::kill(pid_, SIGKILL);
    base::wait_for(pid_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  pid_t pid() const noexcept { return pid_; }

  // Throws when the process has ended.
  void check_running(const std::string& what) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error(what + " ended at start: " + base::ExitStatus::from_wait_status(status).describe());
    }
  }

  // Its next stdout line within `timeout`; throws otherwise.
  std::string line(const std::string& what, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto pos = buffer_.find('\n'); pos != std::string::npos) {
        std::string out = buffer_.substr(0, pos);
        buffer_.erase(0, pos + 1);
        return out;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) throw std::runtime_error(what + " printed nothing within " + std::to_string(timeout.count()) + " ms");
      pollfd p{stdout_.get(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[512];
      const ssize_t n = ::read(stdout_.get(), chunk, sizeof chunk);
      if (n <= 0) {
        check_running(what);
        throw std::runtime_error(what + " closed its output");
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  base::UniqueFd stdin_, stdout_;
  std::string buffer_;
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

std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
      const auto eq = x.find('=');
      return entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1);
    });
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

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
