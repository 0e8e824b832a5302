// The Slurm controller's satellite jobs (satellite_jobs.hpp,
// docs/elastic.md): which to ask Slurm for (sbatch), which to cancel
// (scancel), what a granted one hosts, and the units that wait for one: a
// replacement for a unit whose host is lost, and the world mates that
// wait with it.
//
// Contract: the controller asks the launcher loop what it needs through
// SatelliteLoop, and the step ledger (step_ledger.hpp) where units run and
// which host has room. Every Slurm command runs synchronously
// (slurm_commands.hpp). A line about a satellite job is said (`say`) and,
// for requests, grants, releases and abandons, recorded as an event.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/core/satellite_slots.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/satellite_jobs.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "step_ledger.hpp"

namespace slipway::launch {

// What the satellite controller asks of the launcher loop it serves (as
// launcher_loop.hpp says of each).
class SatelliteLoop {
 public:
  virtual ~SatelliteLoop() = default;
  // The satellite slots of elastic nodes.
  virtual std::vector<std::string> elastic_node_names() const = 0;
  virtual std::uint32_t satellites_wanted(const std::string& node) const = 0;
  virtual std::size_t satellite_granted(const std::string& node, const std::string& why) = 0;
  virtual std::optional<std::size_t> satellite_releasable(const std::string& node) = 0;
  virtual void satellites_abandoned(const std::string& node, const std::string& why) = 0;
  // Units waiting for a host.
  virtual bool waiting_for_host(std::size_t unit) const = 0;
  virtual void host_found(std::size_t unit) = 0;
  virtual void host_not_found(std::size_t unit, const std::string& why) = 0;
  // Whether `unit` is being launched without a carrier yet.
  virtual bool unit_starting(std::size_t unit) const = 0;
  // Whether `unit` runs, starts, or waits between attempts (its backoff).
  virtual bool unit_active(std::size_t unit) const = 0;
  virtual std::size_t unit_of_task(const std::string& task_name) const = 0;
  // The program as it runs now.
  virtual const core::Plan& live_plan() const = 0;
  virtual void record_event(const std::string& kind, const std::string& node, const std::string& cause,
                            const std::string& host = {}) = 0;
};

class SatelliteController {
 public:
  // `slipway_path`: the keeper's program. Everything given outlives the
  // controller.
  SatelliteController(const core::Plan& plan, const std::vector<LaunchUnit>& units, const SlurmJob& job,
                      const RunDirectory& run_dir, std::string slipway_path, StepLedger& ledger, SatelliteLoop& loop);

  // Whether [program.elastic] satellites allows any.
  bool enabled() const { return settings_.jobs > 0; }
  // When the next pending job expires (the loop comes round by then).
  std::optional<SatelliteBook::Clock::time_point> deadline() const;
  // The job bound to `unit` (pending, for a replacement, or granted).
  const SatelliteBook::Job* of_unit(std::size_t unit) const { return book_.of_unit(unit); }

  // A keeper announced satellite job `id` on `host` (satellite/JOBID =
  // host): the node it was asked for gets a slot there, or its replacement
  // unit a host. Ignored when `host` is no Slurm node name, or the job is
  // not one of ours pending (cancelled meanwhile).
  void announced(const std::string& id, const std::string& host);
  // Once every turn: jobs follow what the elastic nodes want (submitted
  // for slots wanted beyond those hosted, cancelled when pending too long
  // or no longer wanted, released once their replica is retired), and
  // waiting units whose host came start.
  void turn_done();

  // A unit of a world starts only with its world: while a unit of it waits
  // for a host (or is about to: starting this turn with none, a satellite
  // job to come), `unit` waits too (throws WaitForHost).
  void wait_for_world(std::size_t unit);
  // `unit`'s step finds no host with room (`why`; empty: none in the
  // job): throws NoRoom when it may not wait for a satellite job (or Slurm
  // refuses one), else WaitForHost once a replacement is asked for.
  [[noreturn]] void wait_for_replacement(std::size_t unit, const StepRequest& step, const std::string& why);
  // Why `unit`, with no host that has room, may not wait for a satellite
  // job (text to add to the no-room line; empty: nothing to add), or
  // nothing when it may.
  std::optional<std::string> replacement_refused(std::size_t unit) const;
  // A world's lost rank `lost` took over the host of `unhosted`, another
  // slot of its node: their jobs trade units, and `unhosted`'s job (on the
  // lost host now) is released.
  void slot_unhosted(std::size_t lost, std::size_t unhosted);
  // scancel of job `id`, forgotten first (what went wrong is said). By
  // value: `id` may be the book's own copy, which forgetting destroys.
  void cancel(std::string id);
  // Every job, pending or running (the program ends).
  void cancel_all();

 private:
  void said(const std::string& kind, const std::string& node, const std::string& line, const std::string& host = {});
  bool submit(const std::string& node);
  SatelliteRequest request_for(const std::string& node) const;
  std::optional<std::string> submit_request(const SatelliteRequest& request, std::string& why) const;
  void follow_node(const std::string& node);
  bool host_in_job(const std::string& node);
  void start_waiting();
  void release_replacements();
  void replacement_expired(std::size_t unit, const std::string& pends);
  std::size_t job_hosts() const;
  std::string wait_text() const;

  const core::Plan& plan_;
  const std::vector<LaunchUnit>& units_;
  const SlurmJob& job_;
  const RunDirectory& run_dir_;
  std::string slipway_path_;
  StepLedger& ledger_;
  SatelliteLoop& loop_;
  core::SatelliteSettings settings_;
  SatelliteBook book_;
  std::set<std::size_t> no_more_satellites_;     // units whose replacement pended too long
  std::map<std::size_t, std::size_t> held_for_;  // a world's unit waiting -> the mate it waits for
};

}  // namespace slipway::launch
