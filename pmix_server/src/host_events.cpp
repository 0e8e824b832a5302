// Abort and peer failure. A client's abort is reported (naming the task)
// and released at once: Open MPI then exits with the abort status, so the
// task fails and the launcher applies its policy (stop the program, or
// resubmit); the world's other ranks hear of it through the event below,
// which Open MPI's default handler answers by aborting too. When a member of the world
// ends abnormally elsewhere, the local clients get PMIX_EVENT_PROC_TERMINATED
// (with the affected proc and its exit code) and the modex waits on it fail;
// fences that include it fail in the control plane itself.
#include <pmix.h>

#include "host_core.hpp"
#include "info_array.hpp"

namespace slipway::pmix {
namespace {

void release_info(pmix_status_t, void* data) { delete static_cast<detail::InfoArray*>(data); }

}  // namespace

void ServerHost::Core::abort(std::uint32_t rank, int status, std::string message, OpCallback cb) {
  std::string reason = world.task_name(rank) + " (MPI rank " + std::to_string(rank) +
                       ") aborted the MPI world with status " + std::to_string(status);
  if (!message.empty()) reason += ": " + message;
  log(reason);
  if (cb.fn) cb.fn(PMIX_SUCCESS, cb.data);
}

void ServerHost::Core::member_ended(const MemberEnded& how) {
  auto rank = world.rank_of(how.node, how.replica);
  if (!rank || local.hosts(*rank)) return;  // libpmix sees its own clients go
  const bool abnormal = how.failed || how.exit_status != 0;
  const std::string what = world.task_name(*rank) + " (MPI rank " + std::to_string(*rank) + ") " +
                           (how.failed ? "failed: " + how.reason
                                       : "exited with status " + std::to_string(how.exit_status));
  std::vector<std::uint64_t> waiting;
  for (const auto& [id, pending] : pending_modex) {
    if (pending.rank == *rank) waiting.push_back(id);
  }
  for (std::uint64_t id : waiting) {
    log("direct modex for " + what);
    finish_modex(id, PMIX_ERR_PROC_TERM_WO_SYNC, {});
  }
  if (!abnormal) return;
  auto info = std::make_unique<detail::InfoArray>();
  pmix_proc_t affected = detail::make_proc(world.nspace(), *rank);
  info->add_proc(PMIX_EVENT_AFFECTED_PROC, affected);
  info->add_int(PMIX_EXIT_CODE, how.failed ? -1 : how.exit_status);
  info->add_proc_state(PMIX_PROC_STATE_STATUS,
                       how.failed ? PMIX_PROC_STATE_ABORTED : PMIX_PROC_STATE_TERM_NON_ZERO);
  pmix_status_t rc = PMIx_Notify_event(PMIX_EVENT_PROC_TERMINATED, &affected, PMIX_RANGE_LOCAL,
                                       info->data(), info->size(), release_info, info.get());
  if (rc == PMIX_SUCCESS) {
    info.release();  // freed by release_info
  } else if (rc != PMIX_OPERATION_SUCCEEDED) {
    log("cannot tell local clients that " + what + ": " + PMIx_Error_string(rc));
  }
}

}  // namespace slipway::pmix
