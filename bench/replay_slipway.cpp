// The slipway side of `slipway-bench replay`: slipway-replay through its C++
// client (slipway::replay, node_types/replay/include/slipway/replay/client.hpp).
// An actor is the client's Writer (batches of 64 items per insert call, 8
// calls in flight); it counts the items it appended in the window (append
// waits while 8 calls are unanswered, so in a steady state that is the rate
// at which inserts are acknowledged). The learner is the client's Sampler
// (batches of 32, 4 calls in flight over the shards; on a queue one call at
// a time). The table has the node's name. The learner counts the items of
// the right size (as the other services' learners do); for a queue
// (ReplayLoad::in_order) only whole ones (replay_item's size, head and
// filler), and it checks their order.
#include "replay_load.hpp"

#if __has_include("slipway/replay/client.hpp") && __has_include("slipway/channels/endpoint.hpp")

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "slipway/channels/endpoint.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/replay/client.hpp"

namespace slipway::bench {

RoleResult slipway_actor(const std::string& node, const ReplayLoad& load, const LoadWindow& w, int id) {
  channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
  replay::Client client(endpoint, node);
  replay::Writer writer = client.writer(node, static_cast<std::size_t>(load.in_flight),
                                        static_cast<std::size_t>(load.batch));
  std::uint64_t number = 0;
  Pipeline p;  // the Writer keeps its own calls in flight: append() waits while its window is full
  p.add = [] {};
  p.send = [] {};
  p.complete = [&]() -> std::uint64_t {
    for (int i = 0; i < load.batch; ++i) writer.append(channels::as_view(replay_item(load.item_bytes, id, number++)));
    return static_cast<std::uint64_t>(load.batch);
  };
  RoleResult out = run_pipeline(w, 1, p);
  writer.flush();
  return out;
}

RoleResult slipway_learner(const std::string& node, const ReplayLoad& load, const LoadWindow& w) {
  using namespace std::chrono;
  channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
  replay::Client client(endpoint, node);
  replay::Sampler sampler = client.sampler(node, static_cast<std::uint32_t>(load.sample_n),
                                           static_cast<std::size_t>(load.sample_in_flight));
  OrderCheck order;
  // The items of one next() that count; nullopt: a queue's sample still
  // waiting for its batch at `until`, after the window (the producer has
  // stopped).
  const auto take = [&](steady_clock::time_point until) -> std::optional<std::uint64_t> {
    std::vector<replay::Sample> items;
    try {
      items = sampler.next(std::max(duration_cast<milliseconds>(until - steady_clock::now()), milliseconds(100)));
    } catch (const replay::ReplayError& e) {
      if (e.status() == replay::Status::not_ready && w.over(steady_clock::now())) return std::nullopt;
      throw;
    }
    std::uint64_t found = 0;
    for (const auto& item : items) {
      if (!load.in_order) {
        found += item.data.size() == load.item_bytes;
        continue;
      }
      const auto id = parse_replay_item(
          std::string_view(reinterpret_cast<const char*>(item.data.data()), item.data.size()), load.item_bytes);
      if (!id) throw std::runtime_error("an item of the queue is not whole (" + std::to_string(item.data.size()) + " bytes)");
      order.next(*id);
      ++found;
    }
    return found;
  };
  Pipeline p;  // the Sampler keeps its own requests in flight: one next() at a time here
  p.add = [] {};
  p.send = [] {};
  p.complete = [&]() -> std::uint64_t { return take(w.to + seconds(2)).value_or(0); };
  RoleResult out = run_pipeline(w, 1, p);
  // A queue: take what is left (uncounted, checked), so that the producer's
  // last inserts, parked while the queue was full, go in and it can end;
  // until less than a batch stays for a second.
  while (load.in_order && steady_clock::now() < w.to + seconds(10) && take(steady_clock::now() + seconds(1))) {
  }
  return out;
}

}  // namespace slipway::bench

#else

#include <stdexcept>

namespace slipway::bench {

RoleResult slipway_actor(const std::string&, const ReplayLoad&, const LoadWindow&, int) {
  throw std::runtime_error("this slipway-bench was built without the replay client (it needs channels, UCX)");
}
RoleResult slipway_learner(const std::string&, const ReplayLoad&, const LoadWindow&) {
  throw std::runtime_error("this slipway-bench was built without the replay client (it needs channels, UCX)");
}

}  // namespace slipway::bench

#endif
