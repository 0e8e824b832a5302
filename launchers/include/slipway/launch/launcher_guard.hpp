// The guard around `slipway run`: the process the user started (and signals,
// or SIGKILLs) stays small, while the launcher runs in its child, so that no
// way of ending `slipway run` leaves a task behind.
//
// Contract: run_guarded(body) forks; the child moves to a process group of
// its own, asks for SIGTERM when the guard dies, and runs body() (the
// launcher: it must be called before any thread exists) with SIGINT,
// SIGTERM, SIGHUP, SIGQUIT and SIGCHLD blocked, and exits with its result. The guard, a child subreaper, forwards SIGINT, SIGTERM, SIGHUP
// and SIGQUIT to the child, each once (the terminal's Ctrl-C reaches the
// guard only, so the launcher hears it once), waits for it, then terminates
// every descendant left (tasks orphaned by a launcher that was SIGKILLed
// are reparented to the guard), and returns the child's exit code (128 + N
// when a signal N ended it). SIGKILL of the guard: the launcher gets
// SIGTERM and stops the program in order. When fork fails, body() runs
// unguarded.
#pragma once

#include <functional>

namespace slipway::launch {

int run_guarded(const std::function<int()>& body);

}  // namespace slipway::launch
