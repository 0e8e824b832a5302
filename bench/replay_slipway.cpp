// The slipway side of `slipway-bench replay`: slipway-replay through its C++
// client (slipway::replay, node_types/replay/include/slipway/replay/client.hpp).
// The learner is the client's Sampler (batches of 32, 4 in flight over the
// shards). The client's Writer sends one item per insert call; the load
// inserts batches of 64 items per call, so an actor builds each batch with
// the client's parts: one `insert` body of 64 items (wire::encode_insert
// with the client's caller block and next seq), sent with Client::send to
// the client's next shard, 8 such calls in flight; an insert parked past
// its wait (not_ready) is sent again with the same seq, as the Writer does.
#include "replay_load.hpp"

#if __has_include("slipway/replay/client.hpp") && __has_include("slipway/channels/endpoint.hpp")

#include <deque>
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
  const auto wait = client.options().max_wait;
  const std::vector<std::pair<std::string, double>> table = {{kTable, 1.0}};
  std::vector<std::string> items(static_cast<std::size_t>(load.batch));
  std::vector<std::pair<replay::wire::View, std::vector<std::pair<std::string, double>>>> batch;
  std::uint64_t number = 0;
  std::deque<replay::Client::Call> in_flight;
  Pipeline p;
  p.add = [&] {
    batch.clear();
    for (auto& item : items) {
      item = replay_item(load.item_bytes, id, number++);
      batch.emplace_back(replay::wire::View(reinterpret_cast<const std::byte*>(item.data()), item.size()), table);
    }
    replay::Client::Call call;
    call.shard = client.next_shard();
    call.body = replay::wire::encode_insert(client.caller(), client.next_seq(),
                                            static_cast<std::uint32_t>(wait.count()), batch);
    call.reply = client.send(call.shard, "insert", call.body, wait);
    in_flight.push_back(std::move(call));
  };
  p.send = [] {};  // add() sent it
  p.complete = [&]() -> std::uint64_t {
    replay::Client::Call& call = in_flight.front();
    for (;;) {
      const replay::InsertReply reply = replay::wire::decode_insert_reply(call.reply.get());
      if (reply.status == replay::Status::not_ready) {  // parked past its wait: the same insert again
        call.reply = client.send(call.shard, "insert", call.body, wait);
        continue;
      }
      if (reply.status != replay::Status::ok) throw std::runtime_error("slipway-replay refused an insert: " + reply.message);
      in_flight.pop_front();
      return reply.keys.size();
    }
  };
  return run_pipeline(w, load.in_flight, p);
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
