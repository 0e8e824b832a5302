// The engine: inserts into several tables sharing data, parking and
// deadlines on an injected clock, FIFO wake-ups, max_size eviction,
// max_times_sampled, de-duplication, mutate/reset/info and bounds.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>

#include "engine_fixture.hpp"

using namespace replay_test;

TEST_CASE("an insert into two tables stores the data once - with one key") {
  Engine engine({{table("a"), table("b")}, {}}, 3);
  Answer<InsertReply> inserted;
  InsertRequest request;
  request.items.push_back({bytes_of("hello"), {{"a", 1.0}, {"b", 2.0}}});
  engine.insert(caller(), std::move(request), t0(), inserted.done());
  REQUIRE(inserted.reply);
  REQUIRE(inserted.reply->status == Status::ok);
  REQUIRE(inserted.reply->keys.size() == 1);
  const Key key = inserted.reply->keys[0];
  CHECK(shard_of(key) == 3);
  CHECK(engine.store().blobs() == 1);
  CHECK(engine.store().bytes() == 5);

  Answer<SampleReply> sampled;
  engine.sample(caller(), {"b", 1, 1, 0}, t0(), sampled.done());
  REQUIRE(sampled.reply->status == Status::ok);
  CHECK(sampled.reply->items.at(0).key == key);
  CHECK(sampled.reply->items.at(0).priority == 2.0);
  CHECK(text_of(sampled.reply->items.at(0).data->bytes()) == "hello");
  sampled.reply.reset();

  // Deleting from one table keeps the data for the other; the last frees it.
  CHECK(engine.mutate(caller(), {"a", {}, {key}}, t0()).deleted == 1);
  CHECK(engine.store().blobs() == 1);
  CHECK(engine.mutate(caller(), {"b", {}, {key}}, t0()).deleted == 1);
  CHECK(engine.store().blobs() == 0);
  CHECK(engine.store().bytes() == 0);
}

TEST_CASE("a sample parks until an insert lets it go - or answers not_ready at its deadline") {
  Engine engine({{table("q", TableKind::queue)}, {}}, 0);
  Answer<SampleReply> first;
  Answer<SampleReply> second;
  engine.sample(caller("learner"), {"q", 1, 1, 1000}, t0(), first.done());
  engine.sample(caller("learner"), {"q", 1, 1, 5000}, t0() + 10ms, second.done());
  CHECK_FALSE(first.reply);
  CHECK(engine.parked() == 2);
  CHECK(engine.next_deadline() == t0() + 1000ms);

  engine.tick(t0() + 999ms);
  CHECK_FALSE(first.reply);
  engine.tick(t0() + 1000ms);
  REQUIRE(first.reply);
  CHECK(first.reply->status == Status::not_ready);
  CHECK_FALSE(second.reply);

  Answer<InsertReply> inserted;
  engine.insert(caller(), one_item("x", "q"), t0() + 2s, inserted.done());
  CHECK(inserted.reply->status == Status::ok);
  REQUIRE(second.reply);  // woken by the insert, in order
  CHECK(second.reply->status == Status::ok);
  CHECK(text_of(second.reply->items.at(0).data->bytes()) == "x");
  CHECK(engine.parked() == 0);
  CHECK(engine.item_count() == 0);  // max_times_sampled 1
}

TEST_CASE("wait_ms 0 answers at once - parked samples are served in arrival order") {
  Engine engine({{table("q", TableKind::queue)}, {}}, 0);
  Answer<SampleReply> now;
  engine.sample(caller(), {"q", 1, 1, 0}, t0(), now.done());
  REQUIRE(now.reply);
  CHECK(now.reply->status == Status::not_ready);

  std::vector<std::string> order;
  std::vector<Done<SampleReply>> dones;
  for (int i = 0; i < 3; ++i) {
    engine.sample(caller(), {"q", 1, 1, 60000}, t0(), [&order, i](SampleReply reply) {
      order.push_back(std::to_string(i) + ":" + text_of(reply.items.at(0).data->bytes()));
    });
  }
  for (const char* data : {"a", "b", "c"}) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item(data, "q"), t0(), inserted.done());
  }
  CHECK(order == std::vector<std::string>{"0:a", "1:b", "2:c"});
}

