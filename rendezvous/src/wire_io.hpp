// Private: the little-endian writer and the bounds-checked reader that the
// wire codec is built from.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace slipway::rendezvous::wire::detail {

// Appends fields to `out`. When framed, reserves the u32 length up front and
// patches it in finish().
class Writer {
 public:
  Writer(std::string& out, bool framed) : out_(out), start_(out.size()), framed_(framed) {
    if (framed_) out_.append(4, '\0');
  }
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(std::uint16_t v) { le(v, 2); }
  void u32(std::uint32_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void i32(std::int32_t v) { le(static_cast<std::uint32_t>(v), 4); }
  void i64(std::int64_t v) { le(static_cast<std::uint64_t>(v), 8); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  void opt(const std::optional<std::string>& s) {
    boolean(s.has_value());
    if (s) str(*s);
  }
  void raw(std::span<const std::uint8_t> bytes) {
    out_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  void finish() {
    if (!framed_) return;
    const std::uint64_t body = out_.size() - start_ - 4;
    for (int i = 0; i < 4; ++i) out_[start_ + static_cast<std::size_t>(i)] = static_cast<char>(body >> (8 * i));
  }

 private:
  void le(std::uint64_t v, int bytes) {
    char buf[8];
    for (int i = 0; i < bytes; ++i) buf[i] = static_cast<char>(v >> (8 * i));
    out_.append(buf, static_cast<std::size_t>(bytes));
  }
  std::string& out_;
  std::size_t start_;
  bool framed_;
};

// Reads fields from a frame body. Every read checks the remaining length;
// the first failure latches an error and makes later reads return zeros.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> data) : data_(data) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::size_t remaining() const { return data_.size() - pos_; }
  void fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    pos_ = data_.size();
  }

  std::uint8_t u8() { return static_cast<std::uint8_t>(le(1, "u8")); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(le(2, "u16")); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(le(4, "u32")); }
  std::uint64_t u64() { return le(8, "u64"); }
  std::int32_t i32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4, "i32"))); }
  std::int64_t i64() { return static_cast<std::int64_t>(le(8, "i64")); }
  bool boolean(const char* field) {
    const std::uint8_t v = u8();
    if (v > 1) fail(std::string(field) + ": flag is not 0 or 1");
    return v == 1;
  }
  // A string of at most `max` bytes.
  std::string str(std::uint32_t max, const char* field) {
    const std::uint32_t n = u32();
    if (!ok()) return {};
    if (n > max) {
      fail(std::string(field) + ": length " + std::to_string(n) + " exceeds the bound " + std::to_string(max));
      return {};
    }
    if (n > remaining()) {
      fail(std::string(field) + ": length " + std::to_string(n) + " runs past the frame");
      return {};
    }
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  // The next n bytes (the caller checked that they are there).
  std::string str_of(std::size_t n) {
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  std::optional<std::string> opt(std::uint32_t max, const char* field) {
    if (!boolean(field)) return std::nullopt;
    return str(max, field);
  }
  template <std::size_t N>
  void raw(std::array<std::uint8_t, N>& out, const char* field) {
    if (remaining() < N) {
      fail(std::string(field) + ": truncated");
      return;
    }
    std::memcpy(out.data(), data_.data() + pos_, N);
    pos_ += N;
  }
  // A count of at most `max` elements, each at least `min_element_bytes` long
  // (so a count can never promise more than the frame holds).
  std::uint32_t count(std::uint32_t max, std::size_t min_element_bytes, const char* field) {
    const std::uint32_t n = u32();
    if (!ok()) return 0;
    if (n > max) {
      fail(std::string(field) + ": count " + std::to_string(n) + " exceeds the bound " + std::to_string(max));
      return 0;
    }
    if (static_cast<std::uint64_t>(n) * min_element_bytes > remaining()) {
      fail(std::string(field) + ": count " + std::to_string(n) + " runs past the frame");
      return 0;
    }
    return n;
  }

 private:
  std::uint64_t le(int bytes, const char* what) {
    if (remaining() < static_cast<std::size_t>(bytes)) {
      fail(std::string("truncated ") + what);
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t{data_[pos_ + static_cast<std::size_t>(i)]} << (8 * i);
    pos_ += static_cast<std::size_t>(bytes);
    return v;
  }

  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace slipway::rendezvous::wire::detail
