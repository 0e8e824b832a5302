// Reverb's rate limiter (cc/rate_limiter.cc, rate_limiters.py) with its
// exact arithmetic: four numbers (samples_per_insert, min_size_to_sample,
// min_diff, max_diff) and three counters (inserts, samples, deletes).
//
//   CanSample(n): inserts - deletes >= min_size_to_sample
//                 and inserts * spi - samples - n >= min_diff
//   CanInsert(n): inserts + n - deletes <= min_size_to_sample
//                 or (inserts + n) * spi - samples <= max_diff
//
// The named constructors refuse what Reverb's Python refuses, with its
// reasons (std::invalid_argument): MinSize(n) (n >= 1),
// SampleToInsertRatio(spi, min_size, error_buffer) (spi > 0, min_size >= 1,
// max_diff - min_diff >= 2 * max(1, spi), min_diff <= spi * min_size),
// Queue(size) and Stack(size) (spi 1, min_size 1, min_diff 0, max_diff size).
#pragma once

#include <cstdint>
#include <string>

namespace slipway::replay {

struct RateLimiterConfig {
  double samples_per_insert = 1.0;
  std::int64_t min_size_to_sample = 1;
  double min_diff = 0.0;
  double max_diff = 0.0;

  static RateLimiterConfig min_size(std::int64_t min_size_to_sample);
  static RateLimiterConfig sample_to_insert_ratio(double samples_per_insert,
                                                  std::int64_t min_size_to_sample,
                                                  double error_buffer);
  static RateLimiterConfig queue(std::int64_t size);
  static RateLimiterConfig stack(std::int64_t size);
};

struct RateLimiterCounters {
  std::int64_t inserts = 0;
  std::int64_t samples = 0;
  std::int64_t deletes = 0;
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimiterConfig config);

  bool can_sample(std::int64_t n) const;
  bool can_insert(std::int64_t n) const;
  // The largest k in [1, n] with can_sample(k); 0 when can_sample(1) fails.
  std::int64_t max_samples(std::int64_t n) const;

  // The most items one request can ever sample or insert at once, whatever
  // the counters (INT64_MAX: no bound). inserts * spi - samples stays within
  // [min(0, min_diff), max_diff] (an insert past max_diff waits, a sample
  // below min_diff too), so CanSample(n) needs n <= max_diff - min_diff and
  // CanInsert(n) needs n <= min_size_to_sample or n * spi <= max_diff -
  // min(0, min_diff). A request for more would park until its deadline:
  // the engine refuses it instead. (Deletes that are not samples, e.g.
  // evictions, can let the counters past this in odd configurations; the
  // bound is the limiter's own arithmetic.)
  std::int64_t most_sampled_at_once() const;
  std::int64_t most_inserted_at_once() const;

  void inserted() { ++counters_.inserts; }
  void sampled() { ++counters_.samples; }
  void deleted() { ++counters_.deletes; }
  void reset() { counters_ = {}; }

  const RateLimiterConfig& config() const noexcept { return config_; }
  const RateLimiterCounters& counters() const noexcept { return counters_; }
  void restore(const RateLimiterCounters& counters) { counters_ = counters; }

 private:
  RateLimiterConfig config_;
  RateLimiterCounters counters_;
};

}  // namespace slipway::replay