TEST_CASE("a full queue parks inserts until a sample makes room - FIFO among inserts") {
  auto config = table("q", TableKind::queue);
  config.max_size = 2;
  config.rate_limiter = RateLimiterConfig::queue(2);
  Engine engine({{config}, {}}, 0);
  Answer<InsertReply> a, b, c, d;
  engine.insert(caller(), one_item("a", "q"), t0(), a.done());
  engine.insert(caller(), one_item("b", "q"), t0(), b.done());
  engine.insert(caller(), one_item("c", "q", 1.0, 1000), t0(), c.done());
  engine.insert(caller(), one_item("d", "q", 1.0, 0), t0(), d.done());
  CHECK(a.reply->status == Status::ok);
  CHECK(b.reply->status == Status::ok);
  CHECK_FALSE(c.reply);  // parked
  CHECK(d.reply->status == Status::not_ready);  // wait 0, and c is ahead of it

  Answer<SampleReply> sampled;
  engine.sample(caller(), {"q", 1, 1, 0}, t0() + 1ms, sampled.done());
  CHECK(text_of(sampled.reply->items.at(0).data->bytes()) == "a");
  REQUIRE(c.reply);
  CHECK(c.reply->status == Status::ok);
  const auto info = engine.info(caller(), t0());
  CHECK(info.tables.at(0).size == 2);
  CHECK(info.tables.at(0).counters.inserts == 3);
  CHECK(info.tables.at(0).counters.samples == 1);
  CHECK(info.tables.at(0).counters.deletes == 1);
}

TEST_CASE("an insert into two tables waits until both can take it") {
  auto small = table("small", TableKind::queue);
  small.max_size = 1;
  small.rate_limiter = RateLimiterConfig::queue(1);
  Engine engine({{table("big"), small}, {}}, 0);
  Answer<InsertReply> first, second;
  InsertRequest request;
  request.wait_ms = 1000;
  request.items.push_back({bytes_of("1"), {{"big", 1.0}, {"small", 1.0}}});
  engine.insert(caller(), request, t0(), first.done());
  engine.insert(caller(), request, t0(), second.done());
  CHECK(first.reply->status == Status::ok);
  CHECK_FALSE(second.reply);
  CHECK(engine.info(caller(), t0()).tables.at(0).size == 1);  // nothing half-inserted
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"small", 1, 1, 0}, t0(), sampled.done());
  REQUIRE(second.reply);
  CHECK(second.reply->status == Status::ok);
  CHECK(engine.info(caller(), t0()).tables.at(0).size == 2);
}

TEST_CASE("the remover evicts at max_size - max_times_sampled removes sampled items") {
  auto config = table("t");
  config.max_size = 3;
  config.max_times_sampled = 2;
  config.sampler = {SelectorKind::fifo, 1.0};
  Engine engine({{config}, {}}, 0);
  std::vector<Key> keys;
  for (const char* data : {"a", "b", "c", "d"}) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item(data, "t"), t0(), inserted.done());
    keys.push_back(inserted.reply->keys.at(0));
  }
  auto info = engine.info(caller(), t0());
  CHECK(info.tables[0].size == 3);  // "a" evicted (fifo remover)
  CHECK(info.tables[0].counters.deletes == 1);
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"t", 3, 1, 0}, t0(), sampled.done());
  REQUIRE(sampled.reply->items.size() == 3);
  CHECK(sampled.reply->items[0].key == keys[1]);
  CHECK(sampled.reply->items[0].times_sampled == 1);
  CHECK(sampled.reply->items[1].times_sampled == 2);
  CHECK(sampled.reply->items[2].key == keys[2]);  // "b" went after its second sample
  CHECK(sampled.reply->items[2].table_size == 2);
}

TEST_CASE("a sample returns as many as the limiter allows - at least min_n") {
  Engine engine({{table("q", TableKind::queue)}, {}}, 0);
  for (int i = 0; i < 3; ++i) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item("x", "q"), t0(), inserted.done());
  }
  Answer<SampleReply> strict;
  engine.sample(caller(), {"q", 5, 5, 0}, t0(), strict.done());
  CHECK(strict.reply->status == Status::not_ready);
  Answer<SampleReply> flexible;
  engine.sample(caller(), {"q", 5, 1, 0}, t0(), flexible.done());
  CHECK(flexible.reply->items.size() == 3);
}

