// slipway-bench replay: a replay service under an Ape-X style load, side by
// side on three services (issue 15): slipway's replay node (slipway-replay,
// one shard, a uniform table), Debian's redis-server (pipelined, the pattern
// of open Ape-X code: bench/replay_redis.cpp says which and why), and the
// first actor_learner example's JSON-lines server (bench/json_replay.py).
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
//   slipway-bench replay [--rounds 3] [--seconds 4] [--actors 8]
//                        [--capacity 100000] [--services slipway,redis,json]
//                        [--tls tcp] [--sample-in-flight 4]
//
// slipway's side runs over UCX_TLS=tcp unless --tls says otherwise (""
// leaves UCX's choice), on the loopback like its two peers. On this 2-core
// machine UCX 1.13's shared-memory transports (posix, sysv, with cma) fall
// to about a tenth of that once 8 actors and the learner share the cores
// with the server (13k inserts/s and 450 samples/s against 123k and 21k
// over tcp, measured 2026-11-26): docs/channels.md says why (a sender whose
// shared-memory queue is full is not woken).
//
// Last line: replay: insert_per_s=I redis_insert_per_s=RI insert_speedup=I/RI
// sample_per_s=S redis_sample_per_s=RS sample_speedup=S/RS json_insert_per_s=JI
// json_sample_per_s=JS json_insert_speedup=I/JI json_sample_speedup=S/JS
// (a service that is missing or fails reads n/a, with a loud stderr line).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
#include "replay_services.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Options {
  ReplayLoad load;
  int actors = 8;
  int rounds = 3;
  double seconds = 4.0;
  std::vector<std::string> services = {"slipway", "redis", "json"};
  std::string tls = "tcp";  // UCX_TLS of slipway's side ("": UCX's choice)
};

struct Rates {
  double insert = 0;
  double sample = 0;
};

// One load process, its stdout on a pipe.
struct RoleProcess {
  pid_t pid = -1;
  base::UniqueFd out;
  std::string who;
};

RoleProcess spawn_role(const RoleSpec& spec, const std::vector<std::string>& extra_env) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  base::UniqueFd read_end(fds[0]), write_end(fds[1]);
  base::SpawnOptions options;
  options.argv = {"/proc/self/exe", "replay"};
  for (auto& a : role_arguments(spec)) options.argv.push_back(std::move(a));
  options.env = environment_with(extra_env);
  options.stdout_fd = write_end.get();
  options.new_process_group = false;
  RoleProcess p;
  p.pid = base::spawn(options);
  p.out = std::move(read_end);
  p.who = spec.service + (spec.learner ? " learner" : " actor " + std::to_string(spec.id));
  return p;
}

