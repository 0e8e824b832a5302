// Checkpoints: a round trip through bytes gives tables, items, priorities,
// times sampled, shared data and limiter counters back; truncation, a
// flipped byte and inconsistent counts are detected; the de-duplication
// memory comes back too.
#include <catch2/catch.hpp>

#include <cstring>

#include "engine_fixture.hpp"
#include "slipway/replay/checkpoint.hpp"

using namespace replay_test;

namespace {
EngineConfig two_tables() {
  auto prioritized = table("p");
  prioritized.sampler = {SelectorKind::prioritized, 0.6};
  return {{prioritized, table("q", TableKind::queue)}, {}};
}

Bytes checkpoint_of_busy_engine(std::vector<Key>& keys) {
  Engine engine(two_tables(), 2);
  for (int i = 0; i < 5; ++i) {
    InsertRequest request;
    request.items.push_back({bytes_of("data" + std::to_string(i)), {{"p", 1.0 + i}, {"q", 1.0}}});
    request.seq = static_cast<std::uint64_t>(i) + 1;  // remembered: insert records too
    Answer<InsertReply> inserted;
    engine.insert(caller("actor", 0, 0, 42), std::move(request), t0(), inserted.done());
    keys.push_back(inserted.reply->keys[0]);
  }
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"p", 3, 1, 0}, t0(), sampled.done());
  Answer<SampleReply> popped;
  engine.sample(caller(), {"q", 2, 1, 0}, t0(), popped.done());
  engine.mutate(caller(), {"p", {{keys[4], 0.25}}, {}}, t0());
  return encode_checkpoint(engine.snapshot());
}
}  // namespace

TEST_CASE("a checkpoint round trip restores tables - items - priorities - times sampled and counters") {
  Engine original(two_tables(), 2);
  std::vector<Key> keys;
  const Bytes bytes = checkpoint_of_busy_engine(keys);

  Engine restored(two_tables(), 2);
  Snapshot snapshot = parse_checkpoint(bytes, restored.store());
  CHECK(snapshot.shard == 2);
  CHECK(snapshot.blobs.size() == 5);
  CHECK(snapshot.item_count() == 5 + 3);
  const auto notes = restored.restore(std::move(snapshot));
  CHECK(notes.empty());
  CHECK(restored.store().blobs() == 5);  // shared data stored once

  const auto info = restored.info(caller(), t0());
  CHECK(info.tables[0].size == 5);
  CHECK(info.tables[0].counters.inserts == 5);
  CHECK(info.tables[0].counters.samples == 3);
  CHECK(info.tables[1].size == 3);
  CHECK(info.tables[1].counters.samples == 2);
  CHECK(info.tables[1].counters.deletes == 2);

  // The queue continues in order; the priorities and times sampled came back.
  Answer<SampleReply> popped;
  restored.sample(caller(), {"q", 1, 1, 0}, t0(), popped.done());
  CHECK(popped.reply->items.at(0).key == keys[2]);
  CHECK(text_of(popped.reply->items[0].data->bytes()) == "data2");
  const Snapshot again = restored.snapshot();
  const auto& p = again.tables[0].items;
  REQUIRE(p.size() == 5);
  CHECK(p[4].priority == 0.25);
  std::uint32_t times = 0;
  for (const auto& item : p) times += item.times;
  CHECK(times == 3);
  // New keys continue after the restored ones.
  Answer<InsertReply> inserted;
  restored.insert(caller(), one_item("new", "p"), t0(), inserted.done());
  CHECK(inserted.reply->keys[0] > keys.back());
  CHECK(shard_of(inserted.reply->keys[0]) == 2);
}

TEST_CASE("a table no longer configured is skipped and named") {
  std::vector<Key> keys;
  const Bytes bytes = checkpoint_of_busy_engine(keys);
  Engine only_p({{two_tables().tables[0]}, {}}, 2);
  const auto notes = only_p.restore(parse_checkpoint(bytes, only_p.store()));
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("'q'"));
  CHECK(only_p.item_count() == 5);
}

TEST_CASE("a truncated checkpoint is refused at every length") {
  std::vector<Key> keys;
  const Bytes bytes = checkpoint_of_busy_engine(keys);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    ItemStore store;
    REQUIRE_THROWS_AS(parse_checkpoint(std::span(bytes.data(), length), store), CheckpointError);
    REQUIRE(store.blobs() == 0);  // nothing kept
  }
}

