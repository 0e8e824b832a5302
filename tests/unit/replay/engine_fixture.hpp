// Helpers for the engine tests: an injected clock, byte payloads, and
// completions that record what the engine answered.
#pragma once

#include <optional>
#include <string>

#include "slipway/replay/engine.hpp"

namespace replay_test {

using namespace slipway::replay;
using namespace std::chrono_literals;

inline Time t0() { return Time{} + std::chrono::hours(1); }

inline Bytes bytes_of(const std::string& text) {
  Bytes out(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) out[i] = static_cast<std::byte>(text[i]);
  return out;
}

inline std::string text_of(std::span<const std::byte> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}
inline std::string text_of(const Bytes& bytes) { return text_of(std::span<const std::byte>(bytes)); }
inline std::string text_of(const ItemBytes& bytes) { return text_of(bytes.view()); }

inline Caller caller(const std::string& node = "actor", std::uint32_t replica = 0, std::uint32_t attempt = 0,
                     std::uint64_t client = 0) {
  return Caller{client, replica, attempt, node};
}

inline InsertRequest one_item(const std::string& data, const std::string& table, double priority = 1.0,
                              std::uint32_t wait_ms = 0) {
  InsertRequest request;
  request.wait_ms = wait_ms;
  request.items.push_back({bytes_of(data), {{table, priority}}});
  return request;
}

// Holds a completion's reply once the engine answers.
template <typename Reply>
struct Answer {
  std::optional<Reply> reply;
  Done<Reply> done() {
    return [this](Reply r) { reply = std::move(r); };
  }
};

inline TableConfig table(const std::string& name, TableKind kind = TableKind::table) {
  TableConfig config;
  config.name = name;
  config.kind = kind;
  if (kind != TableKind::table) {
    config.max_size = 100;
    config.max_times_sampled = 1;
    const SelectorKind order = kind == TableKind::stack ? SelectorKind::lifo : SelectorKind::fifo;
    config.sampler = {order, 1.0};
    config.remover = {order, 1.0};
    config.rate_limiter = kind == TableKind::stack ? RateLimiterConfig::stack(100) : RateLimiterConfig::queue(100);
  }
  return config;
}

// A queue that holds one item.
inline TableConfig queue_of_one(const std::string& name) {
  TableConfig config = table(name, TableKind::queue);
  config.max_size = 1;
  config.rate_limiter = RateLimiterConfig::queue(1);
  return config;
}

}  // namespace replay_test
