// The Slurm controller's satellite jobs (satellite_controller.hpp).
#include "satellite_controller.hpp"

#include <cctype>

#include "launcher_loop.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/core/contract.hpp"
#include "slurm_commands.hpp"

namespace slipway::launch {
namespace {

// A host name as a keeper reports it: Slurm node names only.
bool valid_host_name(const std::string& host) {
  if (host.empty() || host.size() > 128) return false;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::string seconds_text(std::uint32_t ms) {
  return std::to_string(ms / 1000) + (ms % 1000 ? "." + std::to_string(ms % 1000 / 100) : "") + " s";
}

// "(1 host, C cpus[, G gpus])" of a request.
std::string request_shape(const SatelliteRequest& request) {
  return "(1 host, " + std::to_string(request.cpus) + " cpus" +
         (request.gpus ? ", " + std::to_string(request.gpus) + " gpus" : std::string()) + ")";
}

}  // namespace

SatelliteController::SatelliteController(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                                         const SlurmJob& job, const RunDirectory& run_dir,
                                         std::string slipway_path, StepLedger& ledger, SatelliteLoop& loop)
    : plan_(plan),
      units_(units),
      job_(job),
      run_dir_(run_dir),
      slipway_path_(std::move(slipway_path)),
      ledger_(ledger),
      loop_(loop),
      settings_(core::satellite_settings(plan.program)) {}

std::optional<SatelliteBook::Clock::time_point> SatelliteController::deadline() const {
  return book_.deadline(std::chrono::milliseconds(settings_.wait_ms));
}

void SatelliteController::announced(const std::string& id, const std::string& host) {
  if (!valid_host_name(host)) return;
  const SatelliteBook::Job* job = book_.granted(id, host);
  if (!job) return;  // cancelled meanwhile (scancel ends it), or not ours
  if (job->replacement) {
    // Started at the end of this turn (start_waiting).
    ledger_.set_host(*job->unit, host);
    said("satellite_grant", job->node,
         "satellite job " + id + " runs on " + host + ": a place for " + units_[*job->unit].name +
             ", whose host is lost",
         host);
    return;
  }
  const std::string node = job->node;
  const std::size_t unit = loop_.satellite_granted(node, "satellite job " + id + " granted on " + host);
  book_.bind(id, unit);
  ledger_.set_host(unit, host);
  said("satellite_grant", node, "satellite job " + id + " runs on " + host + ": a place for " + units_[unit].name,
       host);
}

void SatelliteController::turn_done() {
  const auto now = SatelliteBook::Clock::now();
  const std::chrono::milliseconds wait(settings_.wait_ms);
  for (const auto& job : book_.expired(now, wait)) {
    cancel(job.id);
    const std::string pends = "satellite job " + job.id + " still pends after " + wait_text() +
                              " ([program.elastic] satellite_wait); cancelled";
    loop_.record_event("satellite_abandon", job.node, pends);
    if (job.replacement) {
      replacement_expired(*job.unit, pends);
    } else {
      loop_.satellites_abandoned(job.node, pends);
    }
  }
  start_waiting();
  release_replacements();
  for (const std::string& node : loop_.elastic_node_names()) follow_node(node);
}

// The jobs of one elastic node follow the slots it wants hosted.
void SatelliteController::follow_node(const std::string& node) {
  while (auto unit = loop_.satellite_releasable(node)) {
    ledger_.unhost(*unit);
    if (const SatelliteBook::Job* job = book_.of_unit(*unit)) {
      const std::string id = job->id, host = job->host;
      cancel(id);
      said("satellite_release", node,
           "satellite job " + id + " on " + host + " released: " + node + " no longer runs " + units_[*unit].name,
           host);
    }
  }
  // Room in the job first, one slot at a time, then satellite jobs.
  while (loop_.satellites_wanted(node) > 0) {
    if (!host_in_job(node)) break;
  }
  const std::uint32_t wanted = loop_.satellites_wanted(node);
  std::uint32_t pending = book_.pending_for(node);
  for (; pending > wanted; --pending) {
    const std::string id = *book_.newest_pending(node);
    cancel(id);
    said("satellite_release", node, "satellite job " + id + " cancelled: " + node + " no longer needs it");
  }
  for (; pending < wanted && book_.size() < settings_.jobs; ++pending) {
    if (!submit(node)) break;
  }
}

void SatelliteController::said(const std::string& kind, const std::string& node, const std::string& line,
                               const std::string& host) {
  say(line);
  loop_.record_event(kind, node, line, host);
}

// sbatch of one satellite job for a replica of `node`; false (said why)
// when Slurm refused it.
bool SatelliteController::submit(const std::string& node) {
  const SatelliteRequest request = request_for(node);
  std::string why;
  const auto id = submit_request(request, why);
  if (!id) {
    loop_.record_event("satellite_abandon", node, "no satellite job: " + why);
    loop_.satellites_abandoned(node, "no satellite job: " + why);
    return false;
  }
  book_.submitted(*id, node, SatelliteBook::Clock::now());
  said("satellite_request", node,
       node + ": asked Slurm for satellite job " + *id + " " + request_shape(request) + " for one more replica");
  return true;
}

// A satellite job for one replica of `node`.
SatelliteRequest SatelliteController::request_for(const std::string& node) const {
  const core::NodeSpec& spec = *plan_.program.find_node(node);
  SatelliteRequest request;
  request.program = *plan_.program.name;
  request.node = node;
  request.slipway_path = slipway_path_;
  request.log_path = run_dir_.logs_path() + "/satellite-%j.log";
  request.cpus = spec.cpus.value;
  request.gpus = spec.gpus.value;
  request.mem_mb = spec.mem_mb.value;
  request.partition = !spec.partition.value.empty() ? spec.partition.value : job_.components.front().partition;
  request.account = spec.account.value;
  request.qos = spec.qos.value;
  request.constraint = spec.constraint.value;
  return request;
}

// sbatch of a satellite job: its id, or nothing (`why` says why). It takes
// nothing of the allocation's SLURM_* variables, and finds the run by its
// directory.
std::optional<std::string> SatelliteController::submit_request(const SatelliteRequest& request,
                                                               std::string& why) const {
  std::vector<std::string> env = base::environment_without(satellite_drops_variable);
  env.push_back(std::string(core::env::kRunDir) + "=" + run_dir_.path());
  return sbatch(satellite_sbatch_command(request), std::move(env), why);
}

void SatelliteController::cancel(std::string id) {
  book_.remove(id);
  if (auto problem = scancel(id)) say(*problem);
}

void SatelliteController::cancel_all() {
  for (const std::string& id : book_.ids()) cancel(id);
}

// A slot `node` wants hosted finds room in the job itself (a node that
// finished, or shrank, left it): hosted there, with no satellite job.
bool SatelliteController::host_in_job(const std::string& node) {
  for (const core::Task* task : plan_.tasks_of(node)) {
    const std::size_t unit = loop_.unit_of_task(task->name());
    if (!ledger_.unhosted(unit) || book_.of_unit(unit)) continue;
    // The next slot to be hosted is the lowest placeholder one.
    const auto host = ledger_.host_with_room(unit, step_for_unit(plan_, units_[unit]), true);
    if (!host) return false;
    const std::size_t granted = loop_.satellite_granted(node, "room on " + *host + " of job " + job_.job_id);
    ledger_.set_host(granted, *host);
    say(node + ": room on " + *host + " of job " + job_.job_id + " for " + units_[granted].name +
        " (no satellite job needed)");
    return true;
  }
  return false;
}

std::optional<std::string> SatelliteController::replacement_refused(std::size_t unit) const {
  const LaunchUnit& u = units_[unit];
  const core::Task& task = plan_.tasks[u.tasks.front()];
  const core::NodeSpec& node = plan_.node(task);
  if (settings_.jobs == 0) {
    if (node.replicas.value.elastic() || !ledger_.any_lost()) return std::string();  // it shrinks, or says it runs its MIN
    return "; a satellite job could replace its lost host ([program.elastic] satellites), or a spare "
           "host in the job (e.g. srun -N" + std::to_string(job_hosts() + 1) + ")";
  }
  // An elastic world above MIN shrinks now, and grows back later.
  if (u.tasks.size() == 1 && node.replicas.value.elastic() && forms_world(node.framework.value) &&
      loop_.live_plan().tasks_of(task.node).size() > node.replicas.value.min) {
    return std::string();
  }
  if (no_more_satellites_.count(unit)) {
    return "; its satellite job did not start within satellite_wait before, so no other is asked for";
  }
  if (book_.size() >= settings_.jobs) {
    return "; every satellite job [program.elastic] satellites = " + std::to_string(settings_.jobs) +
           " allows is in use (raise it to replace more lost hosts)";
  }
  return std::nullopt;
}

void SatelliteController::wait_for_replacement(std::size_t unit, const StepRequest& step, const std::string& why) {
  const std::string no_room = why.empty() ? ledger_.no_room_in_job(step) : why;
  if (const auto refused = replacement_refused(unit)) throw NoRoom(no_room + *refused);
  // Asks Slurm for a satellite job for `unit`, whose host is lost.
  const core::Task& task = plan_.tasks[units_[unit].tasks.front()];
  SatelliteRequest request = request_for(task.node);
  request.cpus = step.cpus;
  request.gpus = step.gpus;
  request.mem_mb = step.mem_mb;
  std::string refused;
  const auto id = submit_request(request, refused);
  if (!id) throw NoRoom(ledger_.no_room_in_job(step) + "; no satellite job: " + refused);
  book_.submitted_for(*id, task.node, unit, SatelliteBook::Clock::now());
  ledger_.unhost(unit);
  said("satellite_request", task.node,
       task.node + ": asked Slurm for satellite job " + *id + " " + request_shape(request) + " for " +
           units_[unit].name + ", whose host is lost");
  throw WaitForHost(no_room + "; waiting up to " + wait_text() + " for satellite job " + *id +
                    " ([program.elastic] satellite_wait)");
}

void SatelliteController::wait_for_world(std::size_t unit) {
  const int world = units_[unit].world;
  if (world < 0) return;
  for (std::size_t mate = 0; mate < units_.size(); ++mate) {
    if (mate == unit || units_[mate].world != world || !loop_.unit_starting(mate)) continue;
    const SatelliteBook::Job* job = book_.of_unit(mate);
    bool waits = job && job->host.empty();
    if (!waits && !job && (ledger_.lost(ledger_.host(mate)) || ledger_.unhosted(mate))) {
      // Starting later this turn: it will wait when no host has room.
      waits = !ledger_.host_with_room(mate, step_for_unit(plan_, units_[mate]), false) && !replacement_refused(mate);
    } else if (!waits && job && ledger_.lost(job->host)) {
      waits = !replacement_refused(mate);
    }
    if (!waits) continue;
    held_for_[unit] = mate;
    throw WaitForHost("waits for a host for " + units_[mate].name + " (its world starts as a whole)");
  }
}

// Waiting units whose host came: a replacement granted, room in the job
// again (its pending satellite job is cancelled), a world mate's host.
void SatelliteController::start_waiting() {
  for (auto it = held_for_.begin(); it != held_for_.end();) {
    const auto [unit, mate] = *it;
    if (!loop_.waiting_for_host(unit)) {
      it = held_for_.erase(it);
    } else if (!loop_.waiting_for_host(mate)) {
      it = held_for_.erase(it);
      loop_.host_found(unit);
    } else {
      ++it;
    }
  }
  std::vector<std::pair<std::size_t, std::string>> jobs;  // replacements: unit, id
  for (const auto& [id, job] : book_.jobs()) {
    if (job.replacement && loop_.waiting_for_host(*job.unit)) jobs.emplace_back(*job.unit, id);
  }
  for (const auto& [unit, id] : jobs) {
    const SatelliteBook::Job& job = book_.jobs().at(id);
    if (!job.host.empty()) {
      loop_.host_found(unit);
      continue;
    }
    const auto host = ledger_.host_with_room(unit, step_for_unit(plan_, units_[unit]), true);
    if (!host) continue;
    cancel(id);
    ledger_.set_host(unit, *host);
    say(units_[unit].name + ": room on " + *host + " of job " + job_.job_id + " again; satellite job " + id +
        " cancelled");
    loop_.host_found(unit);
  }
}

// A replacement that pended too long: the unit ends as a loss without
// room (and asks for no other).
void SatelliteController::replacement_expired(std::size_t unit, const std::string& pends) {
  no_more_satellites_.insert(unit);
  const core::Task& task = plan_.tasks[units_[unit].tasks.front()];
  const core::NodeSpec& node = plan_.node(task);
  const std::string partition =
      !node.partition.value.empty() ? node.partition.value : job_.components.front().partition;
  loop_.host_not_found(unit, pends + ": no host for replica " + std::to_string(task.replica) + " of node " +
                                 task.node + ", whose host is lost; free a host of partition " + partition +
                                 ", raise [program.elastic] satellite_wait, or give the job a spare host (e.g. srun -N" +
                                 std::to_string(job_hosts() + 1) + ")");
}

std::size_t SatelliteController::job_hosts() const {
  std::size_t n = 0;
  for (const auto& component : job_.components) n += component.hosts.size();
  return n;
}

std::string SatelliteController::wait_text() const { return seconds_text(settings_.wait_ms); }

// Replacements whose unit no longer runs nor will (it finished, failed
// for good, was stopped or retired) are cancelled.
void SatelliteController::release_replacements() {
  std::vector<std::string> gone;
  for (const auto& [id, job] : book_.jobs()) {
    if (!job.replacement) continue;
    const std::size_t unit = *job.unit;
    if (loop_.waiting_for_host(unit) || loop_.unit_active(unit)) continue;
    if (ledger_.steps_in_job(id)) continue;  // its step still ends
    gone.push_back(id);
  }
  for (const std::string& id : gone) {
    const SatelliteBook::Job job = book_.jobs().at(id);
    cancel(id);
    say("satellite job " + id + (job.host.empty() ? "" : " on " + job.host) + " released: " +
        units_[*job.unit].name + " no longer needs it");
  }
}

void SatelliteController::slot_unhosted(std::size_t lost, std::size_t unhosted) {
  if (lost != unhosted) book_.swap_units(lost, unhosted);
  if (const SatelliteBook::Job* job = book_.of_unit(unhosted)) {
    const std::string id = job->id, host = job->host;
    cancel(id);
    say("satellite job " + id + " on " + host + " released: its host is lost");
  }
}

}  // namespace slipway::launch
