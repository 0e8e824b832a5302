// How endpoints progress their workers: callers that drive the worker while
// they wait, progress threads that poll after activity and sleep when idle.
// Every progress mode gives the same answers; an idle endpoint spends no CPU;
// handlers that run on a driving caller still cannot block on a call.
#include <time.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;

namespace {

struct Mode {
  const char* name;
  bool caller_progress;
  int poll_limit_us;
  int busy_poll_us;
};

EndpointOptions options_in(const std::string& tls, const std::string& name, const Mode& mode) {
  auto options = options_for(tls, name);
  options.caller_progress = mode.caller_progress;
  options.poll_limit = std::chrono::microseconds(mode.poll_limit_us);
  options.busy_poll = std::chrono::microseconds(mode.busy_poll_us);
  return options;
}

Mode any_mode() {
  return GENERATE(Mode{"default", true, 100, 0}, Mode{"sleep", false, 0, 0},
                  Mode{"caller progress, no polling", true, 0, 0},
                  Mode{"busy poll", true, 100, 50});
}

// A client endpoint with a handle to a server endpoint serving "echo".
struct EchoPair {
  EchoPair(const std::string& tls, const Mode& mode)
      : server(options_in(tls, "server.0", mode)), client(options_in(tls, "client.0", mode)) {
    server.register_method("echo", [](ByteView request) { return to_bytes(request); });
    handle.emplace(client.connect(server.address(), "server.0"));
  }
  Endpoint server;
  Endpoint client;
  std::optional<Handle> handle;
};

double process_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

TEST_CASE("endpoints that serve and call each other agree in every progress mode",
          "[channels][progress]") {
  auto tls = any_transport();
  auto mode = any_mode();
  INFO("UCX_TLS=" << tls << " mode " << mode.name);
  Endpoint a(options_in(tls, "a.0", mode));
  Endpoint b(options_in(tls, "b.0", mode));
  Handle a_to_b = a.connect(b.address(), "b.0");
  Handle b_to_a = b.connect(a.address(), "a.0");
  a.register_method("echo", [](ByteView request) {
    Bytes reply = to_bytes(request);
    reply.push_back(std::byte{'a'});
    return reply;
  });
  b.register_method("echo", [](ByteView request) {
    Bytes reply = to_bytes(request);
    reply.push_back(std::byte{'b'});
    return reply;
  });
  // A handler of a runs on whichever thread progresses a's worker (its
  // progress thread, or one of a's callers driving it): never may it block
  // on a call through a.
  a.register_method("nested", [&](ByteView) {
    try {
      a_to_b.call("echo", to_bytes("x"));
      return to_bytes("called");
    } catch (const ChannelError& e) {
      return to_bytes(e.code() == Errc::would_deadlock ? "would_deadlock" : e.what());
    }
  });

  const int kCalls = 300;
  std::atomic<int> good{0};
  std::atomic<int> bad{0};
  // Catch2's macros are not thread-safe: the callers note what went wrong
  // here and the test's thread reports it after they are joined.
  std::mutex errors_mutex;
  std::vector<std::string> errors;
  auto note = [&](std::string what) {
    bad++;
    std::lock_guard lock(errors_mutex);
    if (errors.size() < 20) errors.push_back(std::move(what));
  };
  auto caller = [&](const Handle& handle, char tag, int id, bool async) {
    for (int i = 0; i < kCalls; ++i) {
      std::string text = std::to_string(id) + "/" + std::to_string(i);
      if (i % 50 == 0) text.append(100 * 1024, 'x');  // some by rendezvous
      try {
        Bytes reply = async ? handle.call_async("echo", to_bytes(text)).get()
                            : handle.call("echo", to_bytes(text));
        (to_string(reply) == text + tag ? good : bad)++;
        if (tag == 'a' && i % 10 == 0) {
          (to_string(handle.call("nested", {})) == "would_deadlock" ? good : bad)++;
        }
      } catch (const ChannelError& e) {
        note(e.what());
      } catch (const std::exception& e) {
        // Not a courier failure (e.g. a broken promise): a bug, reported
        // as a failure rather than escaping the thread.
        note(std::string("not a ChannelError: ") + e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(caller, a_to_b, 'b', 0, false);
  threads.emplace_back(caller, a_to_b, 'b', 1, false);
  threads.emplace_back(caller, a_to_b, 'b', 2, true);
  threads.emplace_back(caller, b_to_a, 'a', 3, false);
  threads.emplace_back(caller, b_to_a, 'a', 4, false);
  for (auto& t : threads) t.join();
  for (const auto& what : errors) UNSCOPED_INFO(what);
  CHECK(bad == 0);
  CHECK(good == 5 * kCalls + 2 * (kCalls / 10));
  // No handler of a may run once a_to_b is gone (it is destroyed first).
  b.close();
  a.close();
}

TEST_CASE("an endpoint spends no CPU once its traffic stops", "[channels][progress]") {
  auto tls = any_transport();
  auto mode = GENERATE(Mode{"default", true, 100, 0}, Mode{"busy poll", true, 100, 200});
  INFO("UCX_TLS=" << tls << " mode " << mode.name);
  EchoPair pair(tls, mode);
  const Handle& handle = *pair.handle;
  for (int i = 0; i < 2000; ++i) REQUIRE(handle.call("echo", to_bytes("ping")).size() == 4);
  // Poll windows are at most a few hundred microseconds after activity.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  double before = process_cpu_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double spent = process_cpu_ms() - before;
  INFO("CPU while idle: " << spent << " ms in 500 ms");
  CHECK(spent < 25.0);
  // And the endpoints still answer after sleeping.
  CHECK(to_string(handle.call("echo", to_bytes("again"))) == "again");
}

TEST_CASE("a zero timeout fails the call even when the reply is instant",
          "[channels][progress]") {
  auto tls = any_transport();
  auto mode = any_mode();
  INFO("UCX_TLS=" << tls << " mode " << mode.name);
  EchoPair pair(tls, mode);
  const Handle& handle = *pair.handle;
  CHECK(to_string(handle.call("echo", to_bytes("warm"))) == "warm");
  try {
    handle.call("echo", to_bytes("x"), std::chrono::milliseconds(0));
    FAIL("a call with a zero timeout returned");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::timeout);
  }
}

TEST_CASE("a call's timeout fires on time while its caller polls through it",
          "[channels][progress]") {
  // The caller polls for 400 ms (busy_poll) and its rounds read the clock
  // only now and then (RoundClock): the 30 ms timeout must still end the
  // call within its polling, not when the window ends; and the thread's
  // next call, whose waiter is reused, gets its own reply.
  auto tls = any_transport();
  Mode mode{"busy poll 400 ms", true, 100, 400000};
  INFO("UCX_TLS=" << tls);
  Endpoint server(options_in(tls, "server.0", mode));
  std::mutex held_mutex;
  std::vector<Responder> held;  // never answered while the call waits
  server.register_async_method("hold", [&](ByteView, Responder responder) {
    std::lock_guard lock(held_mutex);
    held.push_back(std::move(responder));
  });
  server.register_method("echo", [](ByteView request) { return to_bytes(request); });
  Endpoint client(options_in(tls, "client.0", mode));
  Handle handle = client.connect(server.address(), "server.0");
  CHECK(to_string(handle.call("echo", to_bytes("warm"))) == "warm");
  const auto start = std::chrono::steady_clock::now();
  try {
    handle.call("hold", to_bytes("x"), std::chrono::milliseconds(30));
    FAIL("a call that was never answered returned");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::timeout);
  }
  const double took_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  INFO("the 30 ms call ended after " << took_ms << " ms");
  CHECK(took_ms >= 30.0);
  CHECK(took_ms < 300.0);
  {
    std::lock_guard lock(held_mutex);
    for (auto& responder : held) responder.reply(to_bytes("late"));  // dropped by the caller
  }
  for (int i = 0; i < 50; ++i) {
    const std::string text = "after " + std::to_string(i);
    REQUIRE(to_string(handle.call("echo", to_bytes(text))) == text);
  }
  client.close();
  server.close();
}

TEST_CASE("a caller's endpoint serves calls right after its caller handed its worker back unarmed",
          "[channels][progress]") {
  // A caller that polled for its reply hands the worker back unarmed (the
  // peer then sends its next reply without a wake-up signal); the progress
  // thread naps meanwhile: calls to the caller's own endpoint must still be
  // served within the nap, not once the thread sleeps its full minute.
  auto tls = any_transport();
  auto mode = GENERATE(Mode{"default", true, 100, 0}, Mode{"busy poll", true, 100, 200});
  INFO("UCX_TLS=" << tls << " mode " << mode.name);
  Endpoint a(options_in(tls, "a.0", mode));
  Endpoint b(options_in(tls, "b.0", mode));
  a.register_method("echo", [](ByteView request) { return to_bytes(request); });
  b.register_method("echo", [](ByteView request) { return to_bytes(request); });
  Handle a_to_b = a.connect(b.address(), "b.0");
  Handle b_to_a = b.connect(a.address(), "a.0");
  double slowest_ms = 0;
  for (int i = 0; i < 200; ++i) {
    for (int k = 0; k < 5; ++k) REQUIRE(a_to_b.call("echo", to_bytes("ping")).size() == 4);
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(to_string(b_to_a.call("echo", to_bytes("back"), std::chrono::seconds(5))) == "back");
    slowest_ms = std::max(slowest_ms, std::chrono::duration<double, std::milli>(
                                          std::chrono::steady_clock::now() - start).count());
  }
  INFO("slowest call into the caller's endpoint: " << slowest_ms << " ms");
  // Naps last at most 1 ms (those that callers keep renewing grow to it);
  // scheduling on a loaded host adds milliseconds, never the idle sleep's
  // minute.
  CHECK(slowest_ms < 1000.0);
  b.close();
  a.close();
}
