// UCX status codes as channels' typed errors (ChannelError with an Errc).
//
// Contract: check() returns when status is UCS_OK (or UCS_INPROGRESS) and
// otherwise throws ChannelError whose message is "<what>: <UCX's text>".
// errc_for() is the code a failed status maps to.
#pragma once

#include <ucs/type/status.h>

#include <string>

#include "slipway/channels/error.hpp"

namespace slipway::channels::ucx {

Errc errc_for(ucs_status_t status) noexcept;

// "<what>: <ucs_status_string(status)>".
std::string describe(ucs_status_t status, const std::string& what);

ChannelError error(ucs_status_t status, const std::string& what);

inline void check(ucs_status_t status, const char* what) {
  if (status != UCS_OK && status != UCS_INPROGRESS) throw error(status, what);
}

}  // namespace slipway::channels::ucx
