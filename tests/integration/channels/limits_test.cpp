// Bounds on what a peer can make an endpoint allocate or queue: message
// size limits on either side, bytes being received, queued requests,
// callers.
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

TEST_CASE("a request over the caller's own limit fails before anything is sent",
          "[channels][limits]") {
  Endpoint server(options_for("tcp", "server"));
  server.register_method("echo", [](ByteView r) { return to_bytes(r); });
  auto options = options_for("tcp", "client");
  options.max_message_bytes = 1 << 20;
  Endpoint client(options);
  Handle handle = client.connect(server.address());
  try {
    handle.call_async("echo", Bytes((1 << 20) + 1));
    FAIL("should have thrown");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::message_too_large);
    CHECK_THAT(e.what(), Catch::Contains("1048577 bytes") && Catch::Contains("max_message_bytes"));
  }
  CHECK(server.stats().requests_received == 0);
  CHECK(handle.call("echo", Bytes(1 << 20)).size() == (1u << 20));
}

TEST_CASE("a request over the callee's limit is refused unread, eager or rendezvous",
          "[channels][limits]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto options = options_for(tls, "small.0");
  options.max_message_bytes = 64 * 1024;
  Endpoint server(options);
  int handled = 0;
  server.register_method("take", [&](ByteView) {
    ++handled;
    return Bytes{};
  });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address(), "small.0");

  for (std::size_t size : {std::size_t{64 * 1024 + 1}, std::size_t{4} << 20}) {
    INFO("request of " << size << " bytes");
    auto e = call_error(handle, "take", Bytes(size));
    CHECK(e.code() == Errc::message_too_large);
    CHECK_THAT(e.what(), Catch::Contains("small.0") &&
                             Catch::Contains(std::to_string(size) + " bytes") &&
                             Catch::Contains("max_message_bytes = 65536"));
  }
  CHECK(handled == 0);
  CHECK(server.stats().rendezvous_receives == 0);  // nothing was fetched
  CHECK(server.stats().refused == 2);
  CHECK(handle.call("take", Bytes(64 * 1024)).empty());  // at the limit: fine
  CHECK(handled == 1);
}

TEST_CASE("replies over a limit fail the call on either side", "[channels][limits]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto big_options = options_for(tls, "big.0");
  big_options.max_message_bytes = 64 * 1024;
  Endpoint server(big_options);
  server.register_method("blob", [](ByteView request) {
    return Bytes(std::stoul(to_string(request)));
  });
  auto client_options = options_for(tls, "client");
  client_options.max_message_bytes = 32 * 1024;
  Endpoint client(client_options);
  Handle handle = client.connect(server.address(), "big.0");

  // Beyond the callee's own limit: it answers with an error instead.
  auto e = call_error(handle, "blob", to_bytes(std::to_string(1 << 20)));
  CHECK(e.code() == Errc::message_too_large);
  CHECK_THAT(e.what(), Catch::Contains("reply of 1048576 bytes") && Catch::Contains("big.0"));
  // Within the callee's limit but beyond the caller's: refused unread.
  e = call_error(handle, "blob", to_bytes(std::to_string(48 * 1024)));
  CHECK(e.code() == Errc::message_too_large);
  CHECK_THAT(e.what(), Catch::Contains("reply to call 'blob' to big.0 was refused") &&
                           Catch::Contains("max_message_bytes = 32768"));
  CHECK(client.stats().rendezvous_receives == 0);
  CHECK(handle.call("blob", to_bytes("100")).size() == 100);
}

TEST_CASE("large payloads beyond max_receive_bytes are refused as overload",
          "[channels][limits]") {
  auto options = options_for("tcp", "tight.0");
  options.max_receive_bytes = 512 * 1024;
  options.rndv_thresh = "8192";
  Endpoint server(options);
  server.register_method("take", [](ByteView r) { return to_bytes(std::to_string(r.size())); });
  auto client_options = options_for("tcp", "client");
  client_options.rndv_thresh = "8192";
  Endpoint client(client_options);
  Handle handle = client.connect(server.address(), "tight.0");
  auto e = call_error(handle, "take", Bytes(1 << 20));
  CHECK(e.code() == Errc::overloaded);
  CHECK_THAT(e.what(), Catch::Contains("max_receive_bytes = 524288"));
  CHECK(to_string(handle.call("take", Bytes(256 * 1024))) == "262144");
}

TEST_CASE("requests beyond max_queued_requests are refused as overload", "[channels][limits]") {
  auto options = options_for("tcp", "busy.0");
  options.max_queued_requests = 2;
  Endpoint server(options);
  std::mutex mutex;
  std::vector<Responder> parked;
  server.register_async_method("park", [&](ByteView, Responder r) {
    std::lock_guard lock(mutex);
    parked.push_back(std::move(r));
  });
  Endpoint client(options_for("tcp", "client"));
  Handle handle = client.connect(server.address(), "busy.0");
  auto first = handle.call_async("park", {});
  auto second = handle.call_async("park", {});
  auto e = call_error(handle, "park", {});
  CHECK(e.code() == Errc::overloaded);
  CHECK_THAT(e.what(), Catch::Contains("busy.0 has 2 requests queued"));
  {
    std::lock_guard lock(mutex);
    REQUIRE(parked.size() == 2);
    for (auto& r : parked) r.reply(to_bytes("done"));
    parked.clear();
  }
  CHECK(to_string(first.get()) == "done");
  CHECK(to_string(second.get()) == "done");
  // Answered requests no longer count.
  auto third = handle.call_async("park", {});
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard lock(mutex);
    if (!parked.empty()) break;
  }
  {
    std::lock_guard lock(mutex);
    REQUIRE(parked.size() == 1);
    parked[0].reply(to_bytes("ok"));
  }
  CHECK(to_string(third.get()) == "ok");
}

TEST_CASE("a caller refused at max_callers is served once a place is free: it says hello again after a timeout",
          "[channels][limits]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto options = options_for(tls, "full.0");
  options.max_callers = 1;
  Endpoint server(options);
  server.register_method("echo", [](ByteView request) { return to_bytes(request); });
  const Bytes ping = to_bytes("ping");
  auto first = std::make_unique<Endpoint>(options_for(tls, "first"));
  std::optional<Handle> a(first->connect(server.address(), "full.0"));
  CHECK(a->call("echo", ping) == ping);
  Endpoint second(options_for(tls, "second"));
  Handle b = second.connect(server.address(), "full.0");
  // The callee has no place for the second caller: it drops its hello and
  // the calls that follow, which time out.
  auto e = call_error(b, "echo", ping, 300ms);
  CHECK(e.code() == Errc::timeout);
  CHECK(server.stats().callers == 1);
  // The first caller leaves: its place is free.
  a.reset();
  first.reset();
  for (int i = 0; i < 300 && server.stats().callers > 0; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(server.stats().callers == 0);
  // The second caller's next call is preceded by a new hello (its last call
  // timed out), so it is served.
  CHECK(b.call("echo", ping, 5s) == ping);
  CHECK(server.stats().callers == 1);
}
