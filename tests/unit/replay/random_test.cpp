// Robustness on random input: random bytes to every decoder and to the
// checkpoint parser end in a result or the documented exception, and a
// random mix of operations on tables of every selector keeps the engine's
// books straight (each blob counted once, sizes within max_size).
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "engine_fixture.hpp"
#include "slipway/replay/checkpoint.hpp"
#include "slipway/replay/wire.hpp"

using namespace replay_test;
namespace wire = slipway::replay::wire;

TEST_CASE("random bytes never crash the decoders or the checkpoint parser") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 96);
  for (int round = 0; round < 20000; ++round) {
    Bytes body(static_cast<std::size_t>(length(rng)));
    for (auto& b : body) b = static_cast<std::byte>(byte(rng));
    if (!body.empty() && round % 2 == 0) body[0] = std::byte{wire::kVersion};  // past the version check half the time
    try {
      ByteReader r(body);
      wire::get_caller(r);
      switch (round % 6) {
        case 0: wire::decode_insert(r); break;
        case 1: wire::decode_sample(r); break;
        case 2: wire::decode_mutate(r); break;
        case 3: wire::decode_leases(r); break;
        case 4: wire::decode_lease(r); break;
        default: wire::decode_table(r); break;
      }
    } catch (const ByteError&) {
    }
    for (auto decode : {+[](wire::View v) { wire::decode_sample_reply(v); },
                        +[](wire::View v) { wire::decode_info_reply(v); },
                        +[](wire::View v) { wire::decode_insert_reply(v); },
                        +[](wire::View v) { wire::decode_lease_reply(v); }}) {
      try {
        decode(body);
      } catch (const ByteError&) {
      }
    }
    ItemStore store;
    CHECK_THROWS_AS(parse_checkpoint(body, store), CheckpointError);
  }
}

TEST_CASE("a random mix of operations keeps each blob counted once and sizes bounded") {
  std::vector<TableConfig> tables;
  for (auto kind : {SelectorKind::uniform, SelectorKind::fifo, SelectorKind::lifo, SelectorKind::max_heap,
                    SelectorKind::min_heap, SelectorKind::prioritized}) {
    auto config = table(std::string(to_string(kind)));
    config.sampler = {kind, 0.7};
    config.remover = {kind == SelectorKind::uniform ? SelectorKind::fifo : kind, 0.7};
    config.max_size = 20;
    config.max_times_sampled = 3;
    tables.push_back(config);
  }
  Engine engine({tables, {}}, 5, 99);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::size_t> pick(0, tables.size() - 1);
  std::uniform_real_distribution<double> priority(0.0, 5.0);
  std::vector<Key> keys;
  for (int step = 0; step < 5000; ++step) {
    const std::string name = tables[pick(rng)].name;
    switch (step % 4) {
      case 0:
      case 1: {
        InsertRequest request;
        request.items.push_back({bytes_of("d" + std::to_string(step)),
                                 {{name, priority(rng)}, {tables[(pick(rng) + 1) % tables.size()].name, 1.0}}});
        if (request.items[0].priorities[0].first == request.items[0].priorities[1].first) {
          request.items[0].priorities.pop_back();
        }
        Answer<InsertReply> inserted;
        engine.insert(caller(), std::move(request), t0(), inserted.done());
        REQUIRE(inserted.reply->status == Status::ok);
        keys.push_back(inserted.reply->keys[0]);
        break;
      }
      case 2: {
        Answer<SampleReply> sampled;
        engine.sample(caller(), {name, 4, 1, 0}, t0(), sampled.done());
        break;
      }
      default: {
        const Key key = keys.empty() ? 0 : keys[rng() % keys.size()];
        engine.mutate(caller(), {name, {{key, priority(rng)}}, step % 8 == 3 ? std::vector<Key>{key} : std::vector<Key>{}},
                      t0());
      }
    }
    // Each blob once: the store holds exactly the keys some table still has.
    const Snapshot snapshot = engine.snapshot();
    REQUIRE(engine.store().blobs() == snapshot.blobs.size());
    for (const auto& saved : snapshot.tables) REQUIRE(saved.items.size() <= 20);
  }
}
