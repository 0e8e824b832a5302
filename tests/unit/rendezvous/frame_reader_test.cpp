// FrameReader: frames split across reads, many per read, and refused lengths.
#include <catch2/catch.hpp>

#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;
using wire::FrameReader;

namespace {
std::span<const std::uint8_t> bytes(const std::string& s) {
  return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}
}  // namespace

TEST_CASE("frames come out whole however the stream is cut", "[rendezvous][frames]") {
  std::string stream;
  for (int i = 0; i < 20; ++i) wire::encode(wire::Put{static_cast<std::uint32_t>(i), Scope::program, "key" + std::to_string(i), std::string(static_cast<std::size_t>(i * 13), 'v')}, stream);
  for (std::size_t step : {1u, 2u, 5u, 17u, 4096u}) {
    FrameReader reader(1 << 20);
    std::vector<std::uint32_t> ids;
    for (std::size_t pos = 0; pos < stream.size(); pos += step) {
      const auto chunk = bytes(stream).subspan(pos, std::min(step, stream.size() - pos));
      REQUIRE(reader.feed(chunk, [&](std::span<const std::uint8_t> body) {
        wire::Message m;
        std::string error;
        REQUIRE(wire::decode(body, Limits{}, m, error));
        ids.push_back(std::get<wire::Put>(m).id);
        return true;
      }));
    }
    CAPTURE(step);
    REQUIRE(ids.size() == 20);
    for (std::uint32_t i = 0; i < 20; ++i) CHECK(ids[i] == i);
    CHECK(reader.buffered_bytes() == 0);
  }
}

TEST_CASE("a frame above the bound is refused from its header alone", "[rendezvous][frames]") {
  FrameReader reader(100);
  const std::uint8_t header[] = {0x65, 0, 0, 0};  // 101 bytes announced
  int frames = 0;
  CHECK_FALSE(reader.feed(header, [&](auto) { return ++frames, true; }));
  CHECK(reader.error().find("exceeds the bound of 100") != std::string::npos);
  CHECK(reader.buffered_bytes() == 0);
  CHECK(frames == 0);
}

TEST_CASE("an empty frame is refused", "[rendezvous][frames]") {
  FrameReader reader(100);
  const std::uint8_t header[] = {0, 0, 0, 0};
  CHECK_FALSE(reader.feed(header, [](auto) { return true; }));
}

TEST_CASE("the bound may be raised between frames", "[rendezvous][frames]") {
  std::string stream;
  wire::encode(wire::Get{1, "k"}, stream);
  wire::encode(wire::Put{2, Scope::program, "k", std::string(500, 'v')}, stream);
  FrameReader reader(64);
  int frames = 0;
  CHECK(reader.feed(bytes(stream), [&](auto) {
    ++frames;
    reader.set_max_frame_bytes(1024);
    return true;
  }));
  CHECK(frames == 2);
}

TEST_CASE("on_frame can stop the reader", "[rendezvous][frames]") {
  std::string stream;
  wire::encode(wire::Get{1, "k"}, stream);
  wire::encode(wire::Get{2, "k"}, stream);
  FrameReader reader(64);
  int frames = 0;
  CHECK(reader.feed(bytes(stream), [&](auto) { return ++frames, false; }));
  CHECK(frames == 1);
}