TEST_CASE("a re-sent insert same client and seq is answered with its keys and not inserted again") {
  Engine engine({{table("t")}, {}}, 0);
  auto request = one_item("x", "t");
  request.seq = 7;
  Answer<InsertReply> first, again, other;
  engine.insert(caller("actor", 0, 0, 42), request, t0(), first.done());
  engine.insert(caller("actor", 0, 0, 42), request, t0(), again.done());
  CHECK(again.reply->keys == first.reply->keys);
  CHECK(engine.item_count() == 1);
  engine.insert(caller("actor", 0, 0, 43), request, t0(), other.done());  // another client
  CHECK(engine.item_count() == 2);
}

TEST_CASE("mutate updates priorities the sampler follows - reset clears items and counters") {
  auto config = table("t");
  config.sampler = {SelectorKind::max_heap, 1.0};
  Engine engine({{config}, {}}, 0);
  std::vector<Key> keys;
  for (double p : {1.0, 2.0, 3.0}) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item("x", "t", p), t0(), inserted.done());
    keys.push_back(inserted.reply->keys[0]);
  }
  const auto reply = engine.mutate(caller(), {"t", {{keys[0], 10.0}, {999, 1.0}}, {keys[2], 12345}}, t0());
  CHECK(reply.updated == 1);
  CHECK(reply.deleted == 1);
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"t", 1, 1, 0}, t0(), sampled.done());
  CHECK(sampled.reply->items[0].key == keys[0]);
  sampled.reply.reset();  // a sample holds its data alive
  CHECK(engine.reset(caller(), "t", t0()).status == Status::ok);
  const auto info = engine.info(caller(), t0());
  CHECK(info.tables[0].size == 0);
  CHECK(info.tables[0].counters.inserts == 0);
  CHECK(engine.store().bytes() == 0);
}

TEST_CASE("bad requests are refused with the table and the limit named - changing nothing") {
  EngineConfig config{{table("t"), table("p")}, {}};
  config.tables[1].sampler = {SelectorKind::prioritized, 1.0};
  config.limits.max_item_bytes = 4;
  config.limits.max_data_bytes = 10;
  Engine engine(config, 0);
  const auto insert = [&](InsertRequest request) {
    Answer<InsertReply> answer;
    engine.insert(caller(), std::move(request), t0(), answer.done());
    return *answer.reply;
  };
  auto reply = insert(one_item("12345", "t"));
  CHECK(reply.status == Status::too_large);
  CHECK_THAT(reply.message, Catch::Contains("max_item_bytes"));
  reply = insert(one_item("x", "nope"));
  CHECK(reply.status == Status::invalid);
  CHECK_THAT(reply.message, Catch::Contains("no table 'nope'"));
  reply = insert(one_item("x", "p", -1.0));
  CHECK(reply.status == Status::invalid);
  CHECK_THAT(reply.message, Catch::Contains("'p'"));
  InsertRequest twice;
  twice.items.push_back({bytes_of("x"), {{"t", 1.0}, {"t", 1.0}}});
  CHECK(insert(twice).status == Status::invalid);
  CHECK(insert(InsertRequest{}).status == Status::invalid);
  for (int i = 0; i < 2; ++i) CHECK(insert(one_item("1234", "t")).status == Status::ok);
  reply = insert(one_item("1234", "t"));  // 12 bytes > 10
  CHECK(reply.status == Status::too_large);
  CHECK_THAT(reply.message, Catch::Contains("max_data_bytes"));
  CHECK(engine.item_count() == 2);

  Answer<SampleReply> sampled;
  engine.sample(caller(), {"t", 0, 1, 0}, t0(), sampled.done());
  CHECK(sampled.reply->status == Status::invalid);
  CHECK(engine.mutate(caller(), {"nope", {}, {}}, t0()).status == Status::invalid);
  CHECK_THROWS_AS(Engine({{table("x"), table("x")}, {}}, 0), std::invalid_argument);
}

