// The guard process around `slipway run` (see launcher_guard.hpp).
#include "slipway/launch/launcher_guard.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "slipway/base/event_loop.hpp"
#include "slipway/base/process.hpp"

namespace slipway::launch {
namespace {

const std::vector<int> kHandled = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};

// One link of the chain: runs `body` in a child and watches it (see
// launcher_guard.hpp).
int guard_child(const std::function<int()>& body) {
  sigset_t previous;
  pthread_sigmask(SIG_SETMASK, nullptr, &previous);
  base::block_signals(kHandled);  // before fork: no signal is lost
  base::become_subreaper();
  const pid_t guard = getpid();
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("slipway: fork (running without a guard process)");
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
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
  base::EventLoop loop(kHandled);
  int code = 1;
  bool running = true;
  loop.on_signal([child](int sig) { ::kill(child, sig); });
  loop.on_child_exit([&](pid_t pid, const base::ExitStatus& status) {
    if (pid != child) return;  // an orphan of the launcher, reparented here
    code = status.shell_code();
    running = false;
  });
  while (running) {
    if (!loop.turn(std::nullopt)) break;  // cannot happen: wait below instead
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
