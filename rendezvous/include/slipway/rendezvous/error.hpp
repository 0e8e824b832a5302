// The exception the rendezvous client and server throw: a Status plus a
// message for users (naming node.replica and what to do where it can).
#pragma once

#include <stdexcept>
#include <string>

#include "slipway/rendezvous/types.hpp"

namespace slipway::rendezvous {

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

}  // namespace slipway::rendezvous
