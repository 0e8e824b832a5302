// A table: items, sampler, remover, rate limiter and (work tables) leases.
#include "slipway/replay/table.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "slipway/replay/sum_tree.hpp"

namespace slipway::replay {

namespace {
constexpr std::size_t kMaxTableName = 255;

void check_selector(const std::string& table, const char* key, const SelectorSpec& spec) {
  if (spec.kind == SelectorKind::prioritized &&
      (!std::isfinite(spec.exponent) || spec.exponent < 0.0)) {
    throw std::invalid_argument("table '" + table + "': " + key +
                                " prioritized exponent must be a finite number >= 0");
  }
}
}  // namespace

Table::Table(TableConfig config, std::uint64_t seed)
    : config_(std::move(config)),
      sampler_(make_selector(config_.sampler)),
      remover_(make_selector(config_.remover)),
      limiter_(config_.rate_limiter),
      rng_(seed) {
  if (config_.name.empty() || config_.name.size() > kMaxTableName) {
    throw std::invalid_argument("a table name must have 1 to 255 bytes");
  }
  if (config_.max_size < 1) {
    throw std::invalid_argument("table '" + config_.name + "': max_size must be >= 1");
  }
  check_selector(config_.name, "sampler", config_.sampler);
  check_selector(config_.name, "remover", config_.remover);
  if (is_work() && config_.lease.count() <= 0) {
    throw std::invalid_argument("table '" + config_.name + "': lease_ms must be > 0");
  }
}

std::optional<std::string> Table::check_priority(double priority) const {
  if (!std::isfinite(priority)) {
    return "table '" + config_.name + "': priorities must be finite numbers";
  }
  const bool prioritized = config_.sampler.kind == SelectorKind::prioritized ||
                           config_.remover.kind == SelectorKind::prioritized;
  if (prioritized && priority < 0.0) {
    return "table '" + config_.name + "': a prioritized table's priorities must be >= 0";
  }
  // The sum of every item's weight must stay finite (sum_tree.hpp).
  for (const SelectorSpec* spec : {&config_.sampler, &config_.remover}) {
    if (spec->kind == SelectorKind::prioritized && !(std::pow(priority, spec->exponent) <= SumTree::kMaxWeight)) {
      std::ostringstream text;
      text << "table '" << config_.name << "': priority " << priority << " is too large: priority^exponent (exponent "
           << spec->exponent << ") must be at most 1e290 in a prioritized table";
      return text.str();
    }
  }
  return std::nullopt;
}

bool Table::can_insert(std::int64_t n) const {
  if (is_work()) return size() + static_cast<std::uint64_t>(n) <= config_.max_size;
  return limiter_.can_insert(n);
}

void Table::insert(Key key, double priority, ItemStore::Data data) {
  if (items_.contains(key)) throw std::logic_error("table insert: key already present");
  while (!is_work() && size() >= config_.max_size) remove(remover_->select(rng_).key);
  items_.emplace(key, Item{priority, 0, std::move(data)});
  sampler_->insert(key, priority);
  remover_->insert(key, priority);
  limiter_.inserted();
  ++totals_.inserted;
}

std::int64_t Table::sample_count(std::int64_t n) const {
  if (is_work() || items_.empty()) return 0;
  return limiter_.max_samples(n);
}

Sampled Table::sample_one() {
  if (is_work()) throw std::logic_error("sample from a work table");
  const Selection picked = sampler_->select(rng_);
  Item& item = items_.at(picked.key);
  ++item.times;
  limiter_.sampled();
  ++totals_.sampled;
  Sampled out{picked.key, item.priority, picked.probability, items_.size(), item.times, item.data};
  if (config_.max_times_sampled > 0 && item.times >= config_.max_times_sampled) remove(picked.key);
  return out;
}

bool Table::update(Key key, double priority) {
  const auto found = items_.find(key);
  if (found == items_.end()) return false;
  found->second.priority = priority;
  if (!leases_.contains(key)) sampler_->update(key, priority);
  remover_->update(key, priority);
  return true;
}

void Table::erase(Key key) {
  if (leases_.contains(key)) {
    end_lease(key, false);
  } else {
    sampler_->remove(key);
  }
  remover_->remove(key);
  items_.erase(key);
  tokens_.erase(key);
}

bool Table::remove(Key key) {
  if (!items_.contains(key)) return false;
  erase(key);
  limiter_.deleted();
  return true;
}

void Table::reset() {
  items_.clear();
  leases_.clear();
  tokens_.clear();
  expiries_.clear();
  sampler_->clear();
  remover_->clear();
  limiter_.reset();
}

Leased Table::lease_one(const LeaseToken& token, Time expires) {
  if (!is_work()) throw std::logic_error("lease from a table that is not a work table");
  const Key key = sampler_->select(rng_).key;
  sampler_->remove(key);
  Item& item = items_.at(key);
  ++item.times;
  ++totals_.sampled;
  leases_.emplace(key, Lease{token, expires});
  expiries_.emplace(expires, key);
  auto& issued = tokens_[key];
  if (issued.size() == kTokensKept) issued.erase(issued.begin());
  issued.push_back(token);
  return {key, item.times, item.data, token};
}

void Table::end_lease(Key key, bool requeue) {
  const auto found = leases_.find(key);
  expiries_.erase({found->second.expires, key});
  leases_.erase(found);
  if (requeue) sampler_->insert(key, items_.at(key).priority);
}

bool Table::ack(const LeaseRef& lease) {
  const auto issued = tokens_.find(lease.key);
  if (issued == tokens_.end()) return false;
  bool known = false;
  for (const auto& token : issued->second) known = same_token(token, lease.token) || known;
  return known && remove(lease.key);
}

bool Table::nack(const LeaseRef& lease) {
  const auto found = leases_.find(lease.key);
  if (found == leases_.end() || !same_token(found->second.token, lease.token)) return false;
  end_lease(lease.key, true);
  return true;
}

std::size_t Table::expire(Time now) {
  std::size_t count = 0;
  while (!expiries_.empty() && expiries_.begin()->first <= now) {
    end_lease(expiries_.begin()->second, true);
    ++count;
  }
  return count;
}

std::optional<Time> Table::next_expiry() const {
  if (expiries_.empty()) return std::nullopt;
  return expiries_.begin()->first;
}

void Table::for_each_item(
    const std::function<void(Key, double, std::uint32_t, const ItemStore::Data&)>& fn) const {
  std::vector<Key> keys;
  keys.reserve(items_.size());
  for (const auto& entry : items_) keys.push_back(entry.first);
  std::sort(keys.begin(), keys.end());
  for (Key key : keys) {
    const Item& item = items_.at(key);
    fn(key, item.priority, item.times, item.data);
  }
}

void Table::restore_item(Key key, double priority, std::uint32_t times, ItemStore::Data data) {
  if (items_.contains(key)) throw std::invalid_argument("checkpoint: key repeated in table '" + name() + "'");
  if (const auto bad = check_priority(priority)) throw std::invalid_argument("checkpoint: " + *bad);
  items_.emplace(key, Item{priority, times, std::move(data)});
  sampler_->insert(key, priority);
  remover_->insert(key, priority);
}

}  // namespace slipway::replay
