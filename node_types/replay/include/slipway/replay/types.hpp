// Vocabulary of the replay engine: keys, the injected clock's time points,
// table kinds, selector kinds, the identity of a caller and lease tokens
// (docs/replay.md, "Wire protocol").
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/core/replay_settings.hpp"

namespace slipway::replay {

// A key is unique in the whole node: (shard << 48) | counter.
using Key = std::uint64_t;
constexpr unsigned kShardShift = 48;
constexpr Key make_key(std::uint32_t shard, std::uint64_t counter) {
  return (static_cast<Key>(shard) << kShardShift) | counter;
}
constexpr std::uint32_t shard_of(Key key) { return static_cast<std::uint32_t>(key >> kShardShift); }

// The engine never reads a clock: every call is given `now`.
using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;

// Table and selector kinds: core's, the one enum set of the replay schema
// (slipway/core/replay_settings.hpp; its values are the wire's,
// docs/replay.md `info`), named by core::to_string.
using TableKind = core::ReplayTableKind;
using SelectorKind = core::ReplaySelectorType;

// Who calls: the task's node, replica and attempt, and the client object's
// random id (0: anonymous, no de-duplication).
struct Caller {
  std::uint64_t client_id = 0;
  std::uint32_t replica = 0;
  std::uint32_t attempt = 0;
  std::string node;
};

// A lease's secret: 128 random bits handed out with a leased item; an ack
// or nack of the item must bring it (docs/replay.md, `lease`).
using LeaseToken = std::array<std::byte, 16>;
struct LeaseRef {
  Key key = 0;
  LeaseToken token{};
};
// A fresh token from the kernel's random source (getrandom(2)); throws
// std::runtime_error when it gives none.
LeaseToken random_token();
// Compares in a time that does not depend on where they differ.
bool same_token(const LeaseToken& a, const LeaseToken& b) noexcept;

// Reply status (docs/replay.md, "Reply header and status codes").
enum class Status : std::uint8_t { ok = 0, not_ready = 1, invalid = 2, too_large = 3 };

}  // namespace slipway::replay
