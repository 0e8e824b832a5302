// Courier resolution through a real rendezvous service on loopback: keys
// ucx/<node>/<replica>, following a restarted callee through key changes,
// and a callee whose task fails in the rendezvous being treated as gone.
#include <mutex>

#include "rendezvous_program.hpp"
#include "transports.hpp"

using namespace slipway;
using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

TEST_CASE("endpoints publish and resolve through the rendezvous", "[channels][rendezvous]") {
  Program program;
  Endpoint learner(options_for("tcp", "learner.0"), program.directory());
  learner.register_method("step", [](ByteView) { return to_bytes("7"); });
  learner.publish("learner", 0);
  CHECK(program.server.get("ucx/learner/0") == to_string(learner.address()));

  Endpoint actor(options_for("tcp", "actor.0"), program.directory());
  CHECK(to_string(actor.resolve("learner").call("step", {})) == "7");
}

TEST_CASE("a callee restarted under the rendezvous is followed", "[channels][rendezvous]") {
  Program program;
  std::mutex mutex;
  std::vector<Responder> parked;
  auto start = [&](const std::string& who) {
    auto service = std::make_unique<Endpoint>(options_for("tcp", "svc.0"), program.directory());
    service->register_method("who", [who](ByteView) { return to_bytes(who); });
    service->register_async_method("park", [&](ByteView, Responder r) {
      std::lock_guard lock(mutex);
      parked.push_back(std::move(r));
    });
    service->publish("svc", 0);
    return service;
  };
  auto agent = program.agent("svc", 0, 0);
  auto first = start("first");
  Endpoint client(options_for("tcp", "client.0"), program.directory());
  Handle handle = client.resolve("svc", 0);
  CHECK(to_string(handle.call("who", {})) == "first");

  // The task fails: its agent's membership ends without a leave.
  auto in_flight = handle.call_async("park", {});
  for (int i = 0; i < 400; ++i) {
    {
      std::lock_guard lock(mutex);
      if (!parked.empty()) break;
    }
    std::this_thread::sleep_for(5ms);
  }
  agent.reset();
  try {
    in_flight.get();
    FAIL("the call in flight should have failed");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::peer_lost);
    CHECK_THAT(e.what(), Catch::Contains("svc.0 went away"));
  }

  // It is relaunched (attempt 1) and publishes a new address.
  auto relaunched = program.agent("svc", 0, 1);
  auto second = start("second");
  for (int i = 0; i < 200; ++i) {
    try {
      if (to_string(handle.call("who", {}, 1s)) == "second") break;
    } catch (const ChannelError&) {
    }
  }
  CHECK(to_string(handle.call("who", {})) == "second");

  // The old process closing does not withdraw the new address.
  {
    std::lock_guard lock(mutex);
    parked.clear();
  }
  first.reset();
  CHECK(program.server.get("ucx/svc/0") == to_string(second->address()));
  CHECK(to_string(handle.call("who", {})) == "second");
  second.reset();
  CHECK(program.server.get("ucx/svc/0") == std::string());
}

TEST_CASE("resolve_all reads the replica count published from the task environment",
          "[channels][rendezvous]") {
  Program program;
  std::vector<std::unique_ptr<Endpoint>> actors;
  ::setenv("SLIPWAY_NODE", "actor", 1);
  ::setenv("SLIPWAY_REPLICAS", "2", 1);
  for (std::uint32_t r = 0; r < 2; ++r) {
    ::setenv("SLIPWAY_REPLICA", std::to_string(r).c_str(), 1);
    actors.push_back(std::make_unique<Endpoint>(options_for("tcp", ""), program.directory()));
    CHECK(actors.back()->name() == "actor." + std::to_string(r));
    actors.back()->register_method("r", [r](ByteView) { return to_bytes(std::to_string(r)); });
    actors.back()->publish();
  }
  ::unsetenv("SLIPWAY_NODE");
  ::unsetenv("SLIPWAY_REPLICA");
  ::unsetenv("SLIPWAY_REPLICAS");
  CHECK(program.server.get("ucx-replicas/actor") == "2");
  Endpoint learner(options_for("tcp", "learner.0"), program.directory());
  auto handles = learner.resolve_all("actor", 5s);
  REQUIRE(handles.size() == 2);
  CHECK(to_string(handles[0].call("r", {})) == "0");
  CHECK(to_string(handles[1].call("r", {})) == "1");
}

TEST_CASE("resolve_all follows an elastic node's live set", "[channels][rendezvous]") {
  Program program;
  std::vector<std::unique_ptr<Endpoint>> actors;
  for (std::uint32_t r = 0; r < 3; ++r) {
    actors.push_back(std::make_unique<Endpoint>(options_for("tcp", "actor." + std::to_string(r)),
                                                program.directory()));
    actors.back()->register_method("r", [r](ByteView) { return to_bytes(std::to_string(r)); });
    actors.back()->publish("actor", r);
  }
  Endpoint learner(options_for("tcp", "learner.0"), program.directory());
  // The launcher's key: actor runs replicas 0 and 2 (1 was scaled away).
  program.server.put("live/actor", "size=2 min=1 max=4 replicas=0,2");
  CHECK(learner.live_replicas("actor", 5s) == std::vector<std::uint32_t>{0, 2});
  auto handles = learner.resolve_all("actor", 5s);
  REQUIRE(handles.size() == 2);
  CHECK(to_string(handles[0].call("r", {})) == "0");
  CHECK(to_string(handles[1].call("r", {})) == "2");
  // It grows back: the next resolve_all sees it.
  program.server.put("live/actor", "size=3 min=1 max=4 replicas=0-2");
  handles = learner.resolve_all("actor", 5s);
  REQUIRE(handles.size() == 3);
  CHECK(to_string(handles[1].call("r", {})) == "1");
}

TEST_CASE("from_environment names what is missing", "[channels][rendezvous]") {
  ::unsetenv("SLIPWAY_RDZV");
  ::unsetenv("SLIPWAY_TOKEN");
  try {
    RendezvousDirectory::from_environment();
    FAIL("should have thrown");
  } catch (const ChannelError& e) {
    CHECK_THAT(e.what(), Catch::Contains("SLIPWAY_RDZV"));
  }
}
