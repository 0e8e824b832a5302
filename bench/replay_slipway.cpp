// The slipway side of `slipway-bench replay`: slipway-replay through its C++
// client (slipway::replay, node_types/replay/include/slipway/replay/client.hpp).
// An actor is the client's Writer (batches of 64 items per insert call, 8
// calls in flight); it counts the items it appended in the window (append
// waits while 8 calls are unanswered, so in a steady state that is the rate
// at which inserts are acknowledged). The learner is the client's Sampler
// (batches of 32, 4 calls in flight over the shards).
#include "replay_load.hpp"

#if __has_include("slipway/replay/client.hpp") && __has_include("slipway/channels/endpoint.hpp")

#include <stdexcept>

#include "slipway/channels/endpoint.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/replay/client.hpp"

namespace slipway::bench {
namespace {

constexpr const char* kTable = "replay";

}  // namespace

RoleResult slipway_actor(const std::string& node, const ReplayLoad& load, const LoadWindow& w, int id) {
  channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
  replay::Client client(endpoint, node);
  replay::Writer writer = client.writer(kTable, static_cast<std::size_t>(load.in_flight),
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
  channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
  replay::Client client(endpoint, node);
  replay::Sampler sampler = client.sampler(kTable, static_cast<std::uint32_t>(load.sample_n),
                                           static_cast<std::size_t>(load.sample_in_flight));
  Pipeline p;  // the Sampler keeps its own requests in flight: one next() at a time here
  p.add = [] {};
  p.send = [] {};
  p.complete = [&] {
    std::uint64_t found = 0;
    for (const auto& item : sampler.next()) found += item.data.size() == load.item_bytes;
    return found;
  };
  return run_pipeline(w, 1, p);
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
