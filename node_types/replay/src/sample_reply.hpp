// A sample's reply as a gathered courier message (channels/gathered.hpp):
// the bytes of docs/replay.md's `sample` reply, with every item's data of
// at least kGatherBytes referred to where the store keeps it (the item's
// Data held until the reply is sent) instead of copied into one buffer.
// Smaller items are copied: a piece of their own costs more than the copy.
//
// Contract: gather_reply(reply).flatten() == wire::encode_reply(reply).
#pragma once

#include <cstddef>

#include "slipway/channels/gathered.hpp"
#include "slipway/replay/byte_io.hpp"
#include "slipway/replay/requests.hpp"
#include "slipway/replay/wire.hpp"

namespace slipway::replay {

inline constexpr std::size_t kGatherBytes = 4096;

inline channels::Gathered gather_reply(const SampleReply& reply) {
  channels::Gathered out;
  if (reply.status != Status::ok) {
    out.append_copy(wire::encode_reply(reply));
    return out;
  }
  Bytes head;  // the fields since the last piece of item data
  head.reserve(64);
  ByteWriter w(head);
  std::size_t copied = 5;
  for (const auto& item : reply.items) {
    copied += 40;
    if (item.data->bytes().size() < kGatherBytes) copied += item.data->bytes().size();
  }
  out.reserve(copied, 2 * reply.items.size() + 1);
  w.u8(static_cast<std::uint8_t>(Status::ok));
  w.u32(static_cast<std::uint32_t>(reply.items.size()));
  for (const auto& item : reply.items) {
    const auto data = item.data->bytes();
    w.u64(item.key);
    w.f64(item.priority);
    w.f64(item.probability);
    w.u64(item.table_size);
    w.u32(item.times_sampled);
    if (data.size() < kGatherBytes) {
      w.blob(data);
      continue;
    }
    w.u32(static_cast<std::uint32_t>(data.size()));
    out.append_copy(head);
    head.clear();
    out.append_shared(data, item.data);
  }
  out.append_copy(head);
  return out;
}

}  // namespace slipway::replay
