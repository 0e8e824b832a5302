// Choosing a courier endpoint's transports from its TLS setting.
#include "transport_plan.hpp"

#include <ucp/api/ucp.h>

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace slipway::channels::detail {
namespace {

struct TlsList {
  bool exclusion = false;          // "^a,b"
  std::vector<std::string> names;  // as written ("\name": no alias expansion)
};

TlsList split(const std::string& tls) {
  TlsList list;
  list.exclusion = !tls.empty() && tls[0] == '^';
  std::size_t start = list.exclusion ? 1 : 0;
  while (start <= tls.size()) {
    std::size_t end = tls.find(',', start);
    if (end == std::string::npos) end = tls.size();
    if (end > start) list.names.push_back(tls.substr(start, end - start));
    start = end + 1;
  }
  return list;
}

std::string bare(const std::string& name) {
  return !name.empty() && name[0] == '\\' ? name.substr(1) : name;
}

// Whether the list lets UCX pick one of `wanted`: a list naming one of them
// or "all", or an exclusion list that leaves one out. Empty: UCX's default.
bool allows(const std::string& tls, std::initializer_list<const char*> wanted) {
  if (tls.empty()) return true;
  const TlsList list = split(tls);
  std::size_t excluded = 0;
  for (const auto& name : list.names) {
    if (!list.exclusion && bare(name) == "all") return true;
    for (const char* one : wanted) {
      if (bare(name) != one) continue;
      if (!list.exclusion) return true;
      ++excluded;
    }
  }
  return list.exclusion && excluded < wanted.size();
}

}  // namespace

TransportPlan plan_transports(const std::string& tls) {
  TransportPlan plan;
  plan.tcp = allows(tls, {"tcp"});
  plan.shared_memory = allows(tls, {"sm", "shm", "mm", "posix", "sysv"});
  if (tls.empty()) {
    // UCX's sysv segments are readable and writable by the user's group
    // (0660 in UCX 1.13's mm_sysv.c), so another user of that group could
    // attach an endpoint's queue: left out unless the transports are named.
    // posix segments are 0600 and shared through /proc/PID/fd (same user).
    plan.ucx_tls = "^sysv,tcp";
    plan.ucx = true;
    return plan;
  }
  const TlsList list = split(tls);
  std::string kept;
  bool all = false;
  for (const auto& name : list.names) {
    if (bare(name) == "tcp") continue;
    if (bare(name) == "all") all = true;
    kept += (kept.empty() ? "" : ",") + name;
  }
  if (list.exclusion) {
    plan.ucx_tls = "^" + kept + (kept.empty() ? "" : ",") + "tcp";
    plan.ucx = true;
  } else if (all) {
    plan.ucx_tls = "^tcp";  // everything UCX has but its TCP
    plan.ucx = true;
  } else if (!kept.empty()) {
    plan.ucx_tls = kept;
    plan.ucx = kept != "self";
  } else {
    plan.ucx_tls = "self";  // TCP alone: UCX only drives the progress loop
  }
  return plan;
}

std::uint32_t ucx_send_flags(bool shared_memory, std::size_t payload_bytes, std::uint32_t asked) {
  if (!shared_memory || (asked & (UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_RNDV)) != 0 ||
      payload_bytes > kSharedMemoryEagerMax) {
    return asked;
  }
  return asked | UCP_AM_SEND_FLAG_EAGER;
}

}  // namespace slipway::channels::detail
