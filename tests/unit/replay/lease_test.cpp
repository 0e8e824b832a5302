// Work tables: leases handed out FIFO, ack and nack with the lease's token
// (a forged or stale token, or a forged caller identity, frees nothing),
// expiry on the injected clock.
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

LeaseRef ref(const Leased& leased) { return {leased.key, leased.token}; }

LeaseRef forged(Key key) {
  LeaseRef lease{key, {}};
  lease.token.fill(std::byte{0x5a});
  return lease;
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

  CHECK_FALSE(same_token(got.items[0].token, got.items[1].token));

  CHECK(engine.ack(worker, "jobs", {ref(got.items[0])}, t0()).count == 1);
  CHECK(engine.nack(worker, "jobs", {ref(got.items[1])}, t0()).count == 1);
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

TEST_CASE("a forged release is refused: another caller's identity or a wrong token frees no lease") {
  Engine engine({{work(60000ms)}, {}}, 0);
  const auto keys = fill(engine, 2);
  const auto held = lease(engine, caller("worker", 3, 0), 2, t0());
  REQUIRE(held.items.size() == 2);
  const auto leased = [&] { return engine.info(caller(), t0()).tables[0].leased; };
  // Naming the holder with a higher attempt (what a relaunched worker's
  // caller block says, and what anyone can write) frees nothing any more.
  for (const auto& who : {caller("worker", 3, 1), caller("worker", 3, 7), caller("worker", 5, 2)}) {
    Answer<LeaseReply> none;
    engine.lease(who, {"jobs", 5, 0}, t0() + 1s, none.done());
    CHECK(none.reply->status == Status::not_ready);
    CHECK(engine.nack(who, "jobs", {forged(keys[0]), forged(keys[1])}, t0()).count == 0);
    CHECK(engine.ack(who, "jobs", {forged(keys[0])}, t0()).count == 0);
    CHECK(leased() == 2);
  }
  // Nor does the holder's own identity with a wrong token, or a token of
  // the other lease.
  CHECK(engine.nack(caller("worker", 3, 0), "jobs", {forged(keys[0])}, t0()).count == 0);
  CHECK(engine.nack(caller("worker", 3, 0), "jobs", {{keys[0], held.items[1].token}}, t0()).count == 0);
  CHECK(engine.ack(caller("worker", 3, 0), "jobs", {{keys[1], held.items[0].token}}, t0()).count == 0);
  CHECK(leased() == 2);
  CHECK(engine.item_count() == 2);
  // The token alone frees it, whoever brings it (a relaunched worker
  // returning its predecessor's leases from its journal).
  CHECK(engine.nack(caller("worker", 3, 1), "jobs", {ref(held.items[0])}, t0()).count == 1);
  CHECK(leased() == 1);
}

TEST_CASE("an ack with the token of an expired lease still removes the item - a nack does not return it") {
  Engine engine({{work(1000ms)}, {}}, 0);
  fill(engine, 1);
  const auto first = lease(engine, caller("slow", 0, 0), 1, t0());
  engine.tick(t0() + 1000ms);  // expired: back in the queue
  const auto second = lease(engine, caller("fast", 0, 0), 1, t0() + 1000ms);
  REQUIRE(second.items.size() == 1);
  CHECK(second.items[0].times_leased == 2);
  // The first holder's nack no longer touches the second's lease ...
  CHECK(engine.nack(caller("slow", 0, 0), "jobs", {ref(first.items[0])}, t0() + 1001ms).count == 0);
  CHECK(engine.info(caller(), t0()).tables[0].leased == 1);
  // ... but its ack says the work was done: the item goes.
  CHECK(engine.ack(caller("slow", 0, 0), "jobs", {ref(first.items[0])}, t0() + 1002ms).count == 1);
  CHECK(engine.item_count() == 0);
  CHECK(engine.ack(caller("fast", 0, 0), "jobs", {ref(second.items[0])}, t0() + 1003ms).count == 0);
}

TEST_CASE("sample on a work table and lease on a plain table are refused") {
  Engine engine({{work(), table("t")}, {}}, 0);
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"jobs", 1, 1, 0}, t0(), sampled.done());
  CHECK(sampled.reply->status == Status::invalid);
  Answer<LeaseReply> leased;
  engine.lease(caller(), {"t", 1, 0}, t0(), leased.done());
  CHECK(leased.reply->status == Status::invalid);
  CHECK(engine.ack(caller(), "t", {forged(1)}, t0()).status == Status::invalid);
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
  engine.ack(caller("worker"), "jobs", {ref(got.items[0])}, t0());
  REQUIRE(parked.reply);
  CHECK(parked.reply->status == Status::ok);
  CHECK(keys.size() == 1);
}
