// slipway_test_replay_c_client: a task of tests/integration/replay's
// topology (replay_client.sh c_abi) that drives a real slipway-replay
// server (node "replay") through the replay client's C ABI (replay.h), by
// way of its C++ wrapper (replay.hpp) linked against libslipway-courier.so,
// as a program built against libslipway-dev does; and courier's own C++
// wrapper (courier.hpp) calling itself. Exits 0 when all held ("replay
// client test: ok").
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "slipway/channels/courier.hpp"
#include "slipway/replay/replay.hpp"

using slipway::courier::Endpoint;
using slipway::courier::Error;
using slipway::courier::ReplayClient;
using slipway::courier::ReplayItem;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

// The status a call failed with; SLIPWAY_OK when it did not fail.
template <typename Call>
int status_of(Call&& call, std::string* message = nullptr) {
  try {
    call();
    return SLIPWAY_OK;
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
}

}  // namespace

int main() {
  try {
    Endpoint endpoint;  // inside slipway: NODE.REPLICA, the program's directory
    ReplayClient replay(endpoint, "replay");
    check(replay.shards() == 1, "one shard resolved");

    // A uniform table: inserted data comes back with its key.
    std::vector<std::uint64_t> keys;
    for (const char* data : {"first", "second", "third"}) keys.push_back(replay.insert(data, {{"uniform", 1.0}}));
    const std::vector<ReplayItem> sampled = replay.sample("uniform", 2, 10000);
    bool known = sampled.size() == 2;
    for (const ReplayItem& item : sampled) {
      const auto at = std::find(keys.begin(), keys.end(), item.key);
      known = known && at != keys.end() &&
              item.data == std::vector<std::string>{"first", "second", "third"}[static_cast<std::size_t>(at - keys.begin())];
      known = known && item.probability > 0.0 && item.times >= 1;
    }
    check(known, "uniform: 2 samples, each an inserted item with its own data");

    replay.update_priorities("uniform", {{keys[0], 5.0}});
    replay.remove("uniform", keys);
    // One-way calls: a later call on the same shard comes after them.
    check(status_of([&] { replay.sample("uniform", 1, 300); }) == SLIPWAY_E_TIMEOUT,
          "uniform: empty after remove, a sample's deadline passes (SLIPWAY_E_TIMEOUT)");

    // A queue hands its items out in order, once.
    replay.insert("a", {{"tasks", 1.0}});
    replay.insert("b", {{"tasks", 1.0}});
    const std::vector<ReplayItem> popped = replay.sample("tasks", 2, 10000);
    check(popped.size() == 2 && popped[0].data == "a" && popped[1].data == "b", "queue: a then b");

    std::string message;
    const int unknown = status_of([&] { replay.sample("no_such_table", 1, 1000); }, &message);
    check(unknown == SLIPWAY_E_INVALID_ARGUMENT && message.find("no_such_table") != std::string::npos,
          "an unknown table: SLIPWAY_E_INVALID_ARGUMENT naming it (" + message + ")");

    // A work table: leased, given back, leased again, acked once.
    replay.insert("job-1", {{"jobs", 1.0}});
    const slipway::courier::Leases first = replay.lease("jobs", 1, 10000);
    check(first.items().size() == 1 && first.items()[0].data == "job-1", "work: job-1 leased");
    check(replay.nack("jobs", first) == 1, "work: nack counted");
    const slipway::courier::Leases second = replay.lease("jobs", 1, 10000);
    check(second.items().size() == 1 && second.items()[0].data == "job-1" && second.items()[0].times >= 2,
          "work: job-1 leased again");
    check(replay.ack("jobs", second) == 1, "work: ack counted");
    check(replay.ack("jobs", first) == 0, "work: an old lease's ack is not counted");

    replay.reset("uniform");

    // Courier's C++ wrapper: a method served and called over the endpoint's
    // own address.
    endpoint.serve("echo", [](std::string_view request, slipway::courier::Responder responder) {
      responder.reply("echo " + std::string(request));
    });
    const slipway::courier::Handle self = endpoint.connect(endpoint.address(), "self");
    check(self.call("echo", "courier", 10000) == "echo courier", "courier.hpp: a call to itself");
    check(status_of([&] { self.call("no_such_method", "", 10000); }) == SLIPWAY_E_NO_SUCH_METHOD,
          "courier.hpp: an unknown method is SLIPWAY_E_NO_SUCH_METHOD");
  } catch (const Error& e) {
    std::printf("FAILED: %s (status %d)\n", e.what(), e.code());
    return 1;
  }
  if (failures > 0) return 1;
  std::printf("replay client test: ok\n");
  return 0;
}
