// Little-endian encoding of the replay wire protocol and checkpoints: a
// ByteWriter that appends, and a ByteReader that checks every length
// against what is left before it reads or allocates.
//
// Contract: ByteReader throws ByteError (what was being read, at which
// offset) when the bytes end early; lengths come from the caller's bounds.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "slipway/replay/item_store.hpp"

namespace slipway::replay {

static_assert(std::endian::native == std::endian::little, "the replay codec assumes a little-endian host");

class ByteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  void u8(std::uint8_t v) { put(v); }
  void u16(std::uint16_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void i64(std::int64_t v) { put(v); }
  void f64(double v) { put(v); }
  void raw(std::span<const std::byte> bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
  // u16 length + bytes; throws ByteError past 65,535 bytes.
  void str(std::string_view text);
  // u32 length + bytes.
  void blob(std::span<const std::byte> bytes);

 private:
  Bytes& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::uint8_t u8(const char* what) { return get<std::uint8_t>(what); }
  std::uint16_t u16(const char* what) { return get<std::uint16_t>(what); }
  std::uint32_t u32(const char* what) { return get<std::uint32_t>(what); }
  std::uint64_t u64(const char* what) { return get<std::uint64_t>(what); }
  std::int64_t i64(const char* what) { return get<std::int64_t>(what); }
  double f64(const char* what) { return get<double>(what); }
  std::span<const std::byte> raw(std::size_t n, const char* what);
  // A str of at most max_bytes.
  std::string str(const char* what, std::size_t max_bytes = 255);
  // A blob of at most max_bytes.
  std::span<const std::byte> blob(const char* what, std::uint64_t max_bytes);
  std::size_t offset() const noexcept { return at_; }
  const std::byte* data() const noexcept { return in_.data(); }  // what it reads
  std::size_t size() const noexcept { return in_.size(); }
  std::size_t left() const noexcept { return in_.size() - at_; }
  // Throws unless every byte was read.
  void finish(const char* what) const;

 private:
  void need(std::size_t n, const char* what) const;
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

}  // namespace slipway::replay
