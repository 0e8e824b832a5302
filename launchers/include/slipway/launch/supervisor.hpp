// Supervisor: the I/O-free decision engine of a launcher. It decides when
// each unit is (re)started, when the program is stopping, and how it ends;
// the local launcher and the Slurm controller carry its actions out.
//
// Contract:
// - Units are given once, in plan order. start() asks to launch each.
// - Feed it every event: a unit's exit (unit_exited), a stop request
//   (stop_requested: a signal, `slipway stop`, or the launcher's own
//   failure), and the passing of time (tick). Each call returns the
//   actions to carry out now, in order.
// - A failed unit (non-zero exit or killed) is relaunched with attempt + 1
//   while attempt < max_retries, after a backoff; exits during a stop are
//   expected and never retried.
// - Once every non-daemon unit has succeeded, the daemons are stopped and
//   the program finishes with status 0. When a unit's retries run out, or a
//   stop is requested, every running unit gets SIGTERM, then SIGKILL after
//   the grace period; the program finishes once no unit runs.
// - Worlds (SupervisedUnitSpec::world): the units of a world start, fail and
//   restart together. When a unit of a world fails while the world runs,
//   every other running unit of it gets SIGTERM at once (SIGKILL after the
//   grace) and, once none runs, after the backoff, the whole world is
//   launched again as a new epoch (Action::epoch, +1 per epoch, the same in
//   every unit; each unit's attempt + 1). A world's failure-driven epochs
//   count against its max_retries (the least of its units'); exits of its
//   units while it restarts are expected, whatever their status; a Note
//   action says which unit failed and which epoch comes. A unit of a
//   world that succeeds waits for the others; a world is done when all of
//   its units succeeded.
// - Elastic slots (SupervisedUnitSpec::idle): a unit may start Idle, a
//   slot of an elastic node that runs nothing now. resize() starts idle
//   units and retires running ones: outside a world, each on its own (a
//   retired unit gets SIGTERM, SIGKILL after the grace, and its exit, whatever
//   its status, makes it Idle; nothing else is restarted); in a world, as
//   a new epoch of the whole world (every running unit stopped at once,
//   then the units that stay launched together with the new ones, no
//   backoff). A resize never counts against max_retries. Idle units do not
//   keep the program from finishing.
// - next_deadline() is the latest time by which tick() must be called.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace slipway::launch {

using Clock = std::chrono::steady_clock;

// One unit (docs/architecture.md, "Vocabulary"): one task, or the tasks of
// one colocate group that share one agent.
struct SupervisedUnitSpec {
  std::string name;  // "node.replica", or a colocated unit's "a.0+b.0"
  bool daemon = false;
  int max_retries = 0;
  int world = -1;    // the world the unit belongs to (-1: none)
  bool idle = false; // an elastic slot that does not run at start
  // It acts on checkpoint notices (a notice_signal, a replay node): a stop
  // with a notice lets it run until the notice's deadline.
  bool hears_notice = false;
};

// How a unit's process ended (mirrors base::ExitStatus without the
// dependency). never_started, when set, says how the process ended before
// the unit joined the program (its command never ran): a failure whatever
// the status, described by that text.
struct UnitExit {
  bool signaled = false;
  int code = 0;
  std::string never_started{};
  std::string describe() const;
  bool success() const { return never_started.empty() && !signaled && code == 0; }
};

enum class UnitState { Pending, Running, Backoff, Succeeded, Failed, Stopped, Idle };
const char* to_string(UnitState state);

struct Action {
  enum class Kind { Launch, Signal, Finish, Note } kind;
  std::size_t unit = 0;    // Launch, Signal
  int attempt = 0;         // Launch
  int epoch = 0;           // Launch: the epoch of the unit's world (0 outside worlds)
  int signal = 0;          // Signal
  int exit_code = 0;       // Finish
  std::string message;     // Finish; Note: a line for the user (a world restarting, and why)
};

struct SupervisorOptions {
  std::chrono::milliseconds grace{10000};
  std::chrono::milliseconds backoff_initial{500};
  std::chrono::milliseconds backoff_max{10000};
};

class Supervisor {
 public:
  Supervisor(std::vector<SupervisedUnitSpec> units, SupervisorOptions options);

