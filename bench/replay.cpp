// slipway-bench replay: a replay service under an Ape-X style load, side by
// side on three services (issue 15), measured per item of CPU as well as
// per second (issue 30): slipway's replay node (slipway-replay, one shard, a
// uniform table; over TCP, and over UCX shared memory), Debian's
// redis-server (pipelined, the pattern of open Ape-X code:
// bench/replay_redis.cpp says which and why), the first actor_learner
// example's JSON-lines server (bench/json_replay.py), and a slipway queue
// of 40 KiB items.
//
// The load (replay_load.hpp), the same on each: 8 actor processes insert
// 1 KiB items in batches of 64 with 8 batches in flight each, while one
// learner process samples 32 items uniformly with 4 requests in flight.
// Each service is started once, in processes of its own, with room for
// 100,000 items (the oldest go first); rounds alternate between the
// services (one short untimed round each to fill them, then --rounds timed
// rounds of --seconds), and each figure is the median of its timed rounds:
// items inserted per second (all actors together) and items sampled per
// second (the learner), counted over the same window while both run.
//
// CPU (replay_cpu.hpp: utime + stime of /proc/PID/stat over the window):
// - in the rounds above (mixed), every process of the round (the server,
//   the 9 load processes and this one) ÷ the items inserted and sampled:
//   total_cpu_us_per_item; the server's alone ÷ the same items:
//   shard_cpu_us_per_item and redis_cpu_us_per_item;
// - in two more rounds of --cpu-seconds each on slipway (TCP) and Redis,
//   one with only the actors and one with only the learner, the server's
//   CPU ÷ the items inserted (shard_cpu_us_per_insert) and ÷ the items
//   sampled (shard_cpu_us_per_sample); the same for Redis, as information.
// - switches_per_call: the load processes' context switches (voluntary and
//   not) ÷ the calls they completed, in the mixed rounds.
//
// The queue: a `kind = "queue"` table of 1024 items on its own slipway
// shard; one producer process appends 40 KiB items (a Writer: 16 items per
// insert call, 4 calls in flight) while one consumer process takes 32 at a
// time (one call at a time: a queue's Sampler prefetches nothing) and
// checks that every item is whole and comes in order; in and out per second.
//
//   slipway-bench replay [--rounds 3] [--seconds 4] [--cpu-seconds 3] [--actors 8]
//                        [--capacity 100000] [--services slipway,shm,redis,json,queue]
//                        [--tls tcp] [--shm-tls posix,cma] [--sample-in-flight 4]
//
// slipway's side runs over UCX_TLS=tcp unless --tls says otherwise (""
// leaves UCX's choice), on the loopback like its two peers (the courier's
// own TCP transport, docs/channels.md); `shm` is the same load over
// --shm-tls; the queue goes over --tls.
//
// Last line: replay: insert_per_s=I redis_insert_per_s=RI insert_speedup=I/RI
// sample_per_s=S redis_sample_per_s=RS sample_speedup=S/RS json_insert_per_s=JI
// json_sample_per_s=JS json_insert_speedup=I/JI json_sample_speedup=S/JS
// shm_insert_per_s shm_sample_per_s shard_cpu_us_per_insert shard_cpu_us_per_sample
// shard_cpu_us_per_item redis_cpu_us_per_insert redis_cpu_us_per_sample
// redis_cpu_us_per_item total_cpu_us_per_item redis_total_cpu_us_per_item
// total_cpu_ratio switches_per_call redis_switches_per_call queue_40k_in_per_s
// queue_40k_out_per_s (a service that is missing or fails reads n/a, with a
// loud stderr line).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "replay_roles.hpp"
#include "replay_round.hpp"
#include "replay_services.hpp"

