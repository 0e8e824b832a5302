// A link: one direction of a courier connection, this endpoint's way of
// sending messages to one peer endpoint, over UCX (shared memory within a
// host) or over the courier's own TCP transport (tcp_transport.hpp).
// Requests travel on the caller's link to the callee, replies on the
// callee's link back; nothing is read from the link one sends on.
//
// Contract: create and destroy links on the endpoint's owner thread only
// (progress_loop.hpp). send() takes the message, whose header and payload
// it keeps until its complete() runs: exactly once, inline or later from
// the owner's progress, with UCS_OK once the bytes left (or an error).
// A link that fails calls its error callback once, from progress, and then
// completes its queued messages with the error; the callback must not
// destroy the link. Destroying a link closes it: messages still queued are
// completed with UCS_ERR_CANCELED (a UCX link flushes what UCX took).
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <variant>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/gathered.hpp"
#include "slipway/channels/ucx/ep.hpp"
#include "slipway/channels/ucx/request.hpp"
#include "slipway/channels/wire.hpp"

namespace slipway::channels::detail {

// A message's payload: one buffer, or pieces (Responder::reply_gathered).
using Payload = std::variant<Bytes, Gathered>;

inline std::size_t payload_size(const Payload& payload) noexcept {
  if (const auto* bytes = std::get_if<Bytes>(&payload)) return bytes->size();
  return std::get<Gathered>(payload).size();
}

// One message being sent: its header and payload, and what to do when done.
class OutgoingMessage : public ucx::Operation {
 public:
  OutgoingMessage(wire::Encoded header, Payload payload)
      : header_(header), payload_(std::move(payload)) {}
  const wire::Encoded& header() const noexcept { return header_; }
  std::size_t payload_size() const noexcept { return detail::payload_size(payload_); }
  // The payload's pieces in order (none when it is empty).
  std::size_t piece_count() const noexcept {
    if (const auto* bytes = std::get_if<Bytes>(&payload_)) return bytes->empty() ? 0 : 1;
    return std::get<Gathered>(payload_).piece_count();
  }
  ByteView piece(std::size_t i) const noexcept {
    if (const auto* bytes = std::get_if<Bytes>(&payload_)) return ByteView(*bytes);
    return std::get<Gathered>(payload_).piece(i);
  }
  // The payload as one buffer: pieces are copied into one, once.
  ByteView contiguous() {
    if (const auto* gathered = std::get_if<Gathered>(&payload_)) payload_ = gathered->flatten();
    return ByteView(std::get<Bytes>(payload_));
  }

 private:
  wire::Encoded header_;
  Payload payload_;
};

// How a payload that is not in memory yet is received: `op` (owning the
// event the payload belongs to) gets `buffer` filled with `length` bytes,
// then its complete(). Returns UCS_INPROGRESS when it took `op`.
using PayloadReader =
    std::function<ucs_status_t(std::unique_ptr<ucx::Operation> op, std::byte* buffer,
                               std::size_t length)>;

class Link {
 public:
  using ErrorCallback = std::function<void(ucs_status_t status)>;
  virtual ~Link() = default;
  // `am_id`: wire::kRequestAm or kReplyAm; `flags`: UCP_AM_SEND_FLAG_*
  // (a UCX link's hint; TCP sends everything as it comes).
  virtual void send(unsigned am_id, std::unique_ptr<OutgoingMessage> message,
                    std::uint32_t flags) = 0;
  // A small message sent at once, without the link keeping it: true when
  // it went (`status` UCS_OK) or failed at once (`status` says why), as
  // send() would have completed it inline; false when it cannot go at
  // once (then send() it). For payloads up to kSendNowMax; a link without
  // such a path always says false.
  static constexpr std::size_t kSendNowMax = 1024;
  virtual bool send_now(unsigned /*am_id*/, const wire::Encoded& /*header*/, ByteView /*payload*/,
                        std::uint32_t /*flags*/, ucs_status_t& /*status*/) {
    return false;
  }
  virtual bool failed() const noexcept = 0;
  // Over UCX's shared memory (a peer on this host): the callee's one queue
  // is shared by all its senders (EndpointOptions::max_shared_memory_bytes_in_flight).
  virtual bool shared_memory() const noexcept { return false; }
  // The owner's messages on this link not completed yet: a link is closed
  // only once this is 0 (or it failed), since closing a UCX endpoint with
  // rendezvous transfers in flight trips UCX 1.13.
  std::size_t in_flight() const noexcept { return *in_flight_; }
  const std::shared_ptr<std::size_t>& in_flight_counter() const noexcept { return in_flight_; }

 protected:
  std::shared_ptr<std::size_t> in_flight_ = std::make_shared<std::size_t>(0);
};

// A link over a UCX endpoint (`shared_memory`: to a peer on this host, by
// UCX's shared-memory transports; else RDMA).
class UcxLink final : public Link {
 public:
  UcxLink(std::unique_ptr<ucx::Ep> ep, bool shared_memory);
  void send(unsigned am_id, std::unique_ptr<OutgoingMessage> message,
            std::uint32_t flags) override;
  // UCX's short active message (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL: UCX
  // copies header and payload out before it returns, or refuses).
  bool send_now(unsigned am_id, const wire::Encoded& header, ByteView payload,
                std::uint32_t flags, ucs_status_t& status) override;
  bool failed() const noexcept override { return ep_->failed(); }
  bool shared_memory() const noexcept override { return shared_memory_; }

 private:
  std::unique_ptr<ucx::Ep> ep_;
  bool shared_memory_;
};

}  // namespace slipway::channels::detail
