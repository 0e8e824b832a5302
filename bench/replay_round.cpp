// A round of `slipway-bench replay` (see replay_round.hpp): the roles are
// this binary re-executed (replay_roles.hpp); the CPU of the server, the
// roles and this process is read at the window's start and end.
#include "replay_round.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "replay_cpu.hpp"
#include "replay_roles.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One load process, its stdout on a pipe.
struct RoleProcess {
  pid_t pid = -1;
  base::UniqueFd out;
  std::string who;
  bool learner = false;
};

RoleProcess spawn_role(const RoleSpec& spec, const std::vector<std::string>& extra_env) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  base::UniqueFd read_end(fds[0]), write_end(fds[1]);
  base::SpawnOptions options;
  options.argv = {"/proc/self/exe", "replay"};
  for (auto& a : role_arguments(spec)) options.argv.push_back(std::move(a));
  options.env = base::environment_with(extra_env);
  options.stdout_fd = write_end.get();
  options.new_process_group = false;
  RoleProcess p;
  p.pid = base::spawn(options);
  p.out = std::move(read_end);
  p.who = spec.service + (spec.learner ? " learner" : " actor " + std::to_string(spec.id));
  p.learner = spec.learner;
  return p;
}

RoleResult collect(RoleProcess& p) {
  std::string text;
  char chunk[256];
  for (ssize_t n; (n = ::read(p.out.get(), chunk, sizeof chunk)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (text.size() < 65536) text.append(chunk, static_cast<std::size_t>(n));
  }
  const base::ExitStatus status = base::wait_for(p.pid);
  RoleResult r;
  // The figures are the role's last line (UCX may have written warnings
  // to stdout before it).
  const std::size_t last = text.rfind("items=");
  if (!status.success() || last == std::string::npos ||
      std::sscanf(text.c_str() + last, "items=%" SCNu64 " requests=%" SCNu64, &r.items, &r.requests) != 2) {
    throw std::runtime_error("the " + p.who + " " + status.describe() + " (its output: '" + text + "')");
  }
  return r;
}

Clock::duration seconds_of(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

RoundResult run_round(const ReplayService& service, const RoundSpec& spec) {
  LoadWindow w;
  w.start = Clock::now() + seconds_of(spec.lead_seconds);  // time to start and connect
  w.from = w.start + seconds_of(spec.warmup_seconds);
  w.to = w.from + seconds_of(spec.seconds);
  std::vector<RoleProcess> roles;
  const auto env = service.role_env();
  const bool actors = spec.phase != Phase::samples;
  const bool learner = spec.phase != Phase::inserts;
  for (int i = actors ? 0 : spec.actors; i <= (learner ? spec.actors : spec.actors - 1); ++i) {
    RoleSpec role;
    role.learner = i == spec.actors;
    role.service = spec.role_service;
    role.address = service.address();
    role.id = spec.first_actor_id + i;
    role.window = w;
    role.load = spec.load;
    roles.push_back(spawn_role(role, env));
  }
  std::vector<pid_t> pids = {service.server_pid(), ::getpid()};
  for (const auto& role : roles) pids.push_back(role.pid);
  std::this_thread::sleep_until(w.from);
  const auto before = read_cpu(pids);
  std::this_thread::sleep_until(w.to);
  const auto after = read_cpu(pids);

  RoundResult result;
  result.seconds = spec.seconds;
  result.server_cpu = cpu_used(before, after, service.server_pid()).seconds;
  result.total_cpu = cpu_used_total(before, after).seconds;
  std::string failure;
  for (auto& role : roles) {
    result.role_switches += cpu_used(before, after, role.pid).switches;
    try {
      const RoleResult r = collect(role);
      (role.learner ? result.sampled : result.inserted) += r.items;
      result.requests += r.requests;
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) throw std::runtime_error(failure);
  if (before.size() != pids.size() || after.size() != pids.size()) {
    throw std::runtime_error("a process of the round ended before its window closed");
  }
  return result;
}

}  // namespace slipway::bench
