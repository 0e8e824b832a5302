// Resolution by node name and following a callee that restarts: through the
// in-process directory (rendezvous_test.cpp does the same through a real
// rendezvous service).
#include <mutex>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<Endpoint> start_service(const std::string& tls, const std::string& incarnation,
                                        std::shared_ptr<LocalDirectory> directory,
                                        std::vector<Responder>* parked, std::mutex* mutex) {
  auto service = std::make_unique<Endpoint>(options_for(tls, "svc.0"), directory);
  service->register_method("who", [incarnation](ByteView) { return to_bytes(incarnation); });
  service->register_async_method("park", [parked, mutex](ByteView, Responder r) {
    std::lock_guard lock(*mutex);
    parked->push_back(std::move(r));
  });
  service->publish("svc", 0);
  return service;
}

void wait_until_parked(std::mutex& mutex, const std::vector<Responder>& parked, std::size_t n) {
  for (int i = 0; i < 2000; ++i) {
    {
      std::lock_guard lock(mutex);
      if (parked.size() >= n) return;
    }
    std::this_thread::sleep_for(5ms);
  }
  FAIL("the parked call never arrived");
}

}  // namespace

TEST_CASE("a handle resolved by name follows its callee's restarts", "[channels][restart]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto directory = std::make_shared<LocalDirectory>();
  std::mutex mutex;
  std::vector<Responder> parked;
  Endpoint client(options_for(tls, "actor.0"), directory);
  Handle handle = client.resolve("svc", 0);
  CHECK(handle.name() == "svc.0");

  // A call made before the callee published waits for its address.
  auto early = handle.call_async("who", {});
  auto first = start_service(tls, "first", directory, &parked, &mutex);
  CHECK(to_string(early.get()) == "first");

  // The callee restarts (new address) while a call is in flight.
  auto in_flight = handle.call_async("park", {});
  wait_until_parked(mutex, parked, 1);
  auto second = start_service(tls, "second", directory, &parked, &mutex);
  try {
    in_flight.get();
    FAIL("the call in flight should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::peer_restarted);
    CHECK_THAT(e.what(), Catch::Contains("svc.0 restarted") && Catch::Contains("'park'"));
  }
  CHECK(to_string(handle.call("who", {})) == "second");
  {
    std::lock_guard lock(mutex);
    parked.clear();  // the old incarnation's answers go nowhere
  }
  first.reset();
  CHECK(to_string(handle.call("who", {})) == "second");

  // The callee leaves (withdrawn): calls in flight fail, later calls wait.
  auto leaving = handle.call_async("park", {});
  wait_until_parked(mutex, parked, 1);
  second.reset();
  try {
    leaving.get();
    FAIL("the call in flight should have failed");
  } catch (const ChannelError& e) {
    CHECK((e.code() == Errc::peer_lost || e.code() == Errc::closed));
    CHECK_THAT(e.what(), Catch::Contains("svc.0"));
  }
  try {
    handle.call("who", {}, 300ms);
    FAIL("no callee is published");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::timeout);
    CHECK_THAT(e.what(), Catch::Contains("no address of svc.0 was published"));
  }
  auto waiting = handle.call_async("who", {});
  auto third = start_service(tls, "third", directory, &parked, &mutex);
  CHECK(to_string(waiting.get()) == "third");
  {
    std::lock_guard lock(mutex);
    parked.clear();
  }
}

TEST_CASE("resolve_all gives one handle per replica, in order", "[channels][restart]") {
  auto directory = std::make_shared<LocalDirectory>();
  directory->declare_replicas("actor", 3);
  std::vector<std::unique_ptr<Endpoint>> actors;
  for (std::uint32_t r = 0; r < 3; ++r) {
    actors.push_back(
        std::make_unique<Endpoint>(options_for("tcp", "actor." + std::to_string(r)), directory));
    actors.back()->register_method("replica", [r](ByteView) { return to_bytes(std::to_string(r)); });
    actors.back()->publish("actor", r);
  }
  Endpoint learner(options_for("tcp", "learner.0"), directory);
  auto handles = learner.resolve_all("actor");
  REQUIRE(handles.size() == 3);
  for (std::uint32_t r = 0; r < 3; ++r) {
    CHECK(handles[r].name() == "actor." + std::to_string(r));
    CHECK(to_string(handles[r].call("replica", {})) == std::to_string(r));
  }
  CHECK_THROWS_AS(learner.resolve_all("nobody", 100ms), ChannelError);
}

TEST_CASE("publish and resolve without a directory say what is missing", "[channels][restart]") {
  Endpoint endpoint(options_for("tcp", "lonely"));
  try {
    endpoint.resolve("svc");
    FAIL("resolve needs a directory");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::invalid_argument);
    CHECK_THAT(e.what(), Catch::Contains("needs an address directory"));
  }
}

TEST_CASE("a callee closed while large replies are in flight fails them cleanly",
          "[channels][restart]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  for (int round = 0; round < 10; ++round) {
    auto server = std::make_unique<Endpoint>(options_for(tls, "big.0"));
    server->register_method("big", [](ByteView) { return Bytes(1 << 20); });
    Endpoint client(options_for(tls, "client"));
    Handle handle = client.connect(server->address(), "big.0");
    std::vector<std::future<Bytes>> replies;
    // A callee that goes before it heard from us leaves nothing to detect
    // within this process: those calls end at their timeout.
    for (int i = 0; i < 16; ++i) replies.push_back(handle.call_async("big", {}, 1s));
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 4));
    server.reset();  // while replies are being sent, or before
    for (auto& reply : replies) {
      try {
        Bytes value = reply.get();
        CHECK(value.size() == (1u << 20));
      } catch (const ChannelError& e) {
        INFO(e.what());
        CHECK((e.code() == Errc::peer_lost || e.code() == Errc::timeout ||
               e.code() == Errc::closed));
      }
    }
  }  // every endpoint and worker is destroyed each round: nothing may abort
}
