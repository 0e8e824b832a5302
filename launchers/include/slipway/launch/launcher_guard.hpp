// The guard around `slipway run`: the process the user started (and signals,
// or SIGKILLs) stays small, while the launcher runs in its grandchild, so
// that no way of ending `slipway run` leaves a task behind.
//
// Contract: run_guarded(body) makes a chain of three processes:
//   guard (the process the user started) -> keeper -> launcher (body()).
// The guard and the keeper each run guard_child(): fork; the child moves to
// a process group of its own, asks for SIGTERM when its parent dies, and
// runs the next link with SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD
// blocked (body() must be called before any thread exists), and exits with
// its result. The parent, a child subreaper, forwards SIGINT, SIGTERM,
// SIGHUP and SIGQUIT to the child, each once (the terminal's Ctrl-C reaches
// the guard only, so the launcher hears it once), waits for it, then
// terminates every descendant left (tasks orphaned by a launcher that was
// SIGKILLed are reparented to the nearest living subreaper), and returns
// the child's exit code (128 + N when a signal N ended it).
// Why a keeper: the launcher's tasks die with it (parent-death signals),
// but what they started (children, daemons in sessions of their own) is
// reparented to the nearest subreaper, and a SIGKILL of the guard and the
// launcher together (`pkill -9 slipway`, an OOM killer) would leave it to
// init. The keeper, a small process that holds no secret, is named
// "run-keeper" (not "slipway", so `pkill slipway` does not take it along);
// it gets those orphans and ends them, then exits. SIGKILL of the guard
// alone: the keeper gets SIGTERM and passes it on, and the launcher stops
// the program in order. When fork fails, body() runs unguarded.
#pragma once

#include <functional>

namespace slipway::launch {

int run_guarded(const std::function<int()>& body);

}  // namespace slipway::launch
