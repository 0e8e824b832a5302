// The guard process around `slipway run` (see launcher_guard.hpp).
#include "slipway/launch/launcher_guard.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {
namespace {

// One link of the chain: runs `body` in a child and watches it (see
// launcher_guard.hpp).
int guard_child(const std::function<int()>& body) {
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD}) sigaddset(&handled, sig);
  sigset_t previous;
  sigprocmask(SIG_BLOCK, &handled, &previous);  // before fork: no signal is lost
  base::become_subreaper();
  const pid_t guard = getpid();
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("slipway: fork (running without a guard process)");
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    return body();
  }
  if (child == 0) {
    setpgid(0, 0);
    if (!base::die_with_parent(SIGTERM) || getppid() != guard) _exit(128 + SIGTERM);
    // The signals stay blocked: the launcher reads them from a signalfd, and
    // one that comes before it does waits for it.
    int code = body();
    std::fflush(nullptr);
    _exit(code);
  }
  setpgid(child, child);  // also from here: a signal forwarded right away finds it
  base::UniqueFd signals(signalfd(-1, &handled, SFD_CLOEXEC));
  int code = 1;
  bool running = true;
  while (running) {
    signalfd_siginfo info{};
    ssize_t n = read(signals.get(), &info, sizeof info);
    if (n != static_cast<ssize_t>(sizeof info)) {
      if (n < 0 && errno == EINTR) continue;
      break;  // cannot happen with a valid signalfd; wait below instead
    }
    const int sig = static_cast<int>(info.ssi_signo);
    if (sig != SIGCHLD) {
      ::kill(child, sig);
      continue;
    }
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      if (pid != child) continue;  // an orphan of the launcher, reparented here
      code = base::ExitStatus::from_wait_status(status).shell_code();
      running = false;
    }
  }
  if (running) code = base::wait_for(child).shell_code();
  // What a launcher that was killed left behind: its tasks, now ours.
  if (base::has_children()) base::terminate_descendants(std::chrono::milliseconds(2000));
  return code;
}

}  // namespace

int run_guarded(const std::function<int()>& body) {
  char name[17] = {};
  prctl(PR_GET_NAME, name);
  return guard_child([&body, &name] {
    // The keeper: not named slipway, so that killing "slipway" by name
    // leaves it to end what the program left.
    prctl(PR_SET_NAME, "run-keeper");
    return guard_child([&body, &name] {
      prctl(PR_SET_NAME, name);  // the launcher keeps the program's name
      return body();
    });
  });
}

}  // namespace slipway::launch