  std::vector<Action> start(Clock::time_point now);
  std::vector<Action> unit_exited(std::size_t unit, UnitExit exit, Clock::time_point now);
  // `exit_code` is what the program ends with when nothing failed before:
  // 0 for `slipway stop`, 128 + signal for a signal to the launcher.
  std::vector<Action> stop_requested(const std::string& reason, int exit_code,
                                     Clock::time_point now);
  // A stop after a checkpoint notice whose deadline is `deadline`: running
  // units that do not hear notices get SIGTERM now (SIGKILL after the
  // grace); those that do (hears_notice) run on, to end by themselves,
  // until the deadline, or, for daemons, until no non-daemon unit runs;
  // then SIGTERM, and SIGKILL after the grace. Nothing restarts; the
  // program finishes with `exit_code` once no unit runs.
  std::vector<Action> stop_with_notice(const std::string& reason, int exit_code,
                                       Clock::time_point deadline, Clock::time_point now);
  std::vector<Action> tick(Clock::time_point now);
  // Starts the `start` units (Idle ones; others are left as they are) and
  // retires the `retire` units (see the contract); `cause` says why, for
  // the Note of a world's new epoch. Nothing once the program is stopping.
  std::vector<Action> resize(const std::vector<std::size_t>& start,
                             const std::vector<std::size_t>& retire, const std::string& cause,
                             Clock::time_point now);

  std::optional<Clock::time_point> next_deadline() const;
  bool finished() const { return phase_ == Phase::Finished; }
  // The program is stopping (or done): nothing starts any more.
  bool stopping() const { return phase_ != Phase::Running; }

  struct UnitView {
    const SupervisedUnitSpec& spec;
    UnitState state;
    int attempt;
    int epoch;
  };
  UnitView unit(std::size_t index) const;
  // Whether an exit of this running unit now is one the supervisor caused
  // and expects (its world is restarting, it is retired, or it is a daemon
  // stopped because the program is done): nothing to report.
  bool exit_expected(std::size_t index) const;
  std::size_t size() const { return units_.size(); }

 private:
  enum class Phase { Running, StoppingDaemons, Stopping, Finished };
  struct Unit {
    SupervisedUnitSpec spec;
    UnitState state = UnitState::Pending;
    int attempt = 0;
    bool launched = false;  // has run on some attempt (the next launch is attempt + 1)
    bool retiring = false;  // stopped by a resize: becomes Idle when it ends
    bool rejoin = false;    // retiring, but asked back: starts again once it ended
    // A stop with a notice: when it gets SIGTERM (it hears notices), then
    // SIGKILL after the grace.
    std::optional<Clock::time_point> term_at;
    std::optional<Clock::time_point> stop_kill_at;
    Clock::time_point restart_at{};
    std::optional<Clock::time_point> kill_at;  // a retiring unit's SIGKILL
  };

  struct World {
    int epoch = 0;
    int failures = 0;  // failure-driven epochs so far
    int max_retries = -1;  // the least of its units' (-1: none seen yet)
    bool restarting = false;
    Clock::time_point restart_at{};
    std::optional<Clock::time_point> kill_at;
  };

  void begin_stop(Phase phase, int exit_code, std::string message, Clock::time_point now,
                  std::vector<Action>& out);
  void restart_world(int world, std::size_t failed, const UnitExit& exit, Clock::time_point now,
                     std::vector<Action>& out);
  bool world_running(int world) const;
  void fail_program(Unit& t, const UnitExit& exit, int retries_used, Clock::time_point now,
                    std::vector<Action>& out);
  std::chrono::milliseconds backoff(int failures) const;
  void maybe_finish(std::vector<Action>& out);
  void stop_world(int world, Clock::time_point now, std::vector<Action>& out);
  void check_all_done(Clock::time_point now, std::vector<Action>& out);
  void launch_unit(std::size_t index, std::vector<Action>& out);
  bool any_running() const;
  void signal_noticed(std::size_t index, Clock::time_point now, std::vector<Action>& out);

  std::vector<Unit> units_;
  std::vector<World> worlds_;
  SupervisorOptions options_;
  Phase phase_ = Phase::Running;
  int exit_code_ = 0;
  std::string message_;
  std::optional<Clock::time_point> kill_at_;
};

}  // namespace slipway::launch
