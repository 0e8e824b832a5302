// The defaults of a replay table by kind (replay_settings.hpp); the names of
// the kinds, selectors and rate limiters are spelled in names.cpp.
#include "slipway/core/replay_settings.hpp"

namespace slipway::core {
namespace {

constexpr std::uint64_t kDefaultMaxSize = 1000000;
constexpr std::uint64_t kDefaultLeaseMs = 60000;

}  // namespace

ReplayTable replay_table_defaults(ReplayTableKind kind) {
  ReplayTable t;
  t.kind.value = kind;
  t.max_size.value = kDefaultMaxSize;
  t.lease_ms.value = kDefaultLeaseMs;
  switch (kind) {
    case ReplayTableKind::table:
      t.sampler.value = {ReplaySelectorType::uniform, 0};
      t.remover.value = {ReplaySelectorType::fifo, 0};
      t.max_times_sampled.value = 0;
      t.rate_limiter.value.type = ReplayRateLimiterType::min_size;
      t.rate_limiter.value.min_size = 1;
      break;
    case ReplayTableKind::queue:
    case ReplayTableKind::work:
      t.sampler.value = {ReplaySelectorType::fifo, 0};
      t.remover.value = {ReplaySelectorType::fifo, 0};
      t.max_times_sampled.value = 1;
      t.rate_limiter.value.type = ReplayRateLimiterType::queue;
      break;
    case ReplayTableKind::stack:
      t.sampler.value = {ReplaySelectorType::lifo, 0};
      t.remover.value = {ReplaySelectorType::lifo, 0};
      t.max_times_sampled.value = 1;
      t.rate_limiter.value.type = ReplayRateLimiterType::stack;
      break;
  }
  return t;
}

}  // namespace slipway::core
