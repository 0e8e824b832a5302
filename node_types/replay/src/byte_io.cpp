// The bounded little-endian reader and the writer behind the wire codec and
// checkpoints.
#include "slipway/replay/byte_io.hpp"

namespace slipway::replay {

void ByteWriter::str(std::string_view text) {
  if (text.size() > 0xFFFF) throw ByteError("a string of " + std::to_string(text.size()) + " bytes (at most 65535)");
  u16(static_cast<std::uint16_t>(text.size()));
  raw(std::as_bytes(std::span(text.data(), text.size())));
}

void ByteWriter::blob(std::span<const std::byte> bytes) {
  if (bytes.size() > 0xFFFFFFFFULL) throw ByteError("a blob of more than 4 GiB");
  u32(static_cast<std::uint32_t>(bytes.size()));
  raw(bytes);
}

void ByteReader::need(std::size_t n, const char* what) const {
  if (n > left()) {
    throw ByteError(std::string(what) + ": needs " + std::to_string(n) + " bytes at offset " + std::to_string(at_) +
                    ", only " + std::to_string(left()) + " left");
  }
}

std::span<const std::byte> ByteReader::raw(std::size_t n, const char* what) {
  need(n, what);
  auto out = in_.subspan(at_, n);
  at_ += n;
  return out;
}

std::string ByteReader::str(const char* what, std::size_t max_bytes) {
  const std::uint16_t n = u16(what);
  if (n > max_bytes) {
    throw ByteError(std::string(what) + ": " + std::to_string(n) + " bytes, at most " + std::to_string(max_bytes));
  }
  const auto bytes = raw(n, what);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::span<const std::byte> ByteReader::blob(const char* what, std::uint64_t max_bytes) {
  const std::uint32_t n = u32(what);
  if (n > max_bytes) {
    throw ByteError(std::string(what) + ": " + std::to_string(n) + " bytes, at most " + std::to_string(max_bytes));
  }
  return raw(n, what);
}

void ByteReader::finish(const char* what) const {
  if (left() != 0) {
    throw ByteError(std::string(what) + ": " + std::to_string(left()) + " bytes left over at offset " +
                    std::to_string(at_));
  }
}

}  // namespace slipway::replay
