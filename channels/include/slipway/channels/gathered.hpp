// A message in pieces (scatter/gather): small parts copied into the
// message's own buffer, large ones referred to where they already are and
// kept alive by an owner, so that a reply made of many stored items goes
// out without being copied into one buffer first (Responder::reply_gathered).
//
// Contract: the bytes of a shared piece must not change until the message
// is sent; its owner (any shared_ptr) is held until the channel is done
// with the message. Pieces keep their order; empty ones are dropped.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "slipway/channels/bytes.hpp"

namespace slipway::channels {

class Gathered {
 public:
  // Copies `bytes` to the end of the message (headers, lengths).
  void append_copy(ByteView bytes);
  // Refers to `bytes` without copying them; `owner` keeps them valid.
  void append_shared(ByteView bytes, std::shared_ptr<const void> owner);
  void reserve(std::size_t own_bytes, std::size_t pieces);

  std::size_t size() const noexcept { return size_; }
  std::size_t piece_count() const noexcept { return pieces_.size(); }
  // Piece i, valid while this message lives and is not appended to.
  ByteView piece(std::size_t i) const noexcept;
  // The message as one buffer (a copy of every piece).
  Bytes flatten() const;

 private:
  struct Piece {
    bool own = false;
    std::size_t offset = 0;  // in own_, when own
    std::size_t length = 0;
    const std::byte* external = nullptr;
  };
  Bytes own_;
  std::vector<Piece> pieces_;
  std::vector<std::shared_ptr<const void>> owners_;
  std::size_t size_ = 0;
};

}  // namespace slipway::channels
