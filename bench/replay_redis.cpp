// The Redis side of `slipway-bench replay`: Debian's redis-server used as the
// replay buffer the way open Ape-X style code uses it, pipelined.
//
// What open implementations do (looked up with the search tool, 2026-11):
// - neka-nat/distributed_rl (Ape-X, R2D2): actors RPUSH serialized batches
//   onto the list "experience"; a thread of the learner drains the list with
//   one pipeline of LRANGE 0 -1 + LTRIM into an in-process prioritized
//   memory, and samples there: Redis only carries the data, it holds no
//   replay and serves no sample.
// - a `RedisReplay` class of a public DQN code base (the index did not name
//   the repository): the replay lives in Redis: `mpush` = LPUSH of the items
//   then LTRIM 0 limit; `sample(k)` = LLEN, then LINDEX at k uniform random
//   indexes below it.
// The benchmark compares replay *services* (the learner samples from the
// service, as it does from slipway's replay node), so it uses the second
// pattern, pipelined as issue 15 asks:
// - an actor's insert batch = LPUSH replay item*64 + LTRIM replay 0 CAP-1 in
//   one write; 8 batches (16 commands) in flight on its connection;
// - a learner's sample = 32 LINDEX replay I (I uniform in [0, LEN), LEN the
//   last LLEN seen) + one LLEN to refresh LEN, in one write; 4 samples in
//   flight (the learner of every service keeps 4 in flight).
// An item that LINDEX finds gone (nil: trimmed meanwhile, or an index past
// the list while it fills) is not counted.
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "replay_load.hpp"
#include "resp_client.hpp"
#include "tcp_stream.hpp"

namespace slipway::bench {
namespace {

constexpr std::string_view kList = "replay";

void expect_ok(const RespReply& r, const char* what) {
  if (r.type == '-') throw std::runtime_error(std::string("redis: ") + what + ": " + r.text);
}

}  // namespace

RoleResult redis_actor(const std::string& address, const ReplayLoad& load, const LoadWindow& w, int id) {
  const auto [host, port] = split_host_port(address);
  RespConnection redis(host, port);
  const std::string trim_to = std::to_string(load.capacity - 1);
  std::vector<std::string> items(static_cast<std::size_t>(load.batch));
  std::vector<std::string_view> push;
  std::uint64_t number = 0;
  Pipeline p;
  p.add = [&] {
    push = {"LPUSH", kList};
    for (auto& item : items) {
      item = replay_item(load.item_bytes, id, number++);
      push.push_back(item);
    }
    redis.append(push);
    redis.append({"LTRIM", kList, "0", trim_to});
  };
  p.send = [&] { redis.flush(); };
  p.complete = [&]() -> std::uint64_t {
    expect_ok(redis.read(), "LPUSH");
    expect_ok(redis.read(), "LTRIM");
    return static_cast<std::uint64_t>(load.batch);
  };
  return run_pipeline(w, load.in_flight, p);
}

RoleResult redis_learner(const std::string& address, const ReplayLoad& load, const LoadWindow& w) {
  const auto [host, port] = split_host_port(address);
  RespConnection redis(host, port);
  std::mt19937_64 rng(std::random_device{}());
  std::int64_t length = 0;
  Pipeline p;
  p.add = [&] {
    std::uniform_int_distribution<std::int64_t> pick(0, std::max<std::int64_t>(length, 1) - 1);
    for (int i = 0; i < load.sample_n; ++i) {
      const std::string index = std::to_string(pick(rng));
      redis.append({"LINDEX", kList, index});
    }
    redis.append({"LLEN", kList});
  };
  p.send = [&] { redis.flush(); };
  p.complete = [&]() -> std::uint64_t {
    std::uint64_t found = 0;
    for (int i = 0; i < load.sample_n; ++i) {
      const RespReply r = redis.read();
      expect_ok(r, "LINDEX");
      if (!r.nil && r.text.size() == load.item_bytes) ++found;
    }
    const RespReply len = redis.read();
    expect_ok(len, "LLEN");
    length = len.integer;
    return found;
  };
  return run_pipeline(w, load.sample_in_flight, p);
}

}  // namespace slipway::bench
