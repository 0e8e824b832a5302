// Courier endpoints on one host over UCX's shared memory: colocated peers
// take it by default, and a sender whose shared-memory queue to its peer is
// full (the peer not draining it) neither spins on a core nor stalls once
// the peer drains again.
#include <time.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;

namespace {

double process_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

EndpointOptions default_options(const std::string& name) {
  EndpointOptions options;  // no tls: what a task gets without UCX_TLS
  options.name = name;
  options.default_timeout = std::chrono::seconds(20);
  return options;
}

}  // namespace

TEST_CASE("colocated endpoints talk over shared memory by default", "[channels][shm]") {
  Endpoint server(default_options("server.0"));
  Endpoint client(default_options("client.0"));
  server.register_method("echo", [](ByteView request) { return to_bytes(request); });
  Handle handle = client.connect(server.address(), "server.0");
  // A 32 KiB request arrives with its message over shared memory (eager,
  // transport_plan.hpp); the courier's TCP would read it deferred (counted
  // as a rendezvous receive).
  const Bytes request = pattern(32 * 1024);
  REQUIRE(handle.call("echo", request) == request);
  const auto stats = server.stats();
  CHECK(stats.eager_receives >= 1);
  CHECK(stats.rendezvous_receives == 0);
}

TEST_CASE("a sender whose shared-memory queue is full neither spins nor stalls",
          "[channels][shm][progress]") {
  Endpoint server(options_for("posix,cma", "server.0"));
  Endpoint client(options_for("posix,cma", "client.0"));
  std::atomic<int> received{0};
  // The server's worker is not progressed while "block" runs (handlers run
  // on its progress thread): its receive queue fills and stays full.
  server.register_method("block", [](ByteView) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    return Bytes{};
  });
  server.register_method("sink", [&](ByteView request) {
    if (request.size() == 16 * 1024) received++;
    return Bytes{};
  });
  Handle handle = client.connect(server.address(), "server.0");
  REQUIRE(handle.call("sink", pattern(16 * 1024)).empty());  // connected and admitted
  received = 0;
  auto blocked = handle.call_async("block", {});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the handler runs
  constexpr int kSends = 400;  // 800 queue entries of 8 KiB: the server's queue has 256
  std::vector<std::future<void>> sends;
  for (int i = 0; i < kSends; ++i) sends.push_back(handle.send("sink", pattern(16 * 1024)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the queue is full
  const double before = process_cpu_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const double spent = process_cpu_ms() - before;
  INFO("CPU of both endpoints while the queue was full: " << spent << " ms in 400 ms");
  // Spinning took a whole core (about 400 ms); waiting costs a wake-up every
  // 100 us at most.
  CHECK(spent < 160.0);
  REQUIRE(blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  blocked.get();
  // Once the server drains its queue again every send arrives: nothing waits
  // for a wake-up that never comes.
  for (auto& send : sends) {
    REQUIRE(send.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    send.get();
  }
  REQUIRE(handle.call("sink", {}).empty());  // after every send, on the same connection
  CHECK(received.load() == kSends);
}
