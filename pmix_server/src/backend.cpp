// Names of backend statuses, for messages (backend.hpp).
#include "slipway/pmix/backend.hpp"

namespace slipway::pmix {

std::string_view to_string(BackendStatus status) {
  switch (status) {
    case BackendStatus::ok: return "ok";
    case BackendStatus::not_found: return "not found";
    case BackendStatus::exists: return "exists";
    case BackendStatus::timeout: return "timeout";
    case BackendStatus::member_failed: return "member failed";
    case BackendStatus::error: return "error";
  }
  return "unknown";
}

}  // namespace slipway::pmix
