// Inserts that keep the courier's request (issue 30: the shard's copies):
// the wire codec leaves each item's data in the request; the engine shares
// the request's buffer among the items (no copy) when every table they go
// to lets items go in the order they came, and copies them out otherwise
// (a surviving item must not hold a whole request); the store counts a
// shared request until its last item goes.
#include <catch2/catch.hpp>

#include <cstring>

#include "engine_fixture.hpp"
#include "slipway/replay/wire.hpp"

using namespace replay_test;
namespace wire = slipway::replay::wire;

namespace {

// An insert request of `n` items "item0", "item1", ... into `tables`, as
// the server decodes it (the body kept); `body_at` is where its bytes are.
InsertRequest kept_request(int n, const std::vector<std::string>& tables, const std::byte** body_at) {
  std::vector<std::pair<wire::View, std::vector<std::pair<std::string, double>>>> items;
  std::vector<Bytes> data;
  for (int i = 0; i < n; ++i) data.push_back(bytes_of("item" + std::to_string(i)));
  std::vector<std::pair<std::string, double>> priorities;
  for (const auto& t : tables) priorities.emplace_back(t, 1.0);
  for (const auto& d : data) items.emplace_back(d, priorities);
  Bytes body = wire::encode_insert(caller(), 1, 0, items);
  *body_at = body.data();
  ByteReader r(body);
  wire::get_caller(r);
  return wire::decode_insert(r, std::move(body));
}

bool within(std::span<const std::byte> part, const std::byte* at, std::size_t size) {
  return part.data() >= at && part.data() + part.size() <= at + size;
}

}  // namespace

TEST_CASE("decode_insert with the body kept leaves each item's data in it") {
  const std::byte* at = nullptr;
  const InsertRequest request = kept_request(3, {"t"}, &at);
  REQUIRE(request.buffer);
  CHECK(request.buffer->data() == at);  // the same bytes, not a copy
  REQUIRE(request.items.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(text_of(request.items[i].data) == "item" + std::to_string(i));
    CHECK(within(request.items[i].data.view(), at, request.buffer->size()));
  }
  // A copy of the request shares the buffer: its parts stay valid.
  const InsertRequest copy = request;
  CHECK(copy.buffer == request.buffer);
  CHECK(text_of(copy.items[2].data) == "item2");
}

TEST_CASE("decode_insert refuses to keep a body its reader does not read") {
  const Bytes body = wire::encode_insert(caller(), 1, 0, {{bytes_of("x"), {{"t", 1.0}}}});
  Bytes other = body;
  ByteReader r(body);
  wire::get_caller(r);
  CHECK_THROWS_AS(wire::decode_insert(r, std::move(other)), std::invalid_argument);
}

TEST_CASE("items of a kept request into FIFO tables share its buffer until the last goes") {
  TableConfig fifo = table("f");
  fifo.max_size = 4;  // the oldest go first
  TableConfig queue = table("q", TableKind::queue);
  Engine engine({{fifo, queue}, {}}, 0);
  const std::byte* at = nullptr;
  InsertRequest request = kept_request(3, {"f", "q"}, &at);
  const std::size_t size = request.buffer->size();
  Answer<InsertReply> inserted;
  engine.insert(caller(), std::move(request), t0(), inserted.done());
  REQUIRE(inserted.reply->status == Status::ok);
  CHECK(engine.store().blobs() == 3);
  CHECK(engine.store().bytes() == 15);

  // Sampled from the queue: the data is where the request was (no copy).
  Answer<SampleReply> first;
  engine.sample(caller(), {"q", 1, 1, 0}, t0(), first.done());
  REQUIRE(first.reply->status == Status::ok);
  CHECK(text_of(first.reply->items[0].data->bytes()) == "item0");
  CHECK(within(first.reply->items[0].data->bytes(), at, size));
  first.reply.reset();

  // Items going one by one keep the request (and its count) until the last.
  CHECK(engine.mutate(caller(), {"f", {}, {inserted.reply->keys[0], inserted.reply->keys[1]}}, t0()).deleted == 2);
  CHECK(engine.store().blobs() == 3);
  for (int i = 0; i < 4; ++i) engine.insert(caller(), one_item("new" + std::to_string(i), "f"), t0(), Answer<InsertReply>().done());
  Answer<SampleReply> rest;
  engine.sample(caller(), {"q", 2, 2, 0}, t0(), rest.done());
  REQUIRE(rest.reply->status == Status::ok);
  CHECK(text_of(rest.reply->items[1].data->bytes()) == "item2");
  rest.reply.reset();
  // "f" evicted item2 for the fourth new item, the queue gave it out: gone.
  CHECK(engine.store().blobs() == 4);
  CHECK(engine.store().bytes() == 16);
}

TEST_CASE("items of a kept request into a table that removes at random are copied out") {
  TableConfig uniform = table("u");
  uniform.remover = {SelectorKind::uniform, 1.0};
  Engine engine({{uniform, table("f")}, {}}, 0);
  const std::byte* at = nullptr;
  InsertRequest request = kept_request(2, {"u", "f"}, &at);
  const auto buffer = request.buffer;  // alive here, so its memory is not reused
  Answer<InsertReply> inserted;
  engine.insert(caller(), std::move(request), t0(), inserted.done());
  REQUIRE(inserted.reply->status == Status::ok);
  CHECK(buffer.use_count() == 1);  // the engine kept nothing of it
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"f", 2, 2, 0}, t0(), sampled.done());
  REQUIRE(sampled.reply->status == Status::ok);
  for (const auto& item : sampled.reply->items) CHECK_FALSE(within(item.data->bytes(), at, buffer->size()));
  CHECK(engine.store().blobs() == 2);
  CHECK(engine.store().bytes() == 10);
}

TEST_CASE("a kept request parked on a full queue goes in later, its data intact") {
  Engine engine({{queue_of_one("q")}, {}}, 0);
  Answer<InsertReply> first;
  engine.insert(caller(), one_item("a", "q"), t0(), first.done());
  const std::byte* at = nullptr;
  InsertRequest request = kept_request(1, {"q"}, &at);
  request.wait_ms = 1000;
  Answer<InsertReply> parked;
  engine.insert(caller(), std::move(request), t0(), parked.done());
  CHECK_FALSE(parked.reply);
  Answer<SampleReply> a;
  engine.sample(caller(), {"q", 1, 1, 0}, t0(), a.done());
  REQUIRE(parked.reply);
  CHECK(parked.reply->status == Status::ok);
  Answer<SampleReply> b;
  engine.sample(caller(), {"q", 1, 1, 0}, t0(), b.done());
  REQUIRE(b.reply->status == Status::ok);
  CHECK(text_of(b.reply->items[0].data->bytes()) == "item0");
}

TEST_CASE("ItemBytes: its own bytes move without a copy; a part is the same part in a copy") {
  ItemBytes own(bytes_of("abc"));
  const std::byte* where = own.view().data();
  ItemBytes moved(std::move(own));
  CHECK(moved.view().data() == where);
  CHECK(text_of(moved) == "abc");
  ItemBytes copy(moved);
  CHECK(copy.view().data() != where);
  CHECK(text_of(copy) == "abc");
  const Bytes outside = bytes_of("xyz");
  ItemBytes part = ItemBytes::part_of(outside);
  ItemBytes same(part);
  CHECK(same.view().data() == outside.data());
  const Bytes taken = part.take();
  CHECK(text_of(taken) == "xyz");
  CHECK(taken.data() != outside.data());
  CHECK(moved.take().data() == where);
}
