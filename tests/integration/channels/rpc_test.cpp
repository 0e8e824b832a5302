// Courier RPC between endpoints on loopback, over TCP and shared memory:
// blocking, future and one-way calls, payloads from 0 B to beyond UCX's
// rendezvous threshold, callee errors, unknown methods, timeouts; nothing
// printed by UCX on the way.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <condition_variable>
#include <mutex>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

TEST_CASE("a call returns the callee's reply, for every payload size", "[channels][rpc]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  Endpoint server(options_for(tls, "server"));
  server.register_method("echo", [](ByteView request) { return to_bytes(request); });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address(), "server.0");

  for (std::size_t size : {std::size_t{0}, std::size_t{8}, std::size_t{64 * 1024},
                           std::size_t{1} << 20, std::size_t{8} << 20}) {
    INFO("payload " << size << " bytes");
    Bytes request = pattern(size, static_cast<unsigned>(size % 251));
    Bytes reply = handle.call("echo", request);
    CHECK(reply == request);
  }
}

TEST_CASE("payloads above the rendezvous threshold are fetched by UCX's rendezvous protocol",
          "[channels][rpc]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto server_options = options_for(tls, "server");
  server_options.rndv_thresh = "4096";
  auto client_options = options_for(tls, "client");
  client_options.rndv_thresh = "4096";
  Endpoint server(server_options);
  server.register_method("sum", [](ByteView request) {
    std::uint64_t sum = 0;
    for (auto b : request) sum += std::to_integer<unsigned>(b);
    return to_bytes(std::to_string(sum));
  });
  Endpoint client(client_options);
  Handle handle = client.connect(server.address());

  Bytes small = pattern(64);
  Bytes large = pattern(2 << 20);
  std::uint64_t expected = 0;
  for (auto b : large) expected += std::to_integer<unsigned>(b);
  auto before = server.stats();
  handle.call("sum", small);
  auto after_small = server.stats();
  CHECK(after_small.eager_receives == before.eager_receives + 1);
  CHECK(after_small.rendezvous_receives == before.rendezvous_receives);
  CHECK(to_string(handle.call("sum", large)) == std::to_string(expected));
  CHECK(server.stats().rendezvous_receives == after_small.rendezvous_receives + 1);
}