namespace slipway::bench {
namespace {

struct Options {
  ReplayLoad load;
  ReplayLoad queue;  // the queue's load (set in run())
  int actors = 8;
  int rounds = 3;
  double seconds = 4.0;
  double cpu_seconds = 3.0;
  std::vector<std::string> services = {"slipway", "shm", "redis", "json", "queue"};
  std::string tls = "tcp";          // UCX_TLS of slipway's side ("": UCX's choice)
  std::string shm_tls = "posix,cma";  // of the `shm` service
};

// The services whose server CPU is also measured per insert and per sample.
bool split_cpu(const std::string& service) { return service == "slipway" || service == "redis"; }

std::string role_service(const std::string& service) {
  return service == "redis" || service == "json" ? service : "slipway";
}

const char* phase_name(Phase phase) {
  return phase == Phase::mixed ? "mixed" : phase == Phase::inserts ? "inserts" : "samples";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string figure(double v) { return v > 0 ? std::to_string(static_cast<long long>(v + 0.5)) : "n/a"; }

std::string fixed2(double v) {
  if (v <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string ratio(double a, double b) { return a > 0 && b > 0 ? fixed2(a / b) : "n/a"; }

double per_item_us(double cpu_seconds, std::uint64_t items) {
  return items > 0 ? cpu_seconds * 1e6 / static_cast<double>(items) : 0;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: slipway-bench replay [--rounds N] [--seconds S] [--cpu-seconds S] [--actors N] [--capacity N] "
               "[--services slipway,shm,redis,json,queue] [--tls UCX_TLS] [--shm-tls UCX_TLS] "
               "[--sample-in-flight N]\n");
  return 2;
}

// The medians of one service's rounds of one phase.
struct Summary {
  double insert = 0, sample = 0;  // items/s
  double server_us_per_item = 0;  // the server's CPU ÷ items inserted and sampled
  double total_us_per_item = 0;   // every process's
  double server_us_per_insert = 0, server_us_per_sample = 0;
  double switches_per_call = 0;
};

Summary summarize(const std::vector<RoundResult>& list) {
  std::vector<double> inserts, samples, server, total, per_insert, per_sample, switches;
  for (const auto& r : list) {
    inserts.push_back(r.insert_rate());
    samples.push_back(r.sample_rate());
    server.push_back(per_item_us(r.server_cpu, r.inserted + r.sampled));
    total.push_back(per_item_us(r.total_cpu, r.inserted + r.sampled));
    per_insert.push_back(per_item_us(r.server_cpu, r.inserted));
    per_sample.push_back(per_item_us(r.server_cpu, r.sampled));
    switches.push_back(r.requests > 0 ? static_cast<double>(r.role_switches) / static_cast<double>(r.requests) : 0);
  }
  return {median(inserts), median(samples), median(server),    median(total),
          median(per_insert), median(per_sample), median(switches)};
}

int run(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "--role") return role_main(args);
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i + 1 >= args.size()) return usage();
    const std::string& value = args[i + 1];
    if (args[i] == "--rounds") {
      o.rounds = std::max(1, std::stoi(value));
    } else if (args[i] == "--seconds") {
      o.seconds = std::max(0.5, std::stod(value));
    } else if (args[i] == "--cpu-seconds") {
      o.cpu_seconds = std::max(0.5, std::stod(value));
    } else if (args[i] == "--actors") {
      o.actors = std::max(1, std::stoi(value));
    } else if (args[i] == "--capacity") {
      o.load.capacity = std::max<std::uint64_t>(1024, std::stoull(value));
    } else if (args[i] == "--services") {
      o.services = split(value);
    } else if (args[i] == "--tls") {
      o.tls = value;
    } else if (args[i] == "--shm-tls") {
      o.shm_tls = value;
    } else if (args[i] == "--sample-in-flight") {
      o.load.sample_in_flight = std::max(1, std::stoi(value));
    } else {
      return usage();
    }
    ++i;
  }
  o.queue.item_bytes = 40 * 1024;
  o.queue.batch = 16;
  o.queue.in_flight = 4;
  o.queue.sample_n = 32;
  o.queue.sample_in_flight = 1;
  o.queue.capacity = 1024;
  o.queue.in_order = true;

