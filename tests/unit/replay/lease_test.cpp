// Work tables: leases handed out FIFO, ack and nack, expiry on the
// injected clock, and a higher attempt of the holder's (node, replica)
// freeing its predecessor's leases.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace replay_test;

namespace {
TableConfig work(std::chrono::milliseconds lease = 1000ms) {
  auto config = table("jobs", TableKind::work);
  config.lease = lease;
  return config;
}

std::vector<Key> fill(Engine& engine, int n) {
  std::vector<Key> keys;
  for (int i = 0; i < n; ++i) {
    Answer<InsertReply> inserted;
    engine.insert(caller("master"), one_item("job" + std::to_string(i), "jobs"), t0(), inserted.done());
    keys.push_back(inserted.reply->keys.at(0));
  }
  return keys;
}

LeaseReply lease(Engine& engine, const Caller& who, std::uint32_t n, Time now, std::uint32_t wait_ms = 0) {
  Answer<LeaseReply> answer;
  engine.lease(who, {"jobs", n, wait_ms}, now, answer.done());
  REQUIRE(answer.reply);
  return *answer.reply;
}
}  // namespace

TEST_CASE("leases go out in FIFO order - ack removes - nack returns to the front") {
  Engine engine({{work()}, {}}, 0);
  const auto keys = fill(engine, 3);
  const auto worker = caller("worker", 1, 0);
  auto got = lease(engine, worker, 2, t0());
  REQUIRE(got.items.size() == 2);
  CHECK(got.items[0].key == keys[0]);
  CHECK(got.items[1].key == keys[1]);
  CHECK(got.items[0].times_leased == 1);
  CHECK(engine.info(worker, t0()).tables[0].leased == 2);

  CHECK(engine.ack(worker, "jobs", {keys[0]}, t0()).count == 1);
  CHECK(engine.nack(caller("other", 0, 0), "jobs", {keys[1]}, t0()).count == 0);  // not its lease
  CHECK(engine.nack(worker, "jobs", {keys[1]}, t0()).count == 1);
  got = lease(engine, worker, 5, t0());
  REQUIRE(got.items.size() == 2);
  CHECK(got.items[0].key == keys[1]);  // back at the front
  CHECK(got.items[0].times_leased == 2);
  CHECK(engine.item_count() == 2);
}

TEST_CASE("a lease returns to the queue when it expires") {
  Engine engine({{work(1000ms)}, {}}, 0);
  const auto keys = fill(engine, 1);
  const auto worker = caller("worker", 0, 0);
  CHECK(lease(engine, worker, 1, t0()).items.size() == 1);
  CHECK(lease(engine, caller("worker", 1, 0), 1, t0()).status == Status::not_ready);
  CHECK(engine.next_deadline() == t0() + 1000ms);
  engine.tick(t0() + 999ms);
  CHECK(lease(engine, caller("worker", 1, 0), 1, t0() + 999ms).status == Status::not_ready);
  engine.tick(t0() + 1000ms);
  const auto again = lease(engine, caller("worker", 1, 0), 1, t0() + 1000ms);
  REQUIRE(again.items.size() == 1);
  CHECK(again.items[0].key == keys[0]);
}

TEST_CASE("a call from a higher attempt of the same node - replica frees the older attempt's leases") {
  Engine engine({{work(60000ms)}, {}}, 0);
  fill(engine, 2);
  CHECK(lease(engine, caller("worker", 3, 0), 2, t0()).items.size() == 2);
  // A parked lease of another worker waits for work.
  Answer<LeaseReply> waiting;
  engine.lease(caller("worker", 4, 0), {"jobs", 1, 30000}, t0(), waiting.done());
  CHECK_FALSE(waiting.reply);
  // The same replica at a lower or equal attempt frees nothing.
  engine.info(caller("worker", 3, 0), t0());
  CHECK(engine.info(caller("worker", 3, 0), t0()).tables[0].leased == 2);
  // A different replica's higher attempt frees nothing either.
  engine.info(caller("worker", 5, 2), t0());
  CHECK(engine.info(caller("worker", 3, 0), t0()).tables[0].leased == 2);
  // The relaunched worker 3 (attempt 1) calls: both leases go back; the
  // parked lease of worker 4 takes the first.
  const auto relaunched = lease(engine, caller("worker", 3, 1), 5, t0() + 1s);
  REQUIRE(waiting.reply);
  CHECK(waiting.reply->items.size() == 1);
  CHECK(relaunched.items.size() == 1);
  CHECK(relaunched.items[0].times_leased == 2);
}

TEST_CASE("sample on a work table and lease on a plain table are refused") {
  Engine engine({{work(), table("t")}, {}}, 0);
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"jobs", 1, 1, 0}, t0(), sampled.done());
  CHECK(sampled.reply->status == Status::invalid);
  Answer<LeaseReply> leased;
  engine.lease(caller(), {"t", 1, 0}, t0(), leased.done());
  CHECK(leased.reply->status == Status::invalid);
  CHECK(engine.ack(caller(), "t", {1}, t0()).status == Status::invalid);
}

TEST_CASE("a full work table parks inserts until an ack makes room") {
  auto config = work();
  config.max_size = 1;
  Engine engine({{config}, {}}, 0);
  const auto keys = fill(engine, 1);
  Answer<InsertReply> parked;
  engine.insert(caller(), one_item("next", "jobs", 1.0, 5000), t0(), parked.done());
  CHECK_FALSE(parked.reply);
  const auto got = lease(engine, caller("worker"), 1, t0());
  CHECK_FALSE(parked.reply);  // leased items still count
  engine.ack(caller("worker"), "jobs", {got.items[0].key}, t0());
  REQUIRE(parked.reply);
  CHECK(parked.reply->status == Status::ok);
  CHECK(keys.size() == 1);
}
