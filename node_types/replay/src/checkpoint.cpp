// Writing and parsing checkpoints: CRC-checked, length-prefixed records.
#include "slipway/replay/checkpoint.hpp"

#include <initializer_list>
#include <set>

#include "slipway/replay/byte_io.hpp"

namespace slipway::replay {

namespace {
constexpr std::string_view kMagic = "SLWREPLY";
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kOldestVersion = 1;  // no insert records
constexpr std::size_t kItemsPerRecord = 65536;
constexpr std::size_t kItemBytes = 8 + 8 + 4;
constexpr std::uint64_t kMaxSmallRecord = 8 + 65536 * kItemBytes;  // every record but blobs
enum Record : std::uint8_t { meta = 1, blob = 2, table = 3, items = 4, end = 5, inserts = 6 };
// An insert record: u32 count, then per insert u64 client, u64 seq, u32 key
// count and the keys; written in records of at most kMaxSmallRecord.
constexpr std::size_t kInsertHeadBytes = 8 + 8 + 4;

// One record: type, length, payload (given in parts, so a blob's data is
// never copied), and the CRC of the three.
void emit(const ByteSink& sink, Record type, std::initializer_list<std::span<const std::byte>> parts) {
  std::uint64_t length = 0;
  for (const auto& part : parts) length += part.size();
  Bytes head;
  ByteWriter w(head);
  w.u8(type);
  w.u64(length);
  std::uint32_t crc = crc32(head);
  sink(head);
  for (const auto& part : parts) {
    crc = crc32(part, crc);
    sink(part);
  }
  Bytes tail;
  ByteWriter(tail).u32(crc);
  sink(tail);
}

std::string at(std::size_t offset) { return "checkpoint, offset " + std::to_string(offset) + ": "; }
}  // namespace

std::uint64_t Snapshot::item_count() const {
  std::uint64_t count = 0;
  for (const auto& table : tables) count += table.items.size();
  return count;
}

std::uint64_t Snapshot::data_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& entry : blobs) bytes += entry.second->bytes().size();
  return bytes;
}

void write_checkpoint(const Snapshot& snapshot, const ByteSink& sink) {
  Bytes buffer;
  ByteWriter w(buffer);
  w.raw(std::as_bytes(std::span(kMagic.data(), kMagic.size())));
  w.u32(kVersion);
  sink(buffer);

  buffer.clear();
  w.u32(snapshot.shard);
  w.u64(snapshot.next_counter);
  w.u32(static_cast<std::uint32_t>(snapshot.tables.size()));
  w.u64(snapshot.blobs.size());
  emit(sink, meta, {buffer});

  for (const auto& [key, data] : snapshot.blobs) {
    buffer.clear();
    w.u64(key);
    emit(sink, blob, {buffer, data->bytes()});
  }
  std::uint64_t items_written = 0;
  for (const auto& table : snapshot.tables) {
    buffer.clear();
    w.str(table.name);
    w.i64(table.counters.inserts);
    w.i64(table.counters.samples);
    w.i64(table.counters.deletes);
    w.u64(table.items.size());
    emit(sink, Record::table, {buffer});
    for (std::size_t first = 0; first < table.items.size(); first += kItemsPerRecord) {
      const std::size_t count = std::min(kItemsPerRecord, table.items.size() - first);
      buffer.clear();
      w.u32(static_cast<std::uint32_t>(count));
      for (std::size_t i = first; i < first + count; ++i) {
        w.u64(table.items[i].key);
        w.f64(table.items[i].priority);
        w.u32(table.items[i].times);
      }
      emit(sink, items, {buffer});
    }
    items_written += table.items.size();
  }
  // The de-duplication memory, in records that stay under kMaxSmallRecord.
  for (std::size_t first = 0; first < snapshot.inserts.size();) {
    std::size_t bytes = 4, last = first;
    while (last < snapshot.inserts.size() &&
           bytes + kInsertHeadBytes + 8 * snapshot.inserts[last].keys.size() <= kMaxSmallRecord) {
      bytes += kInsertHeadBytes + 8 * snapshot.inserts[last].keys.size();
      ++last;
    }
    if (last == first) {  // one insert too large for a record: not remembered
      ++first;
      continue;
    }
    buffer.clear();
    w.u32(static_cast<std::uint32_t>(last - first));
    for (std::size_t i = first; i < last; ++i) {
      const SnapshotInsert& insert = snapshot.inserts[i];
      w.u64(insert.client);
      w.u64(insert.seq);
      w.u32(static_cast<std::uint32_t>(insert.keys.size()));
      for (Key key : insert.keys) w.u64(key);
    }
    emit(sink, Record::inserts, {buffer});
    first = last;
  }
  buffer.clear();
  w.u64(items_written);
  emit(sink, end, {buffer});
}

