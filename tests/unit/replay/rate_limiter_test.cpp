// Reverb's rate limiter: CanSample/CanInsert against its formulas, the
// named constructors' numbers and refusals (rate_limiters.py), and the
// examples of its docstrings.
#include <catch2/catch.hpp>

#include <cfloat>

#include "slipway/replay/rate_limiter.hpp"

using namespace slipway::replay;

namespace {
// Reverb's two checks, written out independently of the implementation.
bool reverb_can_sample(const RateLimiterConfig& c, const RateLimiterCounters& k, std::int64_t n) {
  if (k.inserts - k.deletes < c.min_size_to_sample) return false;
  return static_cast<double>(k.inserts) * c.samples_per_insert - static_cast<double>(k.samples) -
             static_cast<double>(n) >=
         c.min_diff;
}
bool reverb_can_insert(const RateLimiterConfig& c, const RateLimiterCounters& k, std::int64_t n) {
  if (k.inserts + n - k.deletes <= c.min_size_to_sample) return true;
  return static_cast<double>(n + k.inserts) * c.samples_per_insert - static_cast<double>(k.samples) <= c.max_diff;
}
}  // namespace

TEST_CASE("named constructors give Reverb's four numbers") {
  const auto min_size = RateLimiterConfig::min_size(10);
  CHECK(min_size.samples_per_insert == 1.0);
  CHECK(min_size.min_size_to_sample == 10);
  CHECK(min_size.min_diff == -DBL_MAX);
  CHECK(min_size.max_diff == DBL_MAX);

  const auto ratio = RateLimiterConfig::sample_to_insert_ratio(8.0, 1000, 800.0);
  CHECK(ratio.samples_per_insert == 8.0);
  CHECK(ratio.min_size_to_sample == 1000);
  CHECK(ratio.min_diff == 8000.0 - 800.0);
  CHECK(ratio.max_diff == 8000.0 + 800.0);

  const auto queue = RateLimiterConfig::queue(100);
  CHECK(queue.samples_per_insert == 1.0);
  CHECK(queue.min_size_to_sample == 1);
  CHECK(queue.min_diff == 0.0);
  CHECK(queue.max_diff == 100.0);
  const auto stack = RateLimiterConfig::stack(7);
  CHECK(stack.max_diff == 7.0);
  CHECK(stack.min_diff == 0.0);
}

