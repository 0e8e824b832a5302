// The agent's usage/NODE.REPLICA puts (node_types/exec/usage_publisher.hpp)
// over a fake /proc and a recording put: when a put is due (a change, or
// the refresh), one in flight at a time, a failed put said once and tried
// again, a put that throws, and nothing more once the command has exited.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fake_proc.hpp"
#include "slipway/exec/usage_publisher.hpp"

using namespace slipway::exec;
using namespace std::chrono_literals;
using node_types_test::FakeProc;
using node_types_test::stat_line;

namespace {

struct Recorder {
  struct Sent {
    std::string key, value;
    UsagePublisher::Done done;
  };
  std::vector<Sent> sent;
  bool answer_at_once = true;
  bool throws = false;

  UsagePublisher::Put put() {
    return [this](const std::string& key, const std::string& value, UsagePublisher::Done done) {
      if (throws) throw std::runtime_error("lost the connection to the rendezvous");
      sent.push_back({key, value, done});
      if (answer_at_once) done(true, "");
    };
  }
};

struct Fixture {
  FakeProc proc;
  Recorder recorder;
  std::vector<std::string> log;
  UsagePublisher publisher{proc, UsagePublisher::Options{}, [this](const std::string& line) { log.push_back(line); }};
  UsagePublisher::Clock::time_point t0 = UsagePublisher::Clock::time_point{} + 1h;

  void set_cpu(std::uint64_t ticks, std::int64_t rss_pages = 100) {
    proc.stats[42] = stat_line(42, "train", 'R', ticks, 0, 0, 0, 1, rss_pages);
  }
  std::vector<UsagePublisher::Task> tasks() { return {{"learner.0", 42, recorder.put()}}; }
  void sample_at(std::chrono::milliseconds after) { publisher.sample(t0 + after, 1000 + after.count(), tasks()); }
};

}  // namespace

TEST_CASE("UsagePublisher puts usage/NODE.REPLICA with the tree's usage") {
  Fixture f;
  f.set_cpu(250, 10);
  f.sample_at(0ms);
  REQUIRE(f.recorder.sent.size() == 1);
  CHECK(f.recorder.sent[0].key == "usage/learner.0");
  const auto document = nlohmann::json::parse(f.recorder.sent[0].value);
  CHECK(document["cpu_seconds"].get<double>() == Approx(2.5));
  CHECK(document["rss_bytes"] == 10 * 4096);
  CHECK(document["processes"] == 1);
  CHECK(document["unix_ms"] == 1000);
  CHECK(f.publisher.next_sample() == f.t0 + 2s);
}

TEST_CASE("UsagePublisher puts when the usage changed, else once per refresh") {
  Fixture f;
  f.set_cpu(250);
  f.sample_at(0ms);
  f.sample_at(2000ms);  // unchanged: nothing
  f.sample_at(4000ms);
  CHECK(f.recorder.sent.size() == 1);
  f.set_cpu(260);
  f.sample_at(6000ms);  // changed
  CHECK(f.recorder.sent.size() == 2);
  f.sample_at(8000ms);
  f.sample_at(14000ms);
  CHECK(f.recorder.sent.size() == 2);
  f.sample_at(16000ms);  // 10 s after the last put
  CHECK(f.recorder.sent.size() == 3);
  f.set_cpu(260, 200);  // memory alone changed
  f.sample_at(18000ms);
  CHECK(f.recorder.sent.size() == 4);
}

TEST_CASE("UsagePublisher keeps one put of a task in flight") {
  Fixture f;
  f.recorder.answer_at_once = false;
  f.set_cpu(1);
  f.sample_at(0ms);
  f.set_cpu(2);
  f.sample_at(2000ms);  // the first is not answered yet
  REQUIRE(f.recorder.sent.size() == 1);
  f.recorder.sent[0].done(true, "");
  f.sample_at(4000ms);
  CHECK(f.recorder.sent.size() == 2);
  CHECK(nlohmann::json::parse(f.recorder.sent[1].value)["cpu_seconds"].get<double>() == Approx(0.02));
}

TEST_CASE("UsagePublisher: a failed put is said once, tried again, and the task goes on") {
  Fixture f;
  f.recorder.answer_at_once = false;
  f.set_cpu(1);
  f.sample_at(0ms);
  f.recorder.sent[0].done(false, "connection lost");
  f.sample_at(2000ms);  // the same usage, put again: the last one failed
  REQUIRE(f.recorder.sent.size() == 2);
  REQUIRE(f.log.size() == 1);
  CHECK(f.log[0].find("learner.0: slipway-exec: cannot put usage/learner.0 (connection lost)") == 0);
  f.recorder.sent[1].done(false, "connection lost");
  f.sample_at(4000ms);
  CHECK(f.recorder.sent.size() == 3);
  CHECK(f.log.size() == 1);  // said once

  Fixture thrown;
  thrown.recorder.throws = true;
  thrown.set_cpu(1);
  thrown.sample_at(0ms);  // does not throw
  thrown.sample_at(2000ms);
  REQUIRE(thrown.log.size() == 1);
  CHECK(thrown.log[0].find("lost the connection to the rendezvous") != std::string::npos);
  thrown.recorder.throws = false;
  thrown.sample_at(4000ms);
  CHECK(thrown.recorder.sent.size() == 1);
}

TEST_CASE("UsagePublisher puts nothing for a command that exited, nor for one gone from /proc") {
  Fixture f;
  f.set_cpu(1);
  f.sample_at(0ms);
  REQUIRE(f.recorder.sent.size() == 1);
  f.publisher.sample(f.t0 + 2s, 3000, {});  // the command exited: no longer given
  f.set_cpu(5);
  f.publisher.sample(f.t0 + 20s, 21000, {});
  CHECK(f.recorder.sent.size() == 1);
  f.proc.stats.clear();  // given, but already gone
  f.sample_at(30000ms);
  CHECK(f.recorder.sent.size() == 1);
  CHECK(f.log.empty());
}