TEST_CASE("a callee's exception reaches the caller with its message", "[channels][rpc]") {
  auto tls = any_transport();
  Endpoint server(options_for(tls, "learner.0"));
  server.register_method("get_weights", [](ByteView) -> Bytes {
    throw std::runtime_error("weights not ready: step 0");
  });
  Endpoint client(options_for(tls, "actor.3"));
  Handle handle = client.connect(server.address(), "learner.0");
  try {
    handle.call("get_weights", {});
    FAIL("the call should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::remote_error);
    CHECK(e.remote_message() == "weights not ready: step 0");
    CHECK_THAT(e.what(), Catch::Contains("learner.0") && Catch::Contains("get_weights") &&
                             Catch::Contains("weights not ready: step 0"));
  }
  // The connection stays usable after a failed call.
  server.register_method("ping", [](ByteView) { return to_bytes("pong"); });
  CHECK(to_string(handle.call("ping", {})) == "pong");
}

TEST_CASE("an unknown method is refused with the callee's list of methods", "[channels][rpc]") {
  Endpoint server(options_for("tcp", "replay.0"));
  server.register_method("insert", [](ByteView) { return Bytes{}; });
  server.register_method("sample", [](ByteView) { return Bytes{}; });
  Endpoint client(options_for("tcp", "learner.0"));
  Handle handle = client.connect(server.address(), "replay.0");
  try {
    handle.call("smaple", {});
    FAIL("the call should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::no_such_method);
    CHECK_THAT(e.what(), Catch::Contains("no method 'smaple'") && Catch::Contains("insert") &&
                             Catch::Contains("sample"));
  }
}

TEST_CASE("futures and one-way sends", "[channels][rpc]") {
  auto tls = any_transport();
  Endpoint server(options_for(tls, "server"));
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> notes;
  server.register_method("square", [](ByteView request) {
    auto x = std::stoll(to_string(request));
    return to_bytes(std::to_string(x * x));
  });
  server.register_method("note", [&](ByteView request) {
    std::lock_guard lock(mutex);
    notes.push_back(to_string(request));
    cv.notify_all();
    return Bytes{};
  });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address());

  std::vector<std::future<Bytes>> futures;
  for (int i = 0; i < 100; ++i) futures.push_back(handle.call_async("square", to_bytes(std::to_string(i))));
  for (int i = 0; i < 100; ++i) CHECK(to_string(futures[i].get()) == std::to_string(i * i));

  for (int i = 0; i < 10; ++i) handle.send("note", to_bytes("n" + std::to_string(i))).get();
  std::unique_lock lock(mutex);
  REQUIRE(cv.wait_for(lock, 20s, [&] { return notes.size() == 10; }));
  CHECK(notes.front() == "n0");  // one connection keeps its order
  CHECK(notes.back() == "n9");
}

// While the callee's progress thread is held in a handler, three requests
// wait in its socket: the next poll takes them in one turn, and the
// MethodOrder::bulk ones are handled after the other.
TEST_CASE("requests to bulk methods are handled after the others of their turn", "[channels][rpc]") {
  Endpoint server(options_for("tcp", "server"));
  std::mutex mutex;
  std::condition_variable cv;
  bool gate_entered = false, gate_open = false;
  std::vector<std::string> order;
  server.register_method("gate", [&](ByteView) {
    std::unique_lock lock(mutex);
    gate_entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return gate_open; });
    return Bytes{};
  });
  auto note = [&](ByteView request, Responder responder) {
    {
      std::lock_guard lock(mutex);
      order.push_back(to_string(request));
    }
    responder.reply({});
  };
  server.register_async_method("insert", note, MethodOrder::bulk);
  server.register_async_method("sample", note);
  Endpoint client(options_for("tcp", "client"));
  Handle handle = client.connect(server.address());
  handle.call("sample", to_bytes("warm-up"));  // connected both ways

  auto gate = handle.call_async("gate", {});
  {
    std::unique_lock lock(mutex);
    REQUIRE(cv.wait_for(lock, 20s, [&] { return gate_entered; }));
  }
  std::vector<std::future<Bytes>> calls;
  calls.push_back(handle.call_async("insert", to_bytes("insert 1")));
  calls.push_back(handle.call_async("insert", to_bytes("insert 2")));
  calls.push_back(handle.call_async("sample", to_bytes("sample")));
  std::this_thread::sleep_for(300ms);  // all three in the callee's socket
  {
    std::lock_guard lock(mutex);
    gate_open = true;
  }
  cv.notify_all();
  gate.get();
  for (auto& call : calls) call.get();
  std::lock_guard lock(mutex);
  CHECK(order == std::vector<std::string>{"warm-up", "sample", "insert 1", "insert 2"});
}

TEST_CASE("an async handler answers from another thread", "[channels][rpc]") {
  Endpoint server(options_for("tcp", "server"));
  std::vector<std::thread> workers;
  server.register_async_method("later", [&](ByteView request, Responder responder) {
    workers.emplace_back([text = to_string(request), r = std::move(responder)]() mutable {
      std::this_thread::sleep_for(10ms);
      r.reply(to_bytes(text + "!"));
    });
  });
  server.register_async_method("forgets", [](ByteView, Responder) {});
  Endpoint client(options_for("tcp", "client"));
  Handle handle = client.connect(server.address());
  CHECK(to_string(handle.call("later", to_bytes("hi"))) == "hi!");
  try {
    handle.call("forgets", {});
    FAIL("the call should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::remote_error);
    CHECK_THAT(e.what(), Catch::Contains("returned without replying"));
  }
  for (auto& t : workers) t.join();
}

TEST_CASE("calls time out with a message that says what was missing", "[channels][rpc]") {
  auto tls = any_transport();
  Endpoint server(options_for(tls, "slow.0"));
  std::vector<Responder> parked;
  std::mutex mutex;
  server.register_async_method("never", [&](ByteView, Responder r) {
    std::lock_guard lock(mutex);
    parked.push_back(std::move(r));
  });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address(), "slow.0");
  auto e = call_error(handle, "never", {}, 300ms);
  CHECK(e.code() == Errc::timeout);
  CHECK_THAT(e.what(), Catch::Contains("'never' to slow.0 timed out after 300 ms"));
  CHECK_THAT(e.what(), Catch::Contains("no call on this connection has been answered yet"));
  // A late answer to a timed-out call is dropped; the handle still works.
  {
    std::lock_guard lock(mutex);
    for (auto& r : parked) r.reply(to_bytes("late"));
  }
  server.register_method("ping", [](ByteView) { return to_bytes("pong"); });
  CHECK(to_string(handle.call("ping", {})) == "pong");
  // A later timeout says that this connection was answered before.
  e = call_error(handle, "never", {}, 300ms);
  CHECK(e.code() == Errc::timeout);
  CHECK_THAT(e.what(), Catch::Contains("1 call(s) on this connection were answered, the last "));
  std::lock_guard lock(mutex);
  parked.back().reply(to_bytes("late"));
}

