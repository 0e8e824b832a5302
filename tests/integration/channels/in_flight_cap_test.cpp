// The cap on what one caller keeps in flight to a shared-memory callee
// (EndpointOptions::max_shared_memory_bytes_in_flight, issue 30): the
// callee's one shared-memory queue serves its senders in arrival order, so
// a caller past the cap waits for its own replies; its held calls go out
// in order as replies make room, one call always goes, and TCP is not
// capped.
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

namespace {

// A callee that parks every call (its first byte numbers it) until told
// to answer, and records what arrived.
struct Parking {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int> arrived;
  std::vector<Responder> parked;

  void on_call(ByteView request, Responder responder) {
    std::lock_guard lock(mutex);
    arrived.push_back(std::to_integer<int>(request[0]));
    parked.push_back(std::move(responder));
    changed.notify_all();
  }
  // Waits until `n` calls arrived (or 5 s passed); how many did.
  std::size_t wait_for(std::size_t n) {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, 5s, [&] { return arrived.size() >= n; });
    return arrived.size();
  }
  // How many arrived after a quiet while (nothing more is coming).
  std::size_t settled() {
    std::this_thread::sleep_for(300ms);
    std::lock_guard lock(mutex);
    return arrived.size();
  }
  void answer_first() {
    std::lock_guard lock(mutex);
    parked.front().reply(Bytes{});
    parked.erase(parked.begin());
  }
};

Bytes numbered(int i, std::size_t size) {
  Bytes out = pattern(size, static_cast<unsigned>(i));
  out[0] = static_cast<std::byte>(i);
  return out;
}

}  // namespace

TEST_CASE("a caller keeps at most its cap of bytes in flight to a shared-memory callee",
          "[channels][shm][cap]") {
  Parking parking;  // outlives the server, whose handler refers to it
  Endpoint server(options_for("posix,cma", "server.0"));
  server.register_async_method("park", [&](ByteView r, Responder p) { parking.on_call(r, std::move(p)); });
  auto client_options = options_for("posix,cma", "client.0");
  client_options.max_shared_memory_bytes_in_flight = 64 * 1024;
  Endpoint client(client_options);
  Handle handle = client.connect(server.address(), "server.0");

  // 20 KiB each: three fit in 64 KiB, the fourth waits for a reply.
  std::vector<std::future<Bytes>> calls;
  for (int i = 0; i < 10; ++i) calls.push_back(handle.call_async("park", numbered(i, 20 * 1024)));
  REQUIRE(parking.wait_for(3) == 3);
  CHECK(parking.settled() == 3);
  parking.answer_first();
  REQUIRE(parking.wait_for(4) == 4);
  CHECK(parking.settled() == 4);
  // The rest, answered one by one, arrive in the order they were made.
  for (std::size_t n = 5; n <= 10; ++n) {
    parking.answer_first();
    REQUIRE(parking.wait_for(n) == n);
  }
  while (true) {
    {
      std::lock_guard lock(parking.mutex);
      if (parking.parked.empty()) break;
    }
    parking.answer_first();
  }
  for (auto& call : calls) CHECK(call.wait_for(5s) == std::future_status::ready);
  std::lock_guard lock(parking.mutex);
  for (int i = 0; i < 10; ++i) CHECK(parking.arrived[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("one call larger than the cap still goes, and TCP is not capped", "[channels][shm][cap]") {
  const std::string tls = GENERATE(std::string("posix,cma"), std::string("tcp"));
  INFO("UCX_TLS=" << tls);
  Parking parking;
  Endpoint server(options_for(tls, "server.0"));
  server.register_async_method("park", [&](ByteView r, Responder p) { parking.on_call(r, std::move(p)); });
  auto client_options = options_for(tls, "client.0");
  client_options.max_shared_memory_bytes_in_flight = 16 * 1024;
  Endpoint client(client_options);
  Handle handle = client.connect(server.address(), "server.0");

  std::vector<std::future<Bytes>> calls;
  for (int i = 0; i < 4; ++i) calls.push_back(handle.call_async("park", numbered(i, 100 * 1024)));
  const std::size_t expected = tls == "tcp" ? 4 : 1;
  REQUIRE(parking.wait_for(expected) == expected);
  CHECK(parking.settled() == expected);
  for (int answered = 0; answered < 4; ++answered) {
    REQUIRE(parking.wait_for(static_cast<std::size_t>(answered) + 1) >= static_cast<std::size_t>(answered) + 1);
    parking.answer_first();
  }
  for (auto& call : calls) CHECK(call.wait_for(5s) == std::future_status::ready);
}
