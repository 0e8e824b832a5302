// Splits a byte stream into length-prefixed frames, holding back only the
// bytes of an incomplete frame, or, when the consumer asks, every byte after
// the frame it stopped at (backpressure: see hold()).
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
  std::size_t buffered_bytes() const { return partial_.size() - head_; }
  const std::string& error() const { return error_; }

  // Calls on_frame(std::span<const std::uint8_t> body) for every complete
  // frame, in order: first those held back by an earlier call, then those of
  // `data`. on_frame returns false to stop: the remaining bytes are dropped,
  // unless on_frame called hold() first, in which case they are kept and
  // handed out by the next feed() (feed an empty span to resume). Returns
  // false on an out-of-bounds length (see error()); the reader is then
  // unusable.
  template <class OnFrame>
  bool feed(std::span<const std::uint8_t> data, OnFrame&& on_frame) {
    if (!error_.empty()) return false;
    std::size_t pos = 0;
    // Bytes kept from earlier calls: an incomplete frame (completed from
    // `data`) or, after hold(), any number of frames.
    while (head_ < partial_.size()) {
      if (partial_.size() - head_ < 4) {
        pos += append(data, pos, 4 - (partial_.size() - head_));
        if (partial_.size() - head_ < 4) return true;
      }
      const std::uint32_t len = read_length(partial_.data() + head_);
      if (!check(len)) return false;
      const std::size_t end = head_ + 4 + std::size_t{len};
      if (partial_.size() < end) {
        pos += append(data, pos, end - partial_.size());
        if (partial_.size() < end) return true;
      }
      const bool go_on = on_frame(std::span<const std::uint8_t>(partial_.data() + head_ + 4, len));
      head_ = end;
      if (!go_on) return stopped(data.subspan(pos));
    }
    release_partial();
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
      const bool go_on = on_frame(data.subspan(pos + 4, len));
      pos += 4 + std::size_t{len};
      if (!go_on) return stopped(data.subspan(pos));
    }
    return true;
  }

  // From inside on_frame, before it returns false: keep the bytes after the
  // current frame for the next feed() instead of dropping them. The caller
  // bounds what is kept by not feeding more until it resumes.
  void hold() { hold_ = true; }
  // Whether held or partial bytes wait for the next feed().
  bool holding() const { return head_ < partial_.size(); }

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
    head_ = 0;
    return false;
  }
  // Appends up to `want` bytes of data[pos..] to partial_; returns how many.
  std::size_t append(std::span<const std::uint8_t> data, std::size_t pos, std::size_t want) {
    const std::size_t take = std::min(want, data.size() - pos);
    partial_.insert(partial_.end(), data.begin() + static_cast<std::ptrdiff_t>(pos),
                    data.begin() + static_cast<std::ptrdiff_t>(pos + take));
    return take;
  }
  // on_frame stopped the feed; `rest` is what was not looked at yet.
  bool stopped(std::span<const std::uint8_t> rest) {
    if (!hold_) {
      release_partial();
      return true;
    }
    hold_ = false;
    partial_.erase(partial_.begin(), partial_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
    partial_.insert(partial_.end(), rest.begin(), rest.end());
    return true;
  }
  void release_partial() {
    head_ = 0;
    if (partial_.capacity() > 65536) {
      partial_ = {};
    } else {
      partial_.clear();
    }
  }

  std::uint32_t max_;
  std::vector<std::uint8_t> partial_;
  std::size_t head_ = 0;  // partial_[0, head_) was handed out already
  bool hold_ = false;
  std::string error_;
};

}  // namespace slipway::rendezvous::wire