TEST_CASE("a blocking call from the progress thread is refused, handler threads may call",
          "[channels][rpc]") {
  Endpoint backend(options_for("tcp", "backend.0"));
  backend.register_method("value", [](ByteView) { return to_bytes("42"); });

  auto inline_options = options_for("tcp", "inline.0");
  Endpoint inline_server(inline_options);
  Handle inline_to_backend = inline_server.connect(backend.address(), "backend.0");
  inline_server.register_method("relay", [&](ByteView) {
    return inline_to_backend.call("value", {});
  });

  auto threaded_options = options_for("tcp", "threaded.0");
  threaded_options.handler_threads = 2;
  Endpoint threaded_server(threaded_options);
  Handle threaded_to_backend = threaded_server.connect(backend.address(), "backend.0");
  threaded_server.register_method("relay", [&](ByteView) {
    return threaded_to_backend.call("value", {});
  });

  Endpoint client(options_for("tcp", "client"));
  try {
    client.connect(inline_server.address(), "inline.0").call("relay", {});
    FAIL("the relay should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::remote_error);
    CHECK_THAT(e.remote_message(), Catch::Contains("would wait forever"));
  }
  CHECK(to_string(client.connect(threaded_server.address(), "threaded.0").call("relay", {})) ==
        "42");
}

TEST_CASE("a closed endpoint fails its pending calls and refuses new ones", "[channels][rpc]") {
  Endpoint server(options_for("tcp", "server"));
  server.register_async_method("park", [](ByteView, Responder r) {
    // Keep it unanswered: destroyed only when the server closes.
    static std::vector<Responder> kept;
    kept.push_back(std::move(r));
  });
  auto client = std::make_unique<Endpoint>(options_for("tcp", "client"));
  Handle handle = client->connect(server.address(), "server.0");
  auto pending = handle.call_async("park", {});
  client->close();
  try {
    pending.get();
    FAIL("the pending call should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::closed);
  }
  CHECK_THROWS_AS(handle.call("park", {}), ChannelError);
}

TEST_CASE("a bad UCX transport setting is refused with a hint", "[channels][rpc]") {
  auto options = options_for("no_such_transport", "bad");
  try {
    Endpoint endpoint(options);
    // UCX may accept the name and find no transport only when connecting.
    Endpoint other(options_for("tcp", "other"));
    endpoint.connect(other.address()).call("x", {}, 2s);
    FAIL("no transport should have been usable");
  } catch (const ChannelError& e) {
    CHECK((e.code() == Errc::transport || e.code() == Errc::invalid_argument ||
           e.code() == Errc::peer_lost));
    INFO(e.what());
    CHECK(std::string(e.what()).size() > 0);
  }
}

TEST_CASE("endpoints set nothing UCX warns about, whatever the transports", "[channels][rpc]") {
  // UCX prints its warnings on the process's standard output, which is the
  // task's own: a setting no chosen transport takes ("invalid configuration:
  // TX_SEG_SIZE=64k" with UCX_TLS=posix,cma) lands in the user's output.
  for (const std::string tls : {"tcp", "posix,cma", "^tcp", "tcp,posix"}) {
    INFO("UCX_TLS=" << tls);
    std::fflush(stdout);
    char path[] = "/tmp/slipway-ucx-out-XXXXXX";
    const int capture = ::mkstemp(path);
    REQUIRE(capture >= 0);
    ::unlink(path);
    const int saved = ::dup(1);
    ::dup2(capture, 1);
    {
      Endpoint server(options_for(tls, "server"));
      server.register_method("echo", [](ByteView request) { return to_bytes(request); });
      Endpoint client(options_for(tls, "client"));
      Handle handle = client.connect(server.address(), "server.0");
      CHECK(handle.call("echo", pattern(100 * 1024)) == pattern(100 * 1024));
    }
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    std::string printed(4096, '\0');
    printed.resize(static_cast<std::size_t>(std::max<ssize_t>(0, ::pread(capture, printed.data(), printed.size(), 0))));
    ::close(capture);
    CHECK(printed.find("WARN") == std::string::npos);
    CHECK(printed == "");
  }
}
