// Starting one task's command and relaying its output (see task_command.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/exec/task_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "slipway/base/local_address.hpp"
#include "slipway/base/process.hpp"

namespace slipway::exec {
namespace {

void add_network_interface(const core::NodeSpec& node, const std::string& advertise_host,
                           core::EnvMap& env) {
  auto framework = *node.framework;
  if (framework != core::Framework::torch && framework != core::Framework::horovod) return;
  if (advertise_host.empty()) return;
  auto name = base::interface_of(advertise_host);
  if (!name) return;
  for (const char* variable : {"GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME"}) {
    bool user_set = std::getenv(variable) != nullptr;
    for (const auto& entry : node.env) user_set = user_set || *entry.name == variable;
    if (!user_set && !env.count(variable)) env[variable] = *name;
  }
}

}  // namespace

core::EnvMap added_environment(const core::Plan& plan, const core::Task& task,
                               const core::ResolvedAddresses& addresses, std::uint32_t attempt,
                               bool launcher_binds_gpus, const std::string& advertise_host) {
  core::TaskEnvironmentOptions options;
  options.launcher_binds_gpus = launcher_binds_gpus;
  auto added = core::task_environment(plan, task, attempt, addresses, options);
  add_network_interface(plan.node(task), advertise_host, added);
  return added;
}

TaskOutput::TaskOutput(const std::string& name, const std::string& log_dir, std::uint32_t attempt,
                       const std::string& host, std::uint64_t log_limit) {
  if (!log_dir.empty()) {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
    log_ = std::make_unique<TaskLog>(
        name, log_dir + "/" + name + ".log",
        "=== slipway: " + name + " attempt " + std::to_string(attempt) + " on " + host + " at " +
            when + " ===\n",
        log_limit);
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create output pipes: ") + std::strerror(errno));
  }
  out_.reset(out_pipe[0]);
  out_write_.reset(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create output pipes: ") + std::strerror(errno));
  }
  err_.reset(err_pipe[0]);
  err_write_.reset(err_pipe[1]);
  for (int fd : {out_.get(), err_.get()}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  out_lines_ = std::make_unique<LinePrefixer>(name + ": ", base::terminal_stdout());
  err_lines_ = std::make_unique<LinePrefixer>(name + ": ", base::terminal_stderr());
}

void TaskOutput::keep_log() {
  if (log_) log_->keep();
}

void TaskOutput::close_write_ends() {
  out_write_.reset();
  err_write_.reset();
}

std::vector<int> TaskOutput::open_fds() const {
  std::vector<int> fds;
  if (out_) fds.push_back(out_.get());
  if (err_) fds.push_back(err_.get());
  return fds;
}

bool TaskOutput::pump(int fd) {
  base::UniqueFd& end = fd == out_.get() ? out_ : err_;
  LinePrefixer& lines = fd == out_.get() ? *out_lines_ : *err_lines_;
  if (!end || end.get() != fd) return false;
  char buffer[16384];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    std::string_view bytes(buffer, static_cast<std::size_t>(n));
    if (log_) log_->append(bytes);
    lines.feed(bytes);
    return true;
  }
  if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    if (lines.finish() && log_) log_->append("\n");
    end.reset();
  }
  return false;
}

void TaskOutput::drain() {
  while (!finished()) {
    auto fds = open_fds();
    pollfd polled[2];
    for (std::size_t i = 0; i < fds.size(); ++i) polled[i] = {fds[i], POLLIN, 0};
    if (::poll(polled, fds.size(), -1) < 0 && errno != EINTR) return;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (polled[i].revents) pump(fds[i]);
    }
  }
}


const std::string& advertised_host(const core::Host& host, const std::string& advertise_host,
                                   const std::string& host_name) {
  return !host.address.empty() ? host.address : !advertise_host.empty() ? advertise_host : host_name;
}

std::chrono::milliseconds wire_timeout_from_environment(std::chrono::milliseconds given) {
  const char* seconds = std::getenv(core::env::kWireTimeout);
  if (!seconds || !*seconds) return given;
  return std::chrono::seconds(std::atoll(seconds));
}

std::string wire_timeout_message(std::chrono::milliseconds timeout,
                                 const std::vector<core::AddressRef>& missing) {
  std::string what;
  for (const auto& ref : missing) {
    what += (what.empty() ? "" : ", ") + ref.node + "." + std::to_string(ref.replica) +
            " port '" + ref.port + "'";
  }
  return "timed out after " + std::to_string(timeout.count() / 1000) +
         " s waiting for the address of " + what +
         "; check that those tasks started (see their logs), or raise the wait with "
         "SLIPWAY_WIRE_TIMEOUT=SECONDS";
}

pid_t start_command(const core::NodeSpec& node, std::vector<std::string> env, TaskOutput& output) {
  base::SpawnOptions spawn_options;
  spawn_options.argv = *node.wrapper;
  spawn_options.argv.insert(spawn_options.argv.end(), node.command->begin(), node.command->end());
  spawn_options.env = std::move(env);
  spawn_options.workdir = *node.workdir;
  spawn_options.new_process_group = true;
  spawn_options.parent_death_signal = SIGKILL;
  spawn_options.stdout_fd = output.stdout_write();
  spawn_options.stderr_fd = output.stderr_write();
  pid_t pid = base::spawn(spawn_options);
  output.close_write_ends();
  return pid;
}

std::string advertise_host_from_environment(const std::string& given,
                                            const std::string& rendezvous_endpoint) {
  if (const char* forced = std::getenv(core::env::kAdvertiseHost); forced && *forced) return forced;
  if (!given.empty() || rendezvous_endpoint.empty()) return given;
  return base::local_address_toward(base::endpoint_host(rendezvous_endpoint)).value_or("");
}

}  // namespace slipway::exec