TEST_CASE("a queue refuses an insert bigger than its max_size it could never go") {
  auto config = table("q", TableKind::queue);
  config.max_size = 2;
  config.rate_limiter = RateLimiterConfig::queue(2);
  Engine engine({{config}, {}}, 0);
  InsertRequest request;
  for (int i = 0; i < 3; ++i) request.items.push_back({bytes_of("x"), {{"q", 1.0}}});
  Answer<InsertReply> answer;
  engine.insert(caller(), request, t0(), answer.done());
  CHECK(answer.reply->status == Status::invalid);
}

TEST_CASE("drain answers every parked request with not_ready") {
  Engine engine({{table("q", TableKind::queue)}, {}}, 0);
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"q", 1, 1, 60000}, t0(), sampled.done());
  CHECK_FALSE(sampled.reply);
  engine.drain(t0());
  REQUIRE(sampled.reply);
  CHECK(sampled.reply->status == Status::not_ready);
  CHECK(engine.parked() == 0);
}

TEST_CASE("a stack pops the newest item first") {
  Engine engine({{table("s", TableKind::stack)}, {}}, 0);
  for (const char* data : {"a", "b", "c"}) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item(data, "s"), t0(), inserted.done());
  }
  Answer<SampleReply> popped;
  engine.sample(caller(), {"s", 3, 1, 0}, t0(), popped.done());
  REQUIRE(popped.reply->items.size() == 3);
  CHECK(text_of(popped.reply->items[0].data->bytes()) == "c");
  CHECK(text_of(popped.reply->items[2].data->bytes()) == "a");
}

TEST_CASE("a parked insert moves to the table that holds it up now and goes when both can take it") {
  Engine engine({{queue_of_one("a"), queue_of_one("b")}, {}}, 0);
  Answer<InsertReply> fill_a, fill_b, both;
  engine.insert(caller(), one_item("a0", "a"), t0(), fill_a.done());
  InsertRequest request;
  request.wait_ms = 10000;
  request.items.push_back({bytes_of("ab"), {{"a", 1.0}, {"b", 1.0}}});
  engine.insert(caller(), request, t0(), both.done());
  CHECK_FALSE(both.reply);  // held up by a
  engine.insert(caller(), one_item("b0", "b"), t0(), fill_b.done());
  CHECK(fill_b.reply->status == Status::ok);  // b had room: nothing parked on b yet
  Answer<SampleReply> from_a;
  engine.sample(caller(), {"a", 1, 1, 0}, t0(), from_a.done());
  CHECK_FALSE(both.reply);  // a has room now, b does not: it waits on b
  CHECK(engine.info(caller(), t0()).tables[1].parked_inserts == 1);
  Answer<SampleReply> from_b;
  engine.sample(caller(), {"b", 1, 1, 0}, t0(), from_b.done());
  REQUIRE(both.reply);
  CHECK(both.reply->status == Status::ok);
  CHECK(engine.item_count() == 2);
}

TEST_CASE("priorities whose sum would overflow a prioritized table are refused - the largest allowed draw right") {
  auto config = table("p");
  config.sampler = {SelectorKind::prioritized, 1.0};
  Engine engine({{config}, {}}, 0);
  const auto insert = [&](double priority) {
    Answer<InsertReply> answer;
    engine.insert(caller(), one_item("x", "p", priority), t0(), answer.done());
    return *answer.reply;
  };
  // Two items of 1e308 made the sum infinite: every draw then returned one
  // item, with probability 0.
  auto refused = insert(1e308);
  CHECK(refused.status == Status::invalid);
  CHECK_THAT(refused.message, Catch::Contains("'p'") && Catch::Contains("at most 1e290"));
  CHECK(insert(std::numeric_limits<double>::infinity()).status == Status::invalid);
  CHECK(insert(std::nan("")).status == Status::invalid);
  CHECK(insert(-1.0).status == Status::invalid);
  CHECK(engine.item_count() == 0);

  const Key first = insert(1e290).keys.at(0);
  const Key second = insert(1e290).keys.at(0);
  std::map<Key, int> drawn;
  for (int i = 0; i < 200; ++i) {
    Answer<SampleReply> sampled;
    engine.sample(caller(), {"p", 1, 1, 0}, t0() + std::chrono::milliseconds(i), sampled.done());
    REQUIRE(sampled.reply->status == Status::ok);
    CHECK(sampled.reply->items.at(0).probability == Approx(0.5));
    ++drawn[sampled.reply->items.at(0).key];
  }
  CHECK(drawn[first] > 50);
  CHECK(drawn[second] > 50);

  // An update is held to the same bound; the refused one changes nothing.
  const auto updated = engine.mutate(caller(), {"p", {{first, 1e300}}, {}}, t0());
  CHECK(updated.status == Status::invalid);
  CHECK_THAT(updated.message, Catch::Contains("at most 1e290"));
}

