// Many concurrent callers: several caller endpoints, each used from several
// threads at once, against one callee; every reply must match its request.
#include <atomic>
#include <thread>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;

TEST_CASE("many concurrent callers each get their own replies", "[channels][concurrency]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  const int kCallers = 6;
  const int kThreads = 4;
  const int kCalls = 150;

  auto server_options = options_for(tls, "ps.0");
  SECTION("handlers on the progress thread") {}
  SECTION("handlers on their own threads") { server_options.handler_threads = 3; }
  Endpoint server(server_options);
  server.register_method("tag", [](ByteView request) {
    Bytes reply = to_bytes(request);
    reply.push_back(std::byte{'!'});
    return reply;
  });

  std::vector<std::unique_ptr<Endpoint>> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.push_back(std::make_unique<Endpoint>(options_for(tls, "actor." + std::to_string(c))));
  }
  std::atomic<int> good{0};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kCallers; ++c) {
    Handle handle = callers[c]->connect(server.address(), "ps.0");
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, handle, c, t] {
        for (int i = 0; i < kCalls; ++i) {
          std::string text = std::to_string(c) + "/" + std::to_string(t) + "/" + std::to_string(i);
          // Mix sizes: some payloads go by rendezvous.
          if (i % 25 == 0) text.append(200 * 1024, 'x');
          try {
            Bytes reply = i % 2 ? handle.call("tag", to_bytes(text))
                                : handle.call_async("tag", to_bytes(text)).get();
            (to_string(reply) == text + "!" ? good : bad)++;
          } catch (const std::exception&) {  // ChannelError, or a bug (not escaping the thread)
            bad++;
          }
        }
      });
    }
  }
  for (auto& t : threads) t.join();
  CHECK(bad == 0);
  CHECK(good == kCallers * kThreads * kCalls);
  CHECK(server.stats().requests_received ==
        static_cast<std::uint64_t>(kCallers * kThreads * kCalls));
}
