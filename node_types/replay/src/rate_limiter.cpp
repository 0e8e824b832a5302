// Reverb's rate limiter arithmetic and the named constructors' refusals.
#include "slipway/replay/rate_limiter.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace slipway::replay {

namespace {
// floor(value) as a count, INT64_MAX when it does not fit (no bound).
std::int64_t count_of(double value) {
  if (!(value < 9.2e18)) return INT64_MAX;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(value)));
}

void need_positive_min_size(std::int64_t min_size_to_sample) {
  if (min_size_to_sample < 1) {
    throw std::invalid_argument("min_size_to_sample (" + std::to_string(min_size_to_sample) +
                                ") must be a positive integer");
  }
}
}  // namespace

RateLimiterConfig RateLimiterConfig::min_size(std::int64_t min_size_to_sample) {
  need_positive_min_size(min_size_to_sample);
  return {1.0, min_size_to_sample, -DBL_MAX, DBL_MAX};
}

RateLimiterConfig RateLimiterConfig::sample_to_insert_ratio(double samples_per_insert,
                                                            std::int64_t min_size_to_sample,
                                                            double error_buffer) {
  if (!std::isfinite(samples_per_insert) || samples_per_insert <= 0.0) {
    throw std::invalid_argument("samples_per_insert must be a finite number > 0");
  }
  if (!std::isfinite(error_buffer) || error_buffer < 0.0) {
    throw std::invalid_argument("error_buffer must be a finite number >= 0");
  }
  need_positive_min_size(min_size_to_sample);
  const double offset = samples_per_insert * static_cast<double>(min_size_to_sample);
  const double min_diff = offset - error_buffer;
  const double max_diff = offset + error_buffer;
  if (max_diff - min_diff < 2 * std::max(1.0, samples_per_insert)) {
    throw std::invalid_argument(
        "error_buffer must be >= max(1.0, samples_per_insert) (the range it spans, 2 * "
        "error_buffer, >= 2 * max(1, samples_per_insert)): smaller values could block samples "
        "and inserts for good");
  }
  if (min_diff > offset) {
    throw std::invalid_argument(
        "the range covered by error_buffer is above samples_per_insert * min_size_to_sample: "
        "this deadlocks as soon as min_size_to_sample items have been inserted");
  }
  return {samples_per_insert, min_size_to_sample, min_diff, max_diff};
}

RateLimiterConfig RateLimiterConfig::queue(std::int64_t size) {
  if (size < 1) throw std::invalid_argument("a queue's size must be >= 1");
  return {1.0, 1, 0.0, static_cast<double>(size)};
}

RateLimiterConfig RateLimiterConfig::stack(std::int64_t size) {
  if (size < 1) throw std::invalid_argument("a stack's size must be >= 1");
  return {1.0, 1, 0.0, static_cast<double>(size)};
}

RateLimiter::RateLimiter(RateLimiterConfig config) : config_(config) {
  need_positive_min_size(config_.min_size_to_sample);
  if (std::isnan(config_.min_diff) || std::isnan(config_.max_diff) ||
      config_.min_diff > config_.max_diff) {
    throw std::invalid_argument("rate limiter: min_diff must be <= max_diff");
  }
}

bool RateLimiter::can_sample(std::int64_t n) const {
  if (counters_.inserts - counters_.deletes < config_.min_size_to_sample) return false;
  const double diff = static_cast<double>(counters_.inserts) * config_.samples_per_insert -
                      static_cast<double>(counters_.samples) - static_cast<double>(n);
  return diff >= config_.min_diff;
}

bool RateLimiter::can_insert(std::int64_t n) const {
  if (counters_.inserts + n - counters_.deletes <= config_.min_size_to_sample) return true;
  const double diff = static_cast<double>(n + counters_.inserts) * config_.samples_per_insert -
                      static_cast<double>(counters_.samples);
  return diff <= config_.max_diff;
}

std::int64_t RateLimiter::max_samples(std::int64_t n) const {
  if (n < 1 || !can_sample(1)) return 0;
  if (can_sample(n)) return n;
  // room = inserts * spi - samples - min_diff >= k; start from its floor and
  // step down while rounding disagrees.
  const double room = static_cast<double>(counters_.inserts) * config_.samples_per_insert -
                      static_cast<double>(counters_.samples) - config_.min_diff;
  std::int64_t k = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(room)), 1, n);
  while (k > 1 && !can_sample(k)) --k;
  return k;
}

std::int64_t RateLimiter::most_sampled_at_once() const { return count_of(config_.max_diff - config_.min_diff); }

std::int64_t RateLimiter::most_inserted_at_once() const {
  const double lowest = std::min(0.0, config_.min_diff);
  return std::max(config_.min_size_to_sample,
                  count_of((config_.max_diff - lowest) / config_.samples_per_insert));
}

}  // namespace slipway::replay
