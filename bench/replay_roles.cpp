// The processes of `slipway-bench replay` that make the load: this binary
// re-executed as `slipway-bench replay --role actor|learner --service
// redis|json|slipway --address ADDRESS --id N --window START,FROM,TO
// --load ITEM_BYTES,BATCH,IN_FLIGHT,SAMPLE_N,SAMPLE_IN_FLIGHT,CAPACITY,IN_ORDER`
// (times in ns of the monotonic clock, which every process of the machine
// shares). It runs its role (replay_load.hpp) and prints one line,
// `items=N requests=M`; on failure it says why on stderr and exits 1.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "replay_load.hpp"
#include "replay_roles.hpp"

namespace slipway::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::uint64_t> numbers(const std::string& list) {
  std::vector<std::uint64_t> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoull(item));
  return out;
}

Clock::time_point at_ns(std::uint64_t ns) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

}  // namespace

std::string replay_item(std::size_t item_bytes, int id, std::uint64_t number) {
  std::string item(item_bytes, 'x');
  char head[48];
  const int n = std::snprintf(head, sizeof head, "a%d-i%" PRIu64 "-", id, number);
  item.replace(0, std::min(item_bytes, static_cast<std::size_t>(n)), head, std::min(item_bytes, static_cast<std::size_t>(n)));
  return item;
}

std::optional<ItemId> parse_replay_item(std::string_view item, std::size_t item_bytes) {
  if (item.size() != item_bytes || item_bytes == 0) return std::nullopt;
  int actor = 0;
  unsigned long long number = 0;
  int head = 0;
  const std::string text(item.substr(0, std::min<std::size_t>(item.size(), 47)));
  if (std::sscanf(text.c_str(), "a%d-i%llu-%n", &actor, &number, &head) != 2 || head == 0) return std::nullopt;
  if (static_cast<std::size_t>(head) < item_bytes && item.back() != 'x') return std::nullopt;
  return ItemId{actor, number};
}

void OrderCheck::next(const ItemId& item) {
  const auto describe = [](const ItemId& i) {
    return "actor " + std::to_string(i.actor) + "'s item " + std::to_string(i.number);
  };
  if (any_ && item.actor == last_.actor && item.number != last_.number + 1) {
    throw std::runtime_error("out of order: " + describe(item) + " came after " + describe(last_));
  }
  if (any_ && item.actor < last_.actor) {
    throw std::runtime_error("out of order: " + describe(item) + " came after " + describe(last_) +
                             " (a later actor's)");
  }
  any_ = true;
  last_ = item;
}

std::vector<std::string> role_arguments(const RoleSpec& spec) {
  auto ns = [](Clock::time_point t) {
    return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
  };
  const ReplayLoad& l = spec.load;
  return {"--role", spec.learner ? "learner" : "actor", "--service", spec.service, "--address", spec.address,
          "--id", std::to_string(spec.id), "--window",
          ns(spec.window.start) + "," + ns(spec.window.from) + "," + ns(spec.window.to), "--load",
          std::to_string(l.item_bytes) + "," + std::to_string(l.batch) + "," + std::to_string(l.in_flight) + "," +
              std::to_string(l.sample_n) + "," + std::to_string(l.sample_in_flight) + "," +
              std::to_string(l.capacity) + "," + (l.in_order ? "1" : "0")};
}

int role_main(const std::vector<std::string>& args) {
  RoleSpec spec;
  std::string role;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    const std::string& key = args[i];
    const std::string& value = args[i + 1];
    if (key == "--role") {
      role = value;
    } else if (key == "--service") {
      spec.service = value;
    } else if (key == "--address") {
      spec.address = value;
    } else if (key == "--id") {
      spec.id = std::stoi(value);
    } else if (key == "--window") {
      const auto t = numbers(value);
      if (t.size() != 3) throw std::invalid_argument("--window needs START,FROM,TO");
      spec.window = {at_ns(t[0]), at_ns(t[1]), at_ns(t[2])};
    } else if (key == "--load") {
      const auto l = numbers(value);
      if (l.size() != 7) throw std::invalid_argument("--load needs 7 numbers");
      spec.load = {l[0], static_cast<int>(l[1]), static_cast<int>(l[2]), static_cast<int>(l[3]),
                   static_cast<int>(l[4]), l[5], l[6] != 0};
    } else {
      throw std::invalid_argument("unknown role argument " + key);
    }
  }
  if (role != "actor" && role != "learner") throw std::invalid_argument("--role must be actor or learner");
  const bool learner = role == "learner";
  RoleResult r;
  if (spec.service == "redis") {
    r = learner ? redis_learner(spec.address, spec.load, spec.window)
                : redis_actor(spec.address, spec.load, spec.window, spec.id);
  } else if (spec.service == "json") {
    r = learner ? json_learner(spec.address, spec.load, spec.window)
                : json_actor(spec.address, spec.load, spec.window, spec.id);
  } else if (spec.service == "slipway") {
    r = learner ? slipway_learner(spec.address, spec.load, spec.window)
                : slipway_actor(spec.address, spec.load, spec.window, spec.id);
  } else {
    throw std::invalid_argument("unknown service " + spec.service);
  }
  std::printf("items=%" PRIu64 " requests=%" PRIu64 "\n", r.items, r.requests);
  std::fflush(stdout);
  return 0;
}

}  // namespace slipway::bench
