// Registration info for the MPI world's namespace (job_info.hpp).
//
// Locality is per PMIx server: openpmix waits in every fence for as many
// local clients as the server declared, and keeps PMIX_LOCAL-scoped data
// (e.g. Open MPI's shared-memory segment names) inside one server, so the
// local peers are exactly the ranks this server hosts. Nodes are the plan's
// hosts; no node or proc map regex is given (it would recompute local peers
// per host), every fact is listed explicitly instead.
#include "job_info.hpp"

#include <pmix_common.h>

namespace slipway::pmix::detail {
namespace {

std::string joined(const std::vector<std::uint32_t>& ranks) {
  std::string out;
  for (std::uint32_t r : ranks) {
    if (!out.empty()) out += ',';
    out += std::to_string(r);
  }
  return out;
}

std::string joined_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

}  // namespace

InfoArray namespace_info(const MpiWorld& world, const LocalView& local) {
  InfoArray info;
  const std::uint32_t size = world.size();
  const auto local_size = static_cast<std::uint32_t>(local.ranks().size());

  // Job level.
  info.add_string(PMIX_JOBID, world.nspace());
  info.add_u32(PMIX_UNIV_SIZE, size);
  info.add_u32(PMIX_JOB_SIZE, size);
  info.add_u32(PMIX_MAX_PROCS, size);
  info.add_u32(PMIX_JOB_NUM_APPS, static_cast<std::uint32_t>(world.apps().size()));
  info.add_u32(PMIX_NUM_NODES, static_cast<std::uint32_t>(world.hosts().size()));

  // This server's node: its local peers.
  info.add_u32(PMIX_LOCAL_SIZE, local_size);
  info.add_string(PMIX_LOCAL_PEERS, joined(local.ranks()));
  if (!local.ranks().empty()) info.add_rank(PMIX_LOCALLDR, local.ranks().front());
  info.add_u32(PMIX_NODE_SIZE, local_size);
  info.add_u32(PMIX_NODEID, local.nodeid());

  for (const WorldApp& app : world.apps()) {
    InfoArray a;
    a.add_u32(PMIX_APPNUM, app.appnum);
    a.add_u32(PMIX_APP_SIZE, app.size);
    a.add_rank(PMIX_APPLDR, app.first_rank);
    if (!app.workdir.empty()) a.add_string(PMIX_WDIR, app.workdir);
    a.add_string(PMIX_APP_ARGV, joined_argv(app.argv));
    info.add_array(PMIX_APP_INFO_ARRAY, a);
  }

  for (const WorldHost& host : world.hosts()) {
    InfoArray n;
    n.add_u32(PMIX_NODEID, host.nodeid);
    n.add_string(PMIX_HOSTNAME, host.name);
    info.add_array(PMIX_NODE_INFO_ARRAY, n);
  }

  for (const WorldProc& proc : world.procs()) {
    InfoArray p;
    p.add_rank(PMIX_RANK, proc.rank);  // must come first
    p.add_u32(PMIX_APPNUM, proc.appnum);
    p.add_u32(PMIX_APP_RANK, proc.app_rank);
    p.add_u32(PMIX_GLOBAL_RANK, proc.rank);
    p.add_u32(PMIX_NODEID, proc.nodeid);
    p.add_string(PMIX_HOSTNAME, world.hosts()[proc.nodeid].name);
    if (auto lr = local.local_rank(proc.rank)) {
      p.add_u16(PMIX_LOCAL_RANK, *lr);
      p.add_u16(PMIX_NODE_RANK, *lr);
    }
    info.add_array(PMIX_PROC_DATA, p);
  }
  return info;
}

}  // namespace slipway::pmix::detail