  using Starter = std::function<std::unique_ptr<ReplayService>()>;
  const std::map<std::string, Starter> starters = {
      {"slipway", [&] { return start_slipway(o.load.capacity, o.tls); }},
      {"shm", [&] { return start_slipway(o.load.capacity, o.shm_tls); }},
      {"redis", [&] { return start_redis(o.load.capacity); }},
      {"json", [&] { return start_json(o.load.capacity); }},
      {"queue", [&] { return start_slipway_queue(o.queue.capacity, o.tls); }}};
  std::printf("replay: %d actor processes insert %zu-byte items (batches of %d, %d in flight each) while 1 learner "
              "samples %d uniformly (%d in flight); services hold %" PRIu64 " items; %d rounds of %.1f s per "
              "service, alternating, after one untimed round each, and rounds of %.1f s of inserts alone and of "
              "samples alone on slipway and redis; medians; slipway over UCX_TLS=%s, shm over UCX_TLS=%s; the queue: "
              "1 producer of %zu-byte items (batches of %d, %d in flight), 1 consumer taking %d at a time, %" PRIu64
              " items at most\n",
              o.actors, o.load.item_bytes, o.load.batch, o.load.in_flight, o.load.sample_n, o.load.sample_in_flight,
              o.load.capacity, o.rounds, o.seconds, o.cpu_seconds, o.tls.empty() ? "(UCX's choice)" : o.tls.c_str(),
              o.shm_tls.empty() ? "(UCX's choice)" : o.shm_tls.c_str(), o.queue.item_bytes, o.queue.batch,
              o.queue.in_flight, o.queue.sample_n, o.queue.capacity);
  std::fflush(stdout);

