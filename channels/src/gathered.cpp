// Gathered: a message in pieces (gathered.hpp). Consecutive copied parts
// share one piece of the message's own buffer; shared parts are kept as
// pointers with their owners.
#include "slipway/channels/gathered.hpp"

#include <cstring>

namespace slipway::channels {

void Gathered::append_copy(ByteView bytes) {
  if (bytes.empty()) return;
  const std::size_t offset = own_.size();
  own_.insert(own_.end(), bytes.begin(), bytes.end());
  if (!pieces_.empty() && pieces_.back().own) {
    pieces_.back().length += bytes.size();
  } else {
    pieces_.push_back(Piece{true, offset, bytes.size(), nullptr});
  }
  size_ += bytes.size();
}

void Gathered::append_shared(ByteView bytes, std::shared_ptr<const void> owner) {
  if (bytes.empty()) return;
  pieces_.push_back(Piece{false, 0, bytes.size(), bytes.data()});
  if (owner && (owners_.empty() || owners_.back() != owner)) owners_.push_back(std::move(owner));
  size_ += bytes.size();
}

void Gathered::reserve(std::size_t own_bytes, std::size_t pieces) {
  own_.reserve(own_bytes);
  pieces_.reserve(pieces);
  owners_.reserve(pieces);
}

ByteView Gathered::piece(std::size_t i) const noexcept {
  const Piece& p = pieces_[i];
  return p.own ? ByteView(own_.data() + p.offset, p.length) : ByteView(p.external, p.length);
}

Bytes Gathered::flatten() const {
  Bytes out(size_);
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    const ByteView p = piece(i);
    std::memcpy(out.data() + at, p.data(), p.size());
    at += p.size();
  }
  return out;
}

}  // namespace slipway::channels