TEST_CASE("named constructors refuse what Reverb refuses") {
  CHECK_THROWS_AS(RateLimiterConfig::min_size(0), std::invalid_argument);
  // error_buffer below max(1, spi): max_diff - min_diff < 2 * max(1, spi)
  CHECK_THROWS_AS(RateLimiterConfig::sample_to_insert_ratio(8.0, 100, 7.9), std::invalid_argument);
  CHECK_THROWS_AS(RateLimiterConfig::sample_to_insert_ratio(0.5, 100, 0.9), std::invalid_argument);
  CHECK_NOTHROW(RateLimiterConfig::sample_to_insert_ratio(0.5, 100, 1.0));
  CHECK_NOTHROW(RateLimiterConfig::sample_to_insert_ratio(8.0, 100, 8.0));
  CHECK_THROWS_AS(RateLimiterConfig::sample_to_insert_ratio(0.0, 100, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(RateLimiterConfig::sample_to_insert_ratio(1.0, 0, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(RateLimiterConfig::queue(0), std::invalid_argument);
  CHECK_THROWS_AS(RateLimiter(RateLimiterConfig{1.0, 1, 5.0, 4.0}), std::invalid_argument);
}

TEST_CASE("MinSize: samples wait for min_size items - inserts never wait") {
  RateLimiter limiter(RateLimiterConfig::min_size(3));
  CHECK_FALSE(limiter.can_sample(1));
  limiter.inserted();
  limiter.inserted();
  CHECK_FALSE(limiter.can_sample(1));
  limiter.inserted();
  CHECK(limiter.can_sample(1));
  CHECK(limiter.can_sample(1000000));
  for (int i = 0; i < 100; ++i) limiter.sampled();
  CHECK(limiter.can_insert(1000000));
  limiter.deleted();  // back below min_size
  CHECK_FALSE(limiter.can_sample(1));
}

TEST_CASE("Queue: one sample per insert - at most size items ahead") {
  RateLimiter limiter(RateLimiterConfig::queue(2));
  CHECK_FALSE(limiter.can_sample(1));
  CHECK(limiter.can_insert(1));
  CHECK(limiter.can_insert(2));
  CHECK_FALSE(limiter.can_insert(3));
  limiter.inserted();
  limiter.inserted();
  CHECK_FALSE(limiter.can_insert(1));  // full
  CHECK(limiter.can_sample(2));
  CHECK_FALSE(limiter.can_sample(3));
  CHECK(limiter.max_samples(5) == 2);
  limiter.sampled();
  limiter.deleted();  // a queue's item goes once sampled (max_times_sampled 1)
  CHECK(limiter.can_insert(1));
  CHECK(limiter.can_sample(1));
  CHECK_FALSE(limiter.can_sample(2));
}

TEST_CASE("SampleToInsertRatio: Reverb's stages and error buffer") {
  // spi 2, min size 4, error buffer 3: range (8 - 3, 8 + 3) = (5, 11).
  RateLimiter limiter(RateLimiterConfig::sample_to_insert_ratio(2.0, 4, 3.0));
  // Stage 1: inserts free up to min_size, no samples.
  for (int i = 0; i < 4; ++i) {
    CHECK(limiter.can_insert(1));
    CHECK_FALSE(limiter.can_sample(1));
    limiter.inserted();
  }
  // 4 inserts: diff = 8 - samples. Sampling allowed while 8 - s - n >= 5.
  CHECK(limiter.can_sample(3));
  CHECK_FALSE(limiter.can_sample(4));
  CHECK(limiter.max_samples(10) == 3);
  // The 5th insert: (1 + 4) * 2 - 0 = 10 <= 11: allowed; a 6th would be 12.
  CHECK(limiter.can_insert(1));
  CHECK_FALSE(limiter.can_insert(2));
  limiter.inserted();
  CHECK_FALSE(limiter.can_insert(1));  // blocked until the learner samples
  limiter.sampled();
  CHECK(limiter.can_insert(1));  // 12 - 1 = 11
}

TEST_CASE("the limiter agrees with Reverb's formulas over a sweep of states") {
  const std::vector<RateLimiterConfig> configs{
      RateLimiterConfig::min_size(5), RateLimiterConfig::queue(10),
      RateLimiterConfig::sample_to_insert_ratio(8.0, 20, 16.0),
      RateLimiterConfig::sample_to_insert_ratio(0.25, 3, 1.0)};
  for (const auto& config : configs) {
    for (std::int64_t inserts = 0; inserts < 40; inserts += 3) {
      for (std::int64_t samples = 0; samples < 200; samples += 7) {
        for (std::int64_t deletes = 0; deletes <= inserts; deletes += 5) {
          RateLimiter limiter(config);
          const RateLimiterCounters counters{inserts, samples, deletes};
          limiter.restore(counters);
          for (std::int64_t n : {1, 2, 5, 17}) {
            REQUIRE(limiter.can_sample(n) == reverb_can_sample(config, counters, n));
            REQUIRE(limiter.can_insert(n) == reverb_can_insert(config, counters, n));
          }
          const std::int64_t k = limiter.max_samples(17);
          if (k > 0) {
            REQUIRE(reverb_can_sample(config, counters, k));
            if (k < 17) REQUIRE_FALSE(reverb_can_sample(config, counters, k + 1));
          } else {
            REQUIRE_FALSE(reverb_can_sample(config, counters, 1));
          }
        }
      }
    }
  }
}
