// The checkpoint format of a shard: a snapshot of its tables (items, their
// priorities and times sampled, the limiter counters) and of the data the
// items share (each blob once), as bytes and back.
//
// Layout (little-endian): the header "SLWREPLY" + u32 version (2; 1 is read
// too), then records `u8 type | u64 length | payload | u32 crc32` (the
// CRC-32 of type, length and payload): meta (shard, next key counter, table
// and blob counts), one blob record per blob, per table a table record
// (name, counters, item count) followed by item records of at most 65,536
// items, from version 2 insert records (the de-duplication memory: client,
// seq and keys of completed inserts), and an end record. docs/replay.md,
// "Checkpoints".
//
// Contract: parse_checkpoint() checks every length and count against the
// bytes present and the limits before allocating, verifies every CRC, and
// throws CheckpointError naming the byte offset and what is wrong for a
// truncated, corrupted or inconsistent checkpoint; nothing of it is used then.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "slipway/replay/item_store.hpp"
#include "slipway/replay/rate_limiter.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay {

struct SnapshotItem {
  Key key = 0;
  double priority = 0.0;
  std::uint32_t times = 0;  // times sampled (work tables: times leased)
};

struct SnapshotTable {
  std::string name;
  RateLimiterCounters counters;
  std::vector<SnapshotItem> items;  // key order
};

// A completed insert the shard remembers, so that a client re-sending it
// (same client id and seq) gets its keys back instead of a second copy.
struct SnapshotInsert {
  std::uint64_t client = 0;
  std::uint64_t seq = 0;
  std::vector<Key> keys;
  friend bool operator==(const SnapshotInsert&, const SnapshotInsert&) = default;
};

struct Snapshot {
  std::uint32_t shard = 0;
  std::uint64_t next_counter = 1;
  std::vector<std::pair<Key, ItemStore::Data>> blobs;  // each blob once, key order
  std::vector<SnapshotTable> tables;
  // The de-duplication memory, least recently used client first, each
  // client's inserts in seq order (empty from a version 1 checkpoint).
  std::vector<SnapshotInsert> inserts;

  std::uint64_t item_count() const;
  std::uint64_t data_bytes() const;
};

// Room a checkpoint file has beyond its data: its tables', items' and
// inserts' records (about 20 bytes per item and table).
constexpr std::uint64_t kCheckpointRecordBytes = std::uint64_t{4} << 30;

struct CheckpointLimits {
  std::uint64_t max_blob_bytes = std::uint64_t{64} << 20;
  std::uint32_t max_tables = 1024;
  // A checkpoint file larger than this is not read (the shard's
  // max_data_bytes + kCheckpointRecordBytes).
  std::uint64_t max_file_bytes = (std::uint64_t{8} << 30) + kCheckpointRecordBytes;
};

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using ByteSink = std::function<void(std::span<const std::byte>)>;

void write_checkpoint(const Snapshot& snapshot, const ByteSink& sink);
Bytes encode_checkpoint(const Snapshot& snapshot);
// Blobs go into `store` (so the engine restoring it accounts for them).
Snapshot parse_checkpoint(std::span<const std::byte> bytes, ItemStore& store,
                          const CheckpointLimits& limits = {});

std::uint32_t crc32(std::span<const std::byte> bytes, std::uint32_t crc = 0);

}  // namespace slipway::replay