RoleResult collect(RoleProcess& p) {
  std::string text;
  char chunk[256];
  for (ssize_t n; (n = ::read(p.out.get(), chunk, sizeof chunk)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
  const base::ExitStatus status = base::wait_for(p.pid);
  RoleResult r;
  // The figures are the role's last line (UCX may have written warnings
  // to stdout before it).
  const std::size_t last = text.rfind("items=");
  if (!status.success() || last == std::string::npos ||
      std::sscanf(text.c_str() + last, "items=%" SCNu64 " requests=%" SCNu64, &r.items, &r.requests) != 2) {
    throw std::runtime_error("the " + p.who + " " + status.describe() + " (its output: '" + text + "')");
  }
  return r;
}

// One round on one service: the actors and the learner at once.
Rates run_round(const std::string& name, const ReplayService& service, const Options& o, double seconds) {
  LoadWindow w;
  w.start = Clock::now() + 1500ms;  // time to start and connect
  w.from = w.start + 1s;            // a second of load before the count starts
  w.to = w.from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<RoleProcess> roles;
  const auto env = service.role_env();
  for (int i = 0; i <= o.actors; ++i) {
    RoleSpec spec;
    spec.learner = i == o.actors;
    spec.service = name;
    spec.address = service.address();
    spec.id = i;
    spec.window = w;
    spec.load = o.load;
    roles.push_back(spawn_role(spec, env));
  }
  Rates rates;
  std::string failure;
  for (auto& role : roles) {
    try {
      const RoleResult r = collect(role);
      (role.who.find("learner") != std::string::npos ? rates.sample : rates.insert) += static_cast<double>(r.items);
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) throw std::runtime_error(failure);
  rates.insert /= seconds;
  rates.sample /= seconds;
  return rates;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string figure(double v) { return v > 0 ? std::to_string(static_cast<long long>(v + 0.5)) : "n/a"; }

std::string ratio(double a, double b) {
  if (a <= 0 || b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", a / b);
  return buf;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: slipway-bench replay [--rounds N] [--seconds S] [--actors N] [--capacity N] "
               "[--services slipway,redis,json] [--tls UCX_TLS] [--sample-in-flight N]\n");
  return 2;
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
    } else if (args[i] == "--actors") {
      o.actors = std::max(1, std::stoi(value));
    } else if (args[i] == "--capacity") {
      o.load.capacity = std::max<std::uint64_t>(1024, std::stoull(value));
    } else if (args[i] == "--services") {
      o.services = split(value);
    } else if (args[i] == "--tls") {
      o.tls = value;
    } else if (args[i] == "--sample-in-flight") {
      o.load.sample_in_flight = std::max(1, std::stoi(value));
    } else {
      return usage();
    }
    ++i;
  }
  using Starter = std::function<std::unique_ptr<ReplayService>()>;
  const std::map<std::string, Starter> starters = {
      {"slipway", [&] { return start_slipway(o.load.capacity, o.tls); }},
      {"redis", [&] { return start_redis(o.load.capacity); }},
      {"json", [&] { return start_json(o.load.capacity); }}};
  std::printf("replay: %d actor processes insert %zu-byte items (batches of %d, %d in flight each) while 1 learner "
              "samples %d uniformly (%d in flight); services hold %" PRIu64 " items; %d rounds of %.1f s per "
              "service, alternating, after one untimed round each; medians; slipway over UCX_TLS=%s\n",
              o.actors, o.load.item_bytes, o.load.batch, o.load.in_flight, o.load.sample_n, o.load.sample_in_flight,
              o.load.capacity, o.rounds, o.seconds, o.tls.empty() ? "(UCX's choice)" : o.tls.c_str());
  std::fflush(stdout);

  std::map<std::string, std::unique_ptr<ReplayService>> running;
  for (const auto& name : o.services) {
    const auto it = starters.find(name);
    if (it == starters.end()) {
      std::fprintf(stderr, "replay: unknown service '%s' (slipway, redis, json)\n", name.c_str());
      return 2;
    }
    try {
      running[name] = it->second();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "\n*** replay: %s: %s; its figures read n/a ***\n\n", name.c_str(), e.what());
    }
  }
  std::map<std::string, std::vector<Rates>> rounds;
  for (int round = -1; round < o.rounds; ++round) {
    for (const auto& name : o.services) {
      auto it = running.find(name);
      if (it == running.end()) continue;
      try {
        const Rates r = run_round(name, *it->second, o, round < 0 ? 1.0 : o.seconds);
        if (round < 0) continue;
        rounds[name].push_back(r);
        std::printf("  round %d %-8s insert %10.0f items/s   sample %10.0f items/s\n", round + 1, name.c_str(),
                    r.insert, r.sample);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "\n*** replay: %s failed: %s; its figures read n/a ***\n\n", name.c_str(), e.what());
        running.erase(it);
        rounds.erase(name);
      }
    }
  }
  running.clear();

  std::map<std::string, Rates> best;
  for (const auto& [name, list] : rounds) {
    std::vector<double> inserts, samples;
    for (const auto& r : list) {
      inserts.push_back(r.insert);
      samples.push_back(r.sample);
    }
    best[name] = {median(inserts), median(samples)};
  }
  std::printf("%-10s %16s %16s\n", "service", "insert items/s", "sample items/s");
  for (const auto& name : o.services) {
    const Rates r = best.count(name) ? best[name] : Rates{};
    std::printf("%-10s %16s %16s\n", name.c_str(), figure(r.insert).c_str(), figure(r.sample).c_str());
  }
  const Rates s = best["slipway"], redis = best["redis"], json = best["json"];
  std::printf("replay: insert_per_s=%s redis_insert_per_s=%s insert_speedup=%s sample_per_s=%s redis_sample_per_s=%s "
              "sample_speedup=%s json_insert_per_s=%s json_sample_per_s=%s json_insert_speedup=%s "
              "json_sample_speedup=%s\n",
              figure(s.insert).c_str(), figure(redis.insert).c_str(), ratio(s.insert, redis.insert).c_str(),
              figure(s.sample).c_str(), figure(redis.sample).c_str(), ratio(s.sample, redis.sample).c_str(),
              figure(json.insert).c_str(), figure(json.sample).c_str(), ratio(s.insert, json.insert).c_str(),
              ratio(s.sample, json.sample).c_str());
  return 0;
}

}  // namespace

SLIPWAY_BENCHMARK("replay",
                  "8 actors insert and 1 learner samples at once: slipway-replay vs Redis (pipelined) and the "
                  "example's JSON replay",
                  [](const std::vector<std::string>& args) {
                    try {
                      return run(args);
                    } catch (const std::exception& e) {
                      std::fprintf(stderr, "replay: %s\n", e.what());
                      return 1;
                    }
                  });

}  // namespace slipway::bench
