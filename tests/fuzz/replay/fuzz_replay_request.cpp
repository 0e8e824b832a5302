// libFuzzer target for the replay service's request decoders (what a shard
// reads from any courier caller: docs/replay.md, "Wire protocol"). The first
// byte picks the method; the rest is a whole request, caller block first.
// Properties checked on every input: decoding never crashes, reads out of
// bounds or allocates past its bounds (ASan/UBSan, counts checked against
// the bytes present); a refusal is a ByteError; whatever decodes re-encodes
// to exactly the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "slipway/replay/wire.hpp"

using namespace slipway::replay;

namespace {
void same(const Bytes& again, const std::uint8_t* data, std::size_t size) {
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t method = data[0];
  ++data;
  --size;
  ByteReader r(std::span(reinterpret_cast<const std::byte*>(data), size));
  try {
    const Caller caller = wire::get_caller(r);
    switch (method % 7) {
      case 0: {
        const InsertRequest request = wire::decode_insert(r);
        std::vector<std::pair<wire::View, std::vector<std::pair<std::string, double>>>> items;
        for (const auto& item : request.items) items.emplace_back(item.data.view(), item.priorities);
        same(wire::encode_insert(caller, request.seq, request.wait_ms, items), data, size);
        // The server's way (the request kept, the items parts of it) reads the same.
        Bytes body(reinterpret_cast<const std::byte*>(data), reinterpret_cast<const std::byte*>(data) + size);
        ByteReader again(body);
        wire::get_caller(again);
        const InsertRequest kept = wire::decode_insert(again, std::move(body));
        if (kept.items.size() != request.items.size()) std::abort();
        for (std::size_t i = 0; i < kept.items.size(); ++i) {
          const auto a = kept.items[i].data.view(), b = request.items[i].data.view();
          if (a.size() != b.size() || (a.size() > 0 && std::memcmp(a.data(), b.data(), a.size()) != 0)) std::abort();
          if (a.size() > 0 && (a.data() < kept.buffer->data() || a.data() + a.size() > kept.buffer->data() + kept.buffer->size())) {
            std::abort();  // a part of the kept request
          }
        }
        break;
      }
      case 1: same(wire::encode_sample(caller, wire::decode_sample(r)), data, size); break;
      case 2: same(wire::encode_lease(caller, wire::decode_lease(r)), data, size); break;
      case 3: same(wire::encode_mutate(caller, wire::decode_mutate(r)), data, size); break;
      case 4: same(wire::encode_table(caller, wire::decode_table(r)), data, size); break;
      case 5: same(wire::encode_leases(caller, wire::decode_leases(r)), data, size); break;
      default:
        r.finish("info request");
        same(wire::encode_caller_only(caller), data, size);
        break;
    }
  } catch (const ByteError& error) {
    if (std::strlen(error.what()) == 0) std::abort();  // a refusal says why
  }
  return 0;
}
