// The shard over a real courier endpoint, in-process (TCP on the loopback):
// a queue of 40 KiB items from one producer (a Writer, several inserts in
// flight) to one consumer on another thread keeps every item intact and in
// order, now that the shard keeps each insert's request instead of copying
// its items out (issue 30); and the courier call that hands a request over
// (Responder::take_request) keeps its bytes where they arrived; a sample's
// reply goes out gathered (sample_reply.hpp), its large items not copied.
#include <catch2/catch.hpp>

#include <cstring>
#include <future>
#include <thread>

#include "sample_reply.hpp"
#include "server.hpp"
#include "slipway/channels/directory.hpp"
#include "slipway/replay/client.hpp"
#include "slipway/replay/wire.hpp"

using namespace slipway;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kItemBytes = 40 * 1024;

// Item `i`: kItemBytes bytes that differ from every other item's anywhere.
channels::Bytes item(std::uint64_t i) {
  channels::Bytes out(kItemBytes);
  std::uint64_t x = i * 0x9E3779B97F4A7C15ULL + 1;
  for (std::size_t at = 0; at < out.size(); at += sizeof x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(out.data() + at, &x, std::min(sizeof x, out.size() - at));
  }
  return out;
}

// `size` bytes that differ from item `i`'s of any other size or number.
channels::Bytes item_bytes_of(std::size_t i, std::size_t size) {
  channels::Bytes out(size);
  for (std::size_t at = 0; at < size; ++at) out[at] = static_cast<std::byte>((at * 31 + i * 7 + size) & 0xff);
  return out;
}

channels::EndpointOptions over_tcp(const std::string& name) {
  channels::EndpointOptions options;
  options.tls = "tcp";
  options.name = name;
  return options;
}

}  // namespace

TEST_CASE("a queue of 40 KiB items keeps every item intact and in order", "[replay][queue]") {
  const replay::ServerConfig config =
      replay::parse_config(R"({"tables":[{"name":"q","kind":"queue","max_size":64}]})");
  replay::Server server(config, replay::ServerIdentity{"replay", 0, 0, {}}, [](const std::string&) {});
  auto directory = std::make_shared<channels::LocalDirectory>();
  channels::Endpoint service(over_tcp("replay.0"), directory);
  server.serve(service);
  service.publish("replay", 0);
  std::thread timer([&] { server.run(); });

  constexpr std::uint64_t kItems = 1024;  // 40 MiB, 64 consumer batches of 16
  auto consumed = std::async(std::launch::async, [&] {
    channels::Endpoint endpoint(over_tcp("consumer.0"), directory);
    replay::Client client(endpoint, "replay");
    replay::Sampler sampler = client.sampler("q", 16, 1);
    std::uint64_t next = 0;
    std::string problem;
    while (next < kItems && problem.empty()) {
      for (const auto& got : sampler.next(30s)) {
        if (got.data != item(next)) problem = "item " + std::to_string(next) + " is not the one inserted";
        ++next;
      }
    }
    return problem.empty() ? next : 0;
  });
  {
    channels::Endpoint endpoint(over_tcp("producer.0"), directory);
    replay::Client client(endpoint, "replay");
    replay::Writer writer = client.writer("q", 4, 8);  // 4 inserts of 8 items in flight
    for (std::uint64_t i = 0; i < kItems; ++i) writer.append(item(i));
    CHECK(writer.flush(30s).size() == kItems);
  }
  REQUIRE(consumed.wait_for(60s) == std::future_status::ready);
  CHECK(consumed.get() == kItems);
  server.stop();
  timer.join();
  service.close();
}

TEST_CASE("a handler that takes its request keeps the bytes it was given, past its call", "[replay][courier]") {
  auto directory = std::make_shared<channels::LocalDirectory>();
  channels::Endpoint service(over_tcp("svc.0"), directory);
  std::promise<std::pair<channels::Bytes, channels::Responder>> kept;
  bool same_bytes = false, taken_once = false;
  service.register_async_method("keep", [&](channels::ByteView request, channels::Responder r) {
    channels::Bytes taken = r.take_request();
    same_bytes = taken.data() == request.data() && taken.size() == request.size();
    taken_once = r.take_request().empty();
    kept.set_value({std::move(taken), std::move(r)});
  });
  service.publish("svc", 0);
  channels::Endpoint caller(over_tcp("caller.0"), directory);
  const channels::Bytes sent = item(7);  // above 16 KiB: read straight into the request's buffer
  auto reply = caller.resolve("svc", 0).call_async("keep", sent, 10s);
  auto [bytes, responder] = kept.get_future().get();
  CHECK(same_bytes);
  CHECK(taken_once);
  CHECK(bytes == sent);
  responder.reply(std::move(bytes));  // answered later, from this thread
  CHECK(reply.get() == sent);
  service.close();
}

TEST_CASE("a sample's reply is gathered: its large items are sent from the store, not copied",
          "[replay][queue]") {
  replay::ItemStore store;
  replay::SampleReply reply;
  const std::vector<std::size_t> sizes = {40 * 1024, 100, 0, replay::kGatherBytes,
                                          replay::kGatherBytes - 1, 1 << 20};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    replay::Sampled item;
    item.key = 1000 + i;
    item.priority = 0.5 * static_cast<double>(i);
    item.probability = 1.0 / static_cast<double>(i + 1);
    item.table_size = 7 * i;
    item.times_sampled = static_cast<std::uint32_t>(i + 1);
    channels::Bytes data = item_bytes_of(i, sizes[i]);
    item.data = store.add(std::move(data));
    reply.items.push_back(std::move(item));
  }
  const channels::Gathered gathered = replay::gather_reply(reply);
  // The bytes of docs/replay.md's sample reply, exactly.
  CHECK(gathered.flatten() == replay::wire::encode_reply(reply));
  // Items of kGatherBytes and more are pieces of their own, where the
  // store keeps them; smaller ones are copied.
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto bytes = reply.items[i].data->bytes();
    bool referred = false;
    for (std::size_t p = 0; p < gathered.piece_count(); ++p) {
      referred = referred || (!bytes.empty() && gathered.piece(p).data() == bytes.data());
    }
    INFO("item of " << sizes[i] << " bytes");
    CHECK(referred == (sizes[i] >= replay::kGatherBytes));
  }
  // A refusal is the encoded outcome.
  replay::SampleReply refused;
  refused.status = replay::Status::invalid;
  refused.message = "no table 'x'";
  CHECK(replay::gather_reply(refused).flatten() == replay::wire::encode_reply(refused));
}
