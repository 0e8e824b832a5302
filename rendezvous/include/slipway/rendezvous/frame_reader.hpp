// Splits a byte stream into length-prefixed frames, holding back only the
// bytes of an incomplete frame.
//
// Contract: a frame whose announced body length is 0 or above the current
// bound is refused before any of its bytes are buffered; the bound may change
// between frames (e.g. raised once a peer has authenticated). Complete frames
// inside the fed span are handed out in place, without copying.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace slipway::rendezvous::wire {

class FrameReader {
 public:
  explicit FrameReader(std::uint32_t max_frame_bytes) : max_(max_frame_bytes) {}

  void set_max_frame_bytes(std::uint32_t max) { max_ = max; }
  std::uint32_t max_frame_bytes() const { return max_; }
  std::size_t buffered_bytes() const { return partial_.size(); }
  const std::string& error() const { return error_; }

  // Calls on_frame(std::span<const std::uint8_t> body) for every complete
  // frame, in order; on_frame returns false to stop (the remaining bytes are
  // dropped). Returns false on an out-of-bounds length (see error()); the
  // reader is then unusable.
  template <class OnFrame>
  bool feed(std::span<const std::uint8_t> data, OnFrame&& on_frame) {
    if (!error_.empty()) return false;
    std::size_t pos = 0;
    if (!partial_.empty()) {
      while (partial_.size() < 4 && pos < data.size()) partial_.push_back(data[pos++]);
      if (partial_.size() < 4) return true;
      const std::uint32_t len = read_length(partial_.data());
      if (!check(len)) return false;
      const std::size_t want = 4 + std::size_t{len} - partial_.size();
      const std::size_t take = std::min(want, data.size() - pos);
      partial_.insert(partial_.end(), data.begin() + static_cast<std::ptrdiff_t>(pos),
                      data.begin() + static_cast<std::ptrdiff_t>(pos + take));
      pos += take;
      if (partial_.size() < 4 + std::size_t{len}) return true;
      const bool go_on = on_frame(std::span<const std::uint8_t>(partial_.data() + 4, len));
      release_partial();
      if (!go_on) return true;
    }
    while (pos < data.size()) {
      const std::size_t left = data.size() - pos;
      if (left < 4) {
        partial_.assign(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end());
        return true;
      }
      const std::uint32_t len = read_length(data.data() + pos);
      if (!check(len)) return false;
      if (left - 4 < len) {
        partial_.assign(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end());
        return true;
      }
      if (!on_frame(data.subspan(pos + 4, len))) return true;
      pos += 4 + std::size_t{len};
    }
    return true;
  }

 private:
  static std::uint32_t read_length(const std::uint8_t* p) {
    return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
           (std::uint32_t{p[3]} << 24);
  }
  bool check(std::uint32_t len) {
    if (len == 0) {
      error_ = "empty frame";
    } else if (len > max_) {
      error_ = "frame of " + std::to_string(len) + " bytes exceeds the bound of " +
               std::to_string(max_) + " bytes";
    } else {
      return true;
    }
    partial_ = {};
    return false;
  }
  void release_partial() {
    if (partial_.capacity() > 65536) {
      partial_ = {};
    } else {
      partial_.clear();
    }
  }

  std::uint32_t max_;
  std::vector<std::uint8_t> partial_;
  std::string error_;
};

}  // namespace slipway::rendezvous::wire
