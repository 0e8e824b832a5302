// LocalDirectory: watches see the current address and every change,
// withdrawals by a stale publisher are ignored, replica counts are known.
#include <catch2/catch.hpp>

#include <vector>

#include "slipway/channels/directory.hpp"

using namespace slipway::channels;
using namespace std::chrono_literals;

TEST_CASE("a watch sees the current address, then each change", "[channels][directory]") {
  LocalDirectory directory;
  std::vector<std::optional<std::string>> seen;
  auto record = [&](const std::optional<Bytes>& a) {
    seen.push_back(a ? std::optional<std::string>(to_string(*a)) : std::nullopt);
  };
  directory.publish("learner", 0, as_view("addr-1"));
  {
    auto watch = directory.watch("learner", 0, record);
    directory.publish("learner", 1, as_view("other replica"));
    directory.publish("learner", 0, as_view("addr-2"));
    directory.withdraw("learner", 0, as_view("addr-1"));  // stale: ignored
    directory.withdraw("learner", 0, as_view("addr-2"));
  }
  directory.publish("learner", 0, as_view("addr-3"));  // the watch is gone
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == "addr-1");
  CHECK(seen[1] == "addr-2");
  CHECK(seen[2] == std::nullopt);
}

TEST_CASE("a watch made before any publish gets nothing until one", "[channels][directory]") {
  LocalDirectory directory;
  int calls = 0;
  auto watch = directory.watch("ps", 0, [&](const std::optional<Bytes>&) { ++calls; });
  CHECK(calls == 0);
  directory.publish("ps", 0, as_view("a"));
  CHECK(calls == 1);
}

TEST_CASE("replica counts: declared, else highest published + 1", "[channels][directory]") {
  LocalDirectory directory;
  CHECK_FALSE(directory.replicas("actor", 10ms));
  directory.publish("actor", 2, as_view("a2"));
  CHECK(directory.replicas("actor", 10ms) == 3u);
  directory.declare_replicas("actor", 8);
  CHECK(directory.replicas("actor", 10ms) == 8u);
  CHECK_THAT(directory.where("actor", 2), Catch::Contains("actor.2"));
}