TEST_CASE("a request that could never be served is refused up front - not parked ahead of others") {
  auto ratio = table("r");
  ratio.rate_limiter = RateLimiterConfig::sample_to_insert_ratio(1.0, 10, 5.0);  // min_diff 5, max_diff 15
  Engine engine({{table("q", TableKind::queue), ratio}, {}}, 0);
  // A queue of max_size 100 never holds 101 items for one sample.
  Answer<SampleReply> too_many;
  engine.sample(caller("learner"), {"q", 101, 101, 60000}, t0(), too_many.done());
  REQUIRE(too_many.reply);
  CHECK(too_many.reply->status == Status::invalid);
  CHECK_THAT(too_many.reply->message, Catch::Contains("'q'") && Catch::Contains("never give 101") &&
                                          Catch::Contains("at most 100"));
  CHECK(engine.parked() == 0);
  // Nor does a ratio limiter let more than max_diff - min_diff go at once,
  // or more than min_size_to_sample or (max_diff - min(0, min_diff)) / spi in.
  Answer<SampleReply> past_ratio;
  engine.sample(caller("learner"), {"r", 11, 11, 60000}, t0(), past_ratio.done());
  REQUIRE(past_ratio.reply);
  CHECK(past_ratio.reply->status == Status::invalid);
  InsertRequest sixteen;
  sixteen.wait_ms = 60000;
  for (int i = 0; i < 16; ++i) sixteen.items.push_back({bytes_of("x"), {{"r", 1.0}}});
  Answer<InsertReply> inserted;
  engine.insert(caller(), sixteen, t0(), inserted.done());
  REQUIRE(inserted.reply);
  CHECK(inserted.reply->status == Status::invalid);
  CHECK_THAT(inserted.reply->message, Catch::Contains("at most 15 items in at once"));
  CHECK(engine.parked() == 0);
  // What can go one day still parks: 10 of the ratio table's 15 at once.
  Answer<SampleReply> ten;
  engine.sample(caller("learner"), {"r", 10, 10, 60000}, t0(), ten.done());
  CHECK_FALSE(ten.reply);
  CHECK(engine.parked() == 1);
}

TEST_CASE("a parked sample that cannot go yet is overtaken by later ones until overtake_window - then holds them") {
  EngineConfig config{{table("q", TableKind::queue)}, {}};
  config.limits.overtake_window = 1000ms;
  Engine engine(config, 0);
  const auto put = [&](Time now) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item("x", "q"), now, inserted.done());
    REQUIRE(inserted.reply->status == Status::ok);
  };
  Answer<SampleReply> five, one, late;
  engine.sample(caller("batch"), {"q", 5, 5, 60000}, t0(), five.done());
  engine.sample(caller("single"), {"q", 1, 1, 60000}, t0() + 10ms, one.done());
  put(t0() + 20ms);
  // Before: the sample of 5 at the head held the sample of 1 for up to 600 s.
  REQUIRE(one.reply);
  CHECK(one.reply->items.size() == 1);
  CHECK_FALSE(five.reply);

  // Past the window the sample of 5 holds those behind it, so a stream of
  // small samples cannot starve it: it goes first once 5 items are in.
  engine.sample(caller("single"), {"q", 1, 1, 60000}, t0() + 1001ms, late.done());
  for (int i = 0; i < 4; ++i) {
    put(t0() + 1002ms);
    CHECK_FALSE(late.reply);
  }
  put(t0() + 1003ms);
  REQUIRE(five.reply);
  CHECK(five.reply->items.size() == 5);
  CHECK_FALSE(late.reply);
  put(t0() + 1004ms);
  REQUIRE(late.reply);
  CHECK(late.reply->status == Status::ok);
  CHECK(engine.parked() == 0);
}