TEST_CASE("a flipped byte anywhere is detected") {
  std::vector<Key> keys;
  const Bytes bytes = checkpoint_of_busy_engine(keys);
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    Bytes corrupted = bytes;
    corrupted[at] ^= std::byte{0x10};
    ItemStore store;
    REQUIRE_THROWS_AS(parse_checkpoint(corrupted, store), CheckpointError);
  }
}

TEST_CASE("bytes after the end record and oversized records are refused") {
  std::vector<Key> keys;
  Bytes bytes = checkpoint_of_busy_engine(keys);
  ItemStore store;
  Bytes longer = bytes;
  longer.push_back(std::byte{0});
  CHECK_THROWS_AS(parse_checkpoint(longer, store), CheckpointError);
  CheckpointLimits tight;
  tight.max_blob_bytes = 2;  // the blobs have 5 bytes
  CHECK_THROWS_WITH(parse_checkpoint(bytes, store, tight), Catch::Contains("at most"));
}

TEST_CASE("crc32 matches the standard check value") {
  const std::string text = "123456789";
  CHECK(crc32(std::as_bytes(std::span(text.data(), text.size()))) == 0xCBF43926U);
}

TEST_CASE("an insert acknowledged before a checkpoint and re-sent after the restore is not stored twice") {
  Engine original({{table("t")}, {}}, 1);
  auto request = one_item("x", "t");
  request.seq = 7;
  Answer<InsertReply> first;
  original.insert(caller("actor", 0, 0, 42), request, t0(), first.done());
  auto later = one_item("y", "t");
  later.seq = 8;
  Answer<InsertReply> second;
  original.insert(caller("actor", 0, 0, 42), later, t0(), second.done());
  const Bytes bytes = encode_checkpoint(original.snapshot());

  Engine restored({{table("t")}, {}}, 1);
  Snapshot snapshot = parse_checkpoint(bytes, restored.store());
  REQUIRE(snapshot.inserts.size() == 2);
  CHECK(snapshot.inserts[0] == SnapshotInsert{42, 7, first.reply->keys});
  restored.restore(std::move(snapshot));
  REQUIRE(restored.item_count() == 2);
  // The client never heard its acknowledgement and sends seq 7 again.
  Answer<InsertReply> again;
  restored.insert(caller("actor", 0, 0, 42), request, t0(), again.done());
  CHECK(again.reply->keys == first.reply->keys);
  CHECK(restored.item_count() == 2);
  // A new seq of the same client is a new insert.
  auto next = one_item("z", "t");
  next.seq = 9;
  Answer<InsertReply> third;
  restored.insert(caller("actor", 0, 0, 42), next, t0(), third.done());
  CHECK(restored.item_count() == 3);
}

TEST_CASE("an insert record whose key count passes its bytes is refused") {
  Snapshot snapshot;
  snapshot.tables.push_back({"t", {}, {}});
  snapshot.inserts.push_back({1, 1, {5, 6}});
  Bytes bytes = encode_checkpoint(snapshot);
  {
    ItemStore store;
    CHECK(parse_checkpoint(bytes, store).inserts.size() == 1);
  }
  // The insert record's key count claims more keys than it carries: find
  // the record (type 6) and raise its count, then fix its CRC.
  const std::size_t header = 12;
  std::size_t at = header;
  while (at < bytes.size() && static_cast<std::uint8_t>(bytes[at]) != 6) {
    std::uint64_t length = 0;
    std::memcpy(&length, bytes.data() + at + 1, 8);
    at += 9 + length + 4;
  }
  REQUIRE(at < bytes.size());
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data() + at + 1, 8);
  const std::size_t key_count = at + 9 + 4 + 16;  // after count, client, seq
  bytes[key_count] = std::byte{200};
  const std::uint32_t crc = crc32(std::span(bytes).subspan(at, 9 + length));
  std::memcpy(bytes.data() + at + 9 + length, &crc, 4);
  ItemStore store;
  CHECK_THROWS_WITH(parse_checkpoint(bytes, store), Catch::Contains("inconsistent size"));
}
