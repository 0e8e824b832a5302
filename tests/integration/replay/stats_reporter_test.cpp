// A replay shard's stats puts (stats_reporter.hpp) on their real thread
// with a recording put: every turn, one put in flight at a time, a failed
// put said once and tried again; and the server's stats (Server::stats):
// its tables, and the time of the checkpoint last written or loaded.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "server.hpp"
#include "slipway/base/scratch_dir.hpp"
#include "stats_reporter.hpp"

using namespace slipway::replay;
using namespace std::chrono_literals;

namespace {

struct Puts {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> sent;
  std::vector<StatsReporter::Done> unanswered;
  std::vector<std::string> log;
  bool answer = true;
  bool ok = true;

  StatsReporter::Put put() {
    return [this](const std::string& key, const std::string& value, StatsReporter::Done done) {
      std::lock_guard lock(mutex);
      sent.emplace_back(key, value);
      if (answer) {
        done(ok, ok ? "" : "connection lost");
      } else {
        unanswered.push_back(std::move(done));
      }
    };
  }
  StatsReporter::Log logger() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      log.push_back(line);
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return sent.size();
  }
  bool wait_for(std::size_t n) {
    for (int i = 0; i < 500 && count() < n; ++i) std::this_thread::sleep_for(10ms);
    return count() >= n;
  }
};

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("StatsReporter puts the shard's stats every turn, the first at once") {
  Puts puts;
  std::atomic<int> taken{0};
  const auto stats = [&taken] {
    ++taken;
    ShardStats s;
    s.tables.push_back({"experience", 3, 10, 3, 0, 0, 0, 0.0});
    return s;
  };
  const auto before = unix_ms_now();
  {
    StatsReporter reporter("replay/stats/replay.0", stats, puts.put(), puts.logger(), 20ms);
    REQUIRE(puts.wait_for(3));
  }
  const auto after = puts.count();
  std::this_thread::sleep_for(60ms);
  CHECK(puts.count() == after);  // stopped with the reporter
  std::lock_guard lock(puts.mutex);
  CHECK(puts.sent[0].first == "replay/stats/replay.0");
  const auto document = nlohmann::json::parse(puts.sent[0].second);
  CHECK(document["tables"][0]["name"] == "experience");
  CHECK(document["tables"][0]["inserted_total"] == 3);
  CHECK(document["unix_ms"].get<std::int64_t>() >= before);
  CHECK(puts.log.empty());
}

TEST_CASE("StatsReporter keeps one put in flight and says a failed put once") {
  Puts puts;
  puts.answer = false;
  StatsReporter reporter("replay/stats/replay.1", [] { return ShardStats{}; }, puts.put(), puts.logger(), 10ms);
  REQUIRE(puts.wait_for(1));
  std::this_thread::sleep_for(60ms);
  CHECK(puts.count() == 1);  // unanswered: no other put
  StatsReporter::Done first;
  {
    std::lock_guard lock(puts.mutex);
    first = puts.unanswered.at(0);
    puts.answer = true;
    puts.ok = false;
  }
  first(false, "connection lost");
  REQUIRE(puts.wait_for(4));  // tried again, and again
  std::lock_guard lock(puts.mutex);
  REQUIRE(puts.log.size() == 1);
  CHECK(puts.log[0] == "cannot put replay/stats/replay.1 (connection lost); the shard serves on, its tables are "
                       "not shown until a put succeeds");
}

TEST_CASE("Server::stats gives its tables and the time of the checkpoint last written or loaded") {
  slipway::base::ScratchDir scratch(slipway::base::scratch_temp_base(), "slipway-test-replay", "a replay stats test");
  const ServerConfig config = parse_config(R"({"tables":[{"name":"t","kind":"table","max_size":100}]})");
  const ServerIdentity identity{"replay", 0, 0, scratch.path()};
  std::int64_t written = 0;
  {
    Server server(config, identity, [](const std::string&) {});
    ShardStats stats = server.stats();
    REQUIRE(stats.tables.size() == 1);
    CHECK(stats.tables[0].name == "t");
    CHECK(stats.tables[0].max_size == 100);
    CHECK_FALSE(stats.last_checkpoint_unix_ms);
    const auto before = unix_ms_now();
    server.checkpoint_now();
    stats = server.stats();
    REQUIRE(stats.last_checkpoint_unix_ms);
    written = *stats.last_checkpoint_unix_ms;
    CHECK(written >= before);
    CHECK(written <= unix_ms_now());
  }
  Server loaded(config, identity, [](const std::string&) {});
  const auto stats = loaded.stats();
  REQUIRE(stats.last_checkpoint_unix_ms);
  CHECK(std::llabs(*stats.last_checkpoint_unix_ms - written) < 1000);  // the file's time
}