Bytes encode_checkpoint(const Snapshot& snapshot) {
  Bytes out;
  write_checkpoint(snapshot, [&](std::span<const std::byte> part) { out.insert(out.end(), part.begin(), part.end()); });
  return out;
}

Snapshot parse_checkpoint(std::span<const std::byte> bytes, ItemStore& store, const CheckpointLimits& limits) {
  ByteReader in(bytes);
  Snapshot snapshot;
  try {
    const auto magic = in.raw(kMagic.size(), "header");
    if (std::memcmp(magic.data(), kMagic.data(), kMagic.size()) != 0) {
      throw CheckpointError(at(0) + "not a slipway replay checkpoint (no SLWREPLY header)");
    }
    const std::uint32_t version = in.u32("version");
    if (version < kOldestVersion || version > kVersion) {
      throw CheckpointError(at(8) + "checkpoint version " + std::to_string(version) + ", this slipway reads " +
                            std::to_string(kOldestVersion) + " to " + std::to_string(kVersion));
    }
    std::uint32_t tables_expected = 0;
    std::uint64_t blobs_expected = 0;
    std::uint64_t items_in_table = 0;  // still due for the latest table
    std::uint64_t items_total = 0;
    std::set<Key> blob_keys;
    bool seen_meta = false;
    while (true) {
      const std::size_t start = in.offset();
      const std::uint8_t type = in.u8("record type");
      const std::uint64_t length = in.u64("record length");
      const std::uint64_t bound = type == blob ? 8 + limits.max_blob_bytes : kMaxSmallRecord;
      if (length > bound) {
        throw CheckpointError(at(start) + "record of " + std::to_string(length) + " bytes (at most " +
                              std::to_string(bound) + " for its type): corrupted");
      }
      if (length + 4 > in.left()) {
        throw CheckpointError(at(start) + "the file ends inside a record (truncated checkpoint)");
      }
      const auto payload = in.raw(static_cast<std::size_t>(length), "record");
      std::uint32_t crc = crc32(bytes.subspan(start, 9));
      crc = crc32(payload, crc);
      if (in.u32("record crc") != crc) throw CheckpointError(at(start) + "record checksum mismatch (corrupted)");
      ByteReader body(payload);
      if (!seen_meta && type != meta) throw CheckpointError(at(start) + "the first record is not the meta record");
      switch (type) {
        case meta: {
          if (seen_meta) throw CheckpointError(at(start) + "a second meta record");
          seen_meta = true;
          snapshot.shard = body.u32("shard");
          snapshot.next_counter = body.u64("next counter");
          tables_expected = body.u32("table count");
          blobs_expected = body.u64("blob count");
          if (tables_expected > limits.max_tables) {
            throw CheckpointError(at(start) + std::to_string(tables_expected) + " tables (at most " +
                                  std::to_string(limits.max_tables) + ")");
          }
          body.finish("meta record");
          break;
        }
        case blob: {
          if (!snapshot.tables.empty()) throw CheckpointError(at(start) + "a blob record after the tables");
          if (snapshot.blobs.size() >= blobs_expected) throw CheckpointError(at(start) + "more blobs than announced");
          const Key key = body.u64("blob key");
          if (!blob_keys.insert(key).second) throw CheckpointError(at(start) + "blob key repeated");
          const auto data = body.raw(body.left(), "blob data");
          snapshot.blobs.emplace_back(key, store.add(Bytes(data.begin(), data.end())));
          break;
        }
        case table: {
          if (!snapshot.inserts.empty()) throw CheckpointError(at(start) + "a table record after the inserts");
          if (items_in_table != 0) throw CheckpointError(at(start) + "a table record before the last one's items");
          if (snapshot.tables.size() >= tables_expected) throw CheckpointError(at(start) + "more tables than announced");
          SnapshotTable saved;
          saved.name = body.str("table name");
          saved.counters.inserts = body.i64("inserts");
          saved.counters.samples = body.i64("samples");
          saved.counters.deletes = body.i64("deletes");
          items_in_table = body.u64("item count");
          if (items_in_table > blob_keys.size()) {
            throw CheckpointError(at(start) + "table '" + saved.name + "' claims more items than there are blobs");
          }
          body.finish("table record");
          saved.items.reserve(static_cast<std::size_t>(items_in_table));
          snapshot.tables.push_back(std::move(saved));
          break;
        }
        case Record::inserts: {
          if (version < 2) throw CheckpointError(at(start) + "an insert record in a version 1 checkpoint");
          if (items_in_table != 0 || snapshot.tables.size() != tables_expected) {
            throw CheckpointError(at(start) + "an insert record before the tables are complete");
          }
          const std::uint32_t count = body.u32("insert count");
          if (count > body.left() / kInsertHeadBytes) {
            throw CheckpointError(at(start) + "an insert record of inconsistent size");
          }
          for (std::uint32_t i = 0; i < count; ++i) {
            SnapshotInsert insert;
            insert.client = body.u64("client");
            insert.seq = body.u64("seq");
            const std::uint32_t keys = body.u32("key count");
            if (keys > body.left() / 8) throw CheckpointError(at(start) + "an insert record of inconsistent size");
            insert.keys.reserve(keys);
            for (std::uint32_t k = 0; k < keys; ++k) insert.keys.push_back(body.u64("key"));
            snapshot.inserts.push_back(std::move(insert));
          }
          body.finish("insert record");
          break;
        }
        case items: {
          if (!snapshot.inserts.empty()) throw CheckpointError(at(start) + "an items record after the inserts");
          if (snapshot.tables.empty()) throw CheckpointError(at(start) + "items before any table");
          const std::uint32_t count = body.u32("item count");
          if (count > items_in_table || count > kItemsPerRecord || body.left() != count * kItemBytes) {
            throw CheckpointError(at(start) + "an items record of inconsistent size");
          }
          auto& saved = snapshot.tables.back();
          for (std::uint32_t i = 0; i < count; ++i) {
            SnapshotItem item;
            item.key = body.u64("key");
            item.priority = body.f64("priority");
            item.times = body.u32("times");
            if (!blob_keys.contains(item.key)) {
              throw CheckpointError(at(start) + "item " + std::to_string(item.key) + " of table '" + saved.name +
                                    "' has no blob");
            }
            saved.items.push_back(item);
          }
          items_in_table -= count;
          items_total += count;
          break;
        }
        case end: {
          const std::uint64_t announced = body.u64("item total");
          body.finish("end record");
          if (items_in_table != 0 || snapshot.tables.size() != tables_expected ||
              snapshot.blobs.size() != blobs_expected || announced != items_total) {
            throw CheckpointError(at(start) + "the end record does not match what came before (incomplete)");
          }
          in.finish("checkpoint");
          return snapshot;
        }
        default:
          throw CheckpointError(at(start) + "unknown record type " + std::to_string(type));
      }
    }
  } catch (const ByteError& error) {
    throw CheckpointError(std::string("checkpoint: ") + error.what() + " (truncated or corrupted)");
  }
}

}  // namespace slipway::replay
