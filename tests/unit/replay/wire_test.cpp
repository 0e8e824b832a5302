// The wire codec: requests and replies survive a round trip; bodies cut
// short, with bytes left over, of another version or with counts larger
// than their bytes are refused before anything is allocated.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"
#include "slipway/replay/wire.hpp"

using namespace replay_test;
namespace wire = slipway::replay::wire;

TEST_CASE("an insert request round-trips - caller block first") {
  const Bytes a = bytes_of("alpha");
  const Bytes body = wire::encode_insert(caller("actor", 3, 2, 99), 17, 500,
                                         {{a, {{"experience", 0.5}, {"tasks", 2.0}}}});
  ByteReader r(body);
  const Caller who = wire::get_caller(r);
  CHECK(who.node == "actor");
  CHECK(who.replica == 3);
  CHECK(who.attempt == 2);
  CHECK(who.client_id == 99);
  const InsertRequest request = wire::decode_insert(r);
  CHECK(request.seq == 17);
  CHECK(request.wait_ms == 500);
  REQUIRE(request.items.size() == 1);
  CHECK(text_of(request.items[0].data) == "alpha");
  CHECK(request.items[0].priorities == std::vector<std::pair<std::string, double>>{{"experience", 0.5}, {"tasks", 2.0}});
}

TEST_CASE("an insert built item by item is the same request as encode_insert, batch after batch") {
  wire::InsertEncoder encoder(caller("actor", 3, 2, 99), "experience", 500);
  for (std::uint64_t seq : {17u, 18u}) {
    const Bytes a = bytes_of("alpha" + std::to_string(seq)), b = bytes_of(std::string(300, 'b'));
    encoder.add(a, 0.5);
    encoder.add(b, 2.0);
    CHECK(encoder.items() == 2);
    const Bytes built = encoder.finish(seq);
    CHECK(encoder.items() == 0);
    CHECK(built == wire::encode_insert(caller("actor", 3, 2, 99), seq, 500,
                                       {{a, {{"experience", 0.5}}}, {b, {{"experience", 2.0}}}}));
  }
}

TEST_CASE("the caller block has the documented layout") {
  const Bytes body = wire::encode_caller_only(caller("ab", 1, 2, 3));
  const std::vector<unsigned> expected{1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 'a', 'b'};
  REQUIRE(body.size() == expected.size());
  for (std::size_t i = 0; i < body.size(); ++i) CHECK(std::to_integer<unsigned>(body[i]) == expected[i]);
}

TEST_CASE("sample - mutate - keys and info replies round-trip") {
  Engine engine({{table("t")}, {}}, 1);
  Answer<InsertReply> inserted;
  engine.insert(caller(), one_item("payload", "t", 4.0), t0(), inserted.done());
  const Bytes insert_reply = wire::encode_reply(*inserted.reply);
  CHECK(wire::decode_insert_reply(insert_reply).keys == inserted.reply->keys);

  Answer<SampleReply> sampled;
  engine.sample(caller(), {"t", 1, 1, 0}, t0(), sampled.done());
  const auto decoded = wire::decode_sample_reply(wire::encode_reply(*sampled.reply));
  REQUIRE(decoded.items.size() == 1);
  CHECK(decoded.items[0].key == inserted.reply->keys[0]);
  CHECK(decoded.items[0].priority == 4.0);
  CHECK(decoded.items[0].probability == 1.0);
  CHECK(decoded.items[0].table_size == 1);
  CHECK(decoded.items[0].times_sampled == 1);
  CHECK(text_of(decoded.items[0].data) == "payload");

  const auto info = wire::decode_info_reply(wire::encode_reply(engine.info(caller(), t0())));
  CHECK(info.shard == 1);
  REQUIRE(info.tables.size() == 1);
  CHECK(info.tables[0].name == "t");
  CHECK(info.tables[0].size == 1);
  CHECK(info.tables[0].counters.samples == 1);
  CHECK(info.tables[0].limiter.min_size_to_sample == 1);

  const MutateRequest mutate{"t", {{5, 1.5}}, {6, 7}};
  const Bytes mutate_body = wire::encode_mutate(caller(), mutate);
  ByteReader r(mutate_body);
  wire::get_caller(r);
  const auto back = wire::decode_mutate(r);
  CHECK(back.updates == mutate.updates);
  CHECK(back.deletes == mutate.deletes);

  const Bytes keys_body = wire::encode_keys(caller(), {"jobs", {1, 2, 3}});
  ByteReader k(keys_body);
  wire::get_caller(k);
  CHECK(wire::decode_keys(k).keys == std::vector<Key>{1, 2, 3});
}

TEST_CASE("not_ready and refusals decode with their status and message") {
  Outcome refused;
  refused.status = Status::invalid;
  refused.message = "no table 'x'";
  const auto back = wire::decode_sample_reply(wire::encode_outcome(refused));
  CHECK(back.status == Status::invalid);
  CHECK(back.message == "no table 'x'");
  Outcome later;
  later.status = Status::not_ready;
  const Bytes body = wire::encode_outcome(later);
  CHECK(body.size() == 1);
  CHECK(wire::decode_insert_reply(body).status == Status::not_ready);
}

TEST_CASE("malformed bodies are refused") {
  const Bytes good = wire::encode_sample(caller(), {"t", 1, 1, 0});
  for (std::size_t length = 0; length < good.size(); ++length) {
    ByteReader r(std::span(good.data(), length));
    REQUIRE_THROWS_AS((wire::get_caller(r), wire::decode_sample(r)), ByteError);
  }
  Bytes longer = good;
  longer.push_back(std::byte{0});
  ByteReader extra(longer);
  wire::get_caller(extra);
  CHECK_THROWS_AS(wire::decode_sample(extra), ByteError);

  Bytes other_version = good;
  other_version[0] = std::byte{2};
  ByteReader v(other_version);
  CHECK_THROWS_WITH(wire::get_caller(v), Catch::Contains("version"));

  // A count far beyond the bytes present is refused before reserving.
  Bytes huge = wire::encode_caller_only(caller());
  ByteWriter w(huge);
  w.str("t");
  w.u32(1000000);  // key_count
  ByteReader h(huge);
  wire::get_caller(h);
  CHECK_THROWS_WITH(wire::decode_keys(h), Catch::Contains("cannot fit"));
}