  std::map<std::string, std::unique_ptr<ReplayService>> running;
  for (const auto& name : o.services) {
    const auto it = starters.find(name);
    if (it == starters.end()) {
      std::fprintf(stderr, "replay: unknown service '%s' (slipway, shm, redis, json, queue)\n", name.c_str());
      return 2;
    }
    try {
      running[name] = it->second();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "\n*** replay: %s: %s; its figures read n/a ***\n\n", name.c_str(), e.what());
    }
  }
  // The order of one round: every service's load, then the CPU rounds.
  std::vector<std::pair<std::string, Phase>> turns;
  for (const auto& name : o.services) turns.emplace_back(name, Phase::mixed);
  for (const Phase phase : {Phase::inserts, Phase::samples}) {
    for (const auto& name : o.services) {
      if (split_cpu(name)) turns.emplace_back(name, phase);
    }
  }
  std::map<std::string, std::map<Phase, std::vector<RoundResult>>> rounds;
  for (int round = -1; round < o.rounds; ++round) {
    for (const auto& [name, phase] : turns) {
      auto it = running.find(name);
      if (it == running.end() || (round < 0 && phase != Phase::mixed)) continue;
      RoundSpec spec;
      spec.role_service = role_service(name);
      spec.load = name == "queue" ? o.queue : o.load;
      spec.actors = name == "queue" ? 1 : o.actors;
      spec.first_actor_id = name == "queue" ? round + 1 : 0;  // the queue's order check needs them growing
      spec.phase = phase;
      spec.seconds = round < 0 ? 1.0 : phase == Phase::mixed ? o.seconds : o.cpu_seconds;
      try {
        const RoundResult r = run_round(*it->second, spec);
        if (round < 0) continue;
        rounds[name][phase].push_back(r);
        const std::uint64_t items = r.inserted + r.sampled;
        std::printf("  round %d %-8s %-8s insert %9.0f/s  sample %9.0f/s  server %6.2f us/item  all %6.2f us/item  "
                    "%5.2f switches/call\n",
                    round + 1, name.c_str(), phase_name(phase), r.insert_rate(), r.sample_rate(),
                    per_item_us(r.server_cpu, items), per_item_us(r.total_cpu, items),
                    r.requests > 0 ? static_cast<double>(r.role_switches) / static_cast<double>(r.requests) : 0.0);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "\n*** replay: %s failed: %s; its figures read n/a ***\n\n", name.c_str(), e.what());
        running.erase(it);
        rounds.erase(name);
      }
    }
  }
  running.clear();

  std::map<std::string, std::map<Phase, Summary>> best;
  for (const auto& [name, phases] : rounds) {
    for (const auto& [phase, list] : phases) best[name][phase] = summarize(list);
  }
  const auto get = [&](const std::string& name, Phase phase) {
    const auto s = best.find(name);
    if (s == best.end()) return Summary{};
    const auto p = s->second.find(phase);
    return p == s->second.end() ? Summary{} : p->second;
  };
  std::printf("%-8s %14s %14s %16s %16s %16s %14s\n", "service", "insert items/s", "sample items/s",
              "server us/item", "server us/insert", "server us/sample", "all us/item");
  for (const auto& name : o.services) {
    const Summary m = get(name, Phase::mixed);
    std::printf("%-8s %14s %14s %16s %16s %16s %14s\n", name.c_str(), figure(m.insert).c_str(),
                figure(m.sample).c_str(), fixed2(m.server_us_per_item).c_str(),
                fixed2(get(name, Phase::inserts).server_us_per_insert).c_str(),
                fixed2(get(name, Phase::samples).server_us_per_sample).c_str(), fixed2(m.total_us_per_item).c_str());
  }
  const Summary s = get("slipway", Phase::mixed), redis = get("redis", Phase::mixed), json = get("json", Phase::mixed),
                shm = get("shm", Phase::mixed), queue = get("queue", Phase::mixed);
  std::printf("replay: insert_per_s=%s redis_insert_per_s=%s insert_speedup=%s sample_per_s=%s redis_sample_per_s=%s "
              "sample_speedup=%s json_insert_per_s=%s json_sample_per_s=%s json_insert_speedup=%s "
              "json_sample_speedup=%s shm_insert_per_s=%s shm_sample_per_s=%s shard_cpu_us_per_insert=%s "
              "shard_cpu_us_per_sample=%s shard_cpu_us_per_item=%s redis_cpu_us_per_insert=%s "
              "redis_cpu_us_per_sample=%s redis_cpu_us_per_item=%s total_cpu_us_per_item=%s "
              "redis_total_cpu_us_per_item=%s total_cpu_ratio=%s switches_per_call=%s redis_switches_per_call=%s "
              "queue_40k_in_per_s=%s queue_40k_out_per_s=%s\n",
              figure(s.insert).c_str(), figure(redis.insert).c_str(), ratio(s.insert, redis.insert).c_str(),
              figure(s.sample).c_str(), figure(redis.sample).c_str(), ratio(s.sample, redis.sample).c_str(),
              figure(json.insert).c_str(), figure(json.sample).c_str(), ratio(s.insert, json.insert).c_str(),
              ratio(s.sample, json.sample).c_str(), figure(shm.insert).c_str(), figure(shm.sample).c_str(),
              fixed2(get("slipway", Phase::inserts).server_us_per_insert).c_str(),
              fixed2(get("slipway", Phase::samples).server_us_per_sample).c_str(), fixed2(s.server_us_per_item).c_str(),
              fixed2(get("redis", Phase::inserts).server_us_per_insert).c_str(),
              fixed2(get("redis", Phase::samples).server_us_per_sample).c_str(),
              fixed2(redis.server_us_per_item).c_str(), fixed2(s.total_us_per_item).c_str(),
              fixed2(redis.total_us_per_item).c_str(), ratio(s.total_us_per_item, redis.total_us_per_item).c_str(),
              fixed2(s.switches_per_call).c_str(), fixed2(redis.switches_per_call).c_str(),
              figure(queue.insert).c_str(), figure(queue.sample).c_str());
  return 0;
}

}  // namespace

SLIPWAY_BENCHMARK("replay",
                  "8 actors insert and 1 learner samples at once: slipway-replay (TCP, shared memory) vs Redis "
                  "(pipelined) and the example's JSON replay, per second and per item of CPU; a queue of 40 KiB items",
                  [](const std::vector<std::string>& args) {
                    try {
                      return run(args);
                    } catch (const std::exception& e) {
                      std::fprintf(stderr, "replay: %s\n", e.what());
                      return 1;
                    }
                  });

}  // namespace slipway::bench
