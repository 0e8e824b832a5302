// The JSON-lines side of `slipway-bench replay`: bench/json_replay.py, the
// replay server of slipway's first actor_learner example, driven with the
// same pattern as the other services. Each actor keeps 8 put requests of 64
// items (JSON strings of item_bytes printable characters) in flight on its
// connection (the server reads one line after another, so requests
// pipeline); the learner keeps 4 sample requests of 32 in flight and counts
// the items it gets back (fewer while the buffer fills).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "replay_load.hpp"
#include "tcp_stream.hpp"

namespace slipway::bench {
namespace {

// The items of a {"items": [...]} reply: each is one JSON string without
// quotes inside (replay_item's), so two quotes per item after the key's two.
std::uint64_t items_in(const std::string& reply) {
  if (reply.rfind("{\"items\":", 0) != 0) throw std::runtime_error("json replay: unexpected reply: " + reply.substr(0, 80));
  const auto quotes = static_cast<std::uint64_t>(std::count(reply.begin(), reply.end(), '"'));
  return quotes < 2 ? 0 : (quotes - 2) / 2;
}

}  // namespace

RoleResult json_actor(const std::string& address, const ReplayLoad& load, const LoadWindow& w, int id) {
  const auto [host, port] = split_host_port(address);
  TcpStream server("json replay", host, port);
  std::uint64_t number = 0;
  std::string requests;
  Pipeline p;
  p.add = [&] {
    requests += "{\"op\": \"put\", \"items\": [";
    for (int i = 0; i < load.batch; ++i) {
      requests += i == 0 ? "\"" : ", \"";
      requests += replay_item(load.item_bytes, id, number++);
      requests += '"';
    }
    requests += "]}\n";
  };
  p.send = [&] {
    server.write(requests);
    requests.clear();
  };
  p.complete = [&]() -> std::uint64_t {
    const std::string reply = server.line();
    if (reply.rfind("{\"size\":", 0) != 0) throw std::runtime_error("json replay: put failed: " + reply.substr(0, 200));
    return static_cast<std::uint64_t>(load.batch);
  };
  return run_pipeline(w, load.in_flight, p);
}

RoleResult json_learner(const std::string& address, const ReplayLoad& load, const LoadWindow& w) {
  const auto [host, port] = split_host_port(address);
  TcpStream server("json replay", host, port);
  const std::string one = "{\"op\": \"sample\", \"n\": " + std::to_string(load.sample_n) + "}\n";
  std::string requests;
  Pipeline p;
  p.add = [&] { requests += one; };
  p.send = [&] {
    server.write(requests);
    requests.clear();
  };
  p.complete = [&] { return items_in(server.line()); };
  return run_pipeline(w, load.sample_in_flight, p);
}

}  // namespace slipway::bench
