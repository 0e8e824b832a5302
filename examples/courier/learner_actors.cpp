// courier example in C++: a learner serves its weights to actors over
// courier RPC, and actors report their episode returns back one-way.
//
//   slipway-courier-example learner [--steps N]   (node "learner")
//   slipway-courier-example actor                 (node "actor", replicas N)
//
// The learner publishes itself as learner.0; each actor publishes itself too
// (so the learner can ask every actor for its episode count at the end,
// through resolve_all) and resolves "learner" by name. Weights are 1 MiB of
// floats: UCX moves them with its rendezvous protocol (zero-copy where the
// transport can). The learner finishes after --steps updates, once every
// actor has run an episode (one that started late is waited for, at most
// 30 s); the actors are daemons that slipway stops then.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "slipway/channels/endpoint.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/channels/typed.hpp"

using namespace slipway::channels;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kWeights = 256 * 1024;  // 1 MiB of floats

int learner(int steps) {
  // What the handlers use is declared before the endpoint: handlers may run
  // until the endpoint is closed (or destroyed, which happens first).
  std::mutex mutex;
  std::vector<float> weights(kWeights, 0.0f);
  std::uint64_t version = 0;
  std::vector<double> returns;
  Endpoint endpoint({}, RendezvousDirectory::from_environment());
  define<std::vector<float>, std::uint64_t>(endpoint, "get_weights", [&](std::uint64_t) {
    std::lock_guard lock(mutex);
    return weights;
  });
  define<std::uint64_t, double>(endpoint, "report", [&](double episode_return) {
    std::lock_guard lock(mutex);
    returns.push_back(episode_return);
    if (returns.size() % 4 == 0) {  // one update per 4 episodes
      double mean = std::accumulate(returns.end() - 4, returns.end(), 0.0) / 4;
      for (auto& w : weights) w += static_cast<float>(0.1 * (1.0 - mean));
      ++version;
    }
    return version;
  });
  endpoint.publish();
  std::printf("learner: serving get_weights (%zu floats) and report\n", kWeights);
  std::fflush(stdout);
  for (;;) {
    {
      std::lock_guard lock(mutex);
      if (version >= static_cast<std::uint64_t>(steps)) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  // Ask every actor how many episodes it ran (they serve too). The updates
  // may come from the actors that started first: one that has run none yet
  // is asked again until it has, while this endpoint still serves its
  // reports.
  std::uint64_t total = 0;
  auto actors = endpoint.resolve_all("actor", 30s);
  const auto patience = std::chrono::steady_clock::now() + 30s;
  for (const auto& actor : actors) {
    std::uint64_t episodes = 0;
    while ((episodes = call<std::uint64_t>(actor, "episodes", std::uint8_t{0}, 10s)) == 0 &&
           std::chrono::steady_clock::now() < patience) {
      std::this_thread::sleep_for(20ms);
    }
    std::printf("learner: %s ran %llu episodes\n", actor.name().c_str(),
                static_cast<unsigned long long>(episodes));
    total += episodes;
  }
  endpoint.close();  // no handler runs after this
  std::printf("learner: done after %llu updates, weight %.3f, %llu episodes from %zu actors\n",
              static_cast<unsigned long long>(version), static_cast<double>(weights[0]),
              static_cast<unsigned long long>(total), actors.size());
  return total > 0 ? 0 : 1;
}

int actor() {
  std::atomic<std::uint64_t> episodes{0};
  Endpoint endpoint({}, RendezvousDirectory::from_environment());
  define<std::uint64_t, std::uint8_t>(endpoint, "episodes", [&](std::uint8_t) {
    return episodes.load();
  });
  endpoint.publish();
  Handle learner = endpoint.resolve("learner");
  std::mt19937 rng(static_cast<unsigned>(std::atoi(std::getenv("SLIPWAY_REPLICA"))));
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uint64_t version = 0;
  for (;;) {  // until slipway stops this daemon
    try {
      auto weights = call_async<std::vector<float>>(learner, "get_weights", version, 30s).get();
      double episode_return = static_cast<double>(weights[0]) + noise(rng);
      version = call<std::uint64_t>(learner, "report", episode_return, 30s);
      episodes++;
    } catch (const ChannelError& e) {
      std::printf("actor: %s (%s); retrying\n", e.what(), std::string(to_string(e.code())).c_str());
      std::fflush(stdout);
      std::this_thread::sleep_for(200ms);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string role = argc > 1 ? argv[1] : "";
  try {
    if (role == "learner") {
      int steps = argc > 3 && std::string(argv[2]) == "--steps" ? std::atoi(argv[3]) : 20;
      return learner(steps);
    }
    if (role == "actor") return actor();
  } catch (const ChannelError& e) {
    std::fprintf(stderr, "%s: %s\n", role.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: slipway-courier-example learner [--steps N] | actor\n");
  return 2;
}
