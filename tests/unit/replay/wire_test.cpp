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

TEST_CASE("an acknowledged batch's buffer is reused for the next batch, which encodes the same") {
  wire::InsertEncoder encoder(caller("actor", 3, 2, 99), "experience", 500);
  const Bytes a = bytes_of(std::string(4096, 'a')), b = bytes_of(std::string(5000, 'b'));
  encoder.add(a, 0.5);
  encoder.add(b, 2.0);
  Bytes first = encoder.finish(17);
  const std::byte* storage = first.data();
  encoder.reuse(std::move(first));  // its insert was acknowledged
  encoder.add(b, 2.0);
  encoder.add(a, 0.5);
  const Bytes second = encoder.finish(18);
  CHECK(second.data() == storage);  // no fresh memory for the batch
  CHECK(second == wire::encode_insert(caller("actor", 3, 2, 99), 18, 500,
                                      {{b, {{"experience", 2.0}}}, {a, {{"experience", 0.5}}}}));
}

TEST_CASE("the caller block has the documented layout") {
  const Bytes body = wire::encode_caller_only(caller("ab", 1, 2, 3));
  const std::vector<unsigned> expected{2, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 'a', 'b'};
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

  LeaseToken token{};
  token[0] = std::byte{7};
  token[15] = std::byte{9};
  const Bytes leases_body = wire::encode_leases(caller(), {"jobs", {{1, token}, {2, {}}}});
  ByteReader k(leases_body);
  wire::get_caller(k);
  const auto leases = wire::decode_leases(k);
  REQUIRE(leases.leases.size() == 2);
  CHECK(leases.leases[0].key == 1);
  CHECK(same_token(leases.leases[0].token, token));
  CHECK(leases.leases[1].key == 2);
  CHECK_FALSE(same_token(leases.leases[1].token, token));
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
  other_version[0] = std::byte{1};  // before lease tokens
  ByteReader v(other_version);
  CHECK_THROWS_WITH(wire::get_caller(v), Catch::Contains("version"));

  // A count far beyond the bytes present is refused before reserving.
  Bytes huge = wire::encode_caller_only(caller());
  ByteWriter w(huge);
  w.str("t");
  w.u32(1000000);  // lease_count
  ByteReader h(huge);
  wire::get_caller(h);
  CHECK_THROWS_WITH(wire::decode_leases(h), Catch::Contains("cannot fit"));
}

TEST_CASE("a lease reply carries each lease's token - key - times leased - token - data") {
  auto jobs = table("jobs", TableKind::work);
  Engine engine({{jobs}, {}}, 0);
  Answer<InsertReply> inserted;
  engine.insert(caller(), one_item("job", "jobs"), t0(), inserted.done());
  Answer<LeaseReply> leased;
  engine.lease(caller(), {"jobs", 1, 0}, t0(), leased.done());
  REQUIRE(leased.reply->items.size() == 1);
  const Bytes body = wire::encode_reply(*leased.reply);
  // status, k, key, times_leased, then the 16 bytes of the token.
  REQUIRE(body.size() == 1 + 4 + 8 + 4 + 16 + 4 + 3);
  for (std::size_t i = 0; i < 16; ++i) CHECK(body[17 + i] == leased.reply->items[0].token[i]);
  const auto decoded = wire::decode_lease_reply(body);
  REQUIRE(decoded.items.size() == 1);
  CHECK(decoded.items[0].key == inserted.reply->keys[0]);
  CHECK(decoded.items[0].times_leased == 1);
  CHECK(same_token(decoded.items[0].token, leased.reply->items[0].token));
  CHECK(text_of(decoded.items[0].data) == "job");
}
