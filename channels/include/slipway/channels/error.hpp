// Typed errors of channels: every failure a caller or a service can see, as
// one exception type carrying a code (what happened) and a message (which
// node.replica, which method, what to do).
//
// Contract: every public function of channels reports failure by throwing
// ChannelError (or std::bad_alloc); nothing throws out of a UCX callback.
// A callee's error reaches the caller as Errc::remote_error with the
// callee's message in remote_message().
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace slipway::channels {

enum class Errc {
  timeout,            // no reply (or no address) within the call's timeout
  remote_error,       // the callee's handler failed; remote_message() is its text
  no_such_method,     // the callee registered no method of that name
  message_too_large,  // a request or reply exceeds an endpoint's max_message_bytes
  overloaded,         // the callee refused: too many queued requests or receive bytes
  peer_restarted,     // the callee published a new address while the call was in flight
  peer_lost,          // the connection to the callee failed (it exited, or the network)
  not_resolved,       // no address is known for that node.replica
  closed,             // this endpoint (or handle) was shut down
  would_deadlock,     // a blocking call from the thread progressing the endpoint (a handler)
  invalid_argument,   // a bad name, size or option given by the caller
  transport,          // UCX reported an error (the message names its status)
  protocol,           // a peer sent something malformed
};

std::string_view to_string(Errc code);

class ChannelError : public std::runtime_error {
 public:
  ChannelError(Errc code, const std::string& message, std::string remote_message = {})
      : std::runtime_error(message), code_(code), remote_message_(std::move(remote_message)) {}

  Errc code() const noexcept { return code_; }
  // The callee's own message for remote_error (and the callee's reason for
  // no_such_method, message_too_large, overloaded); empty otherwise.
  const std::string& remote_message() const noexcept { return remote_message_; }

 private:
  Errc code_;
  std::string remote_message_;
};

}  // namespace slipway::channels
