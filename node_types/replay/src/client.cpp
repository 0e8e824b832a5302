// The C++ replay client: shards, retries, waits on not_ready, routing by key.
#include "slipway/replay/client.hpp"

#include <cstdlib>
#include <random>
#include <thread>
#include <utility>

#include "lease_journal.hpp"
#include "slipway/core/contract.hpp"

namespace slipway::replay {

using channels::Bytes;
using channels::ChannelError;
using channels::Errc;
using SteadyTime = std::chrono::steady_clock::time_point;

namespace {
std::uint32_t env_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  return end != text && *end == '\0' && value <= 0xFFFFFFFFUL ? static_cast<std::uint32_t>(value) : 0;
}

std::uint64_t random_id() {
  std::random_device device;
  std::uint64_t id = 0;
  while (id == 0) id = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  return id;
}

bool retriable(Errc code) {
  return code == Errc::peer_restarted || code == Errc::peer_lost || code == Errc::timeout || code == Errc::overloaded;
}

Milliseconds left(SteadyTime deadline) {
  const auto now = std::chrono::steady_clock::now();
  return now >= deadline ? Milliseconds(0) : std::chrono::duration_cast<Milliseconds>(deadline - now);
}

// Throws for a refusal; true for ok, false for not_ready.
bool accepted(const Outcome& outcome, const std::string& what) {
  if (outcome.status == Status::ok) return true;
  if (outcome.status == Status::not_ready) return false;
  throw ReplayError(outcome.status, what + ": " + outcome.message);
}

[[noreturn]] void deadline_passed(const std::string& what) {
  throw ReplayError(Status::not_ready, what + ": the timeout passed before the replay node could serve it");
}
}  // namespace

Client::Client(channels::Endpoint& endpoint, std::string node, ClientOptions options)
    : endpoint_(endpoint), node_(std::move(node)), options_(options) {
  const char* task_node = std::getenv(core::env::kNode);
  caller_.node = task_node == nullptr ? "" : task_node;
  caller_.replica = env_number(core::env::kReplica);
  caller_.attempt = env_number(core::env::kAttempt);
  caller_.client_id = random_id();
  shards_ = endpoint_.resolve_all(node_, options_.resolve_timeout);
  if (shards_.empty()) throw ReplayError(Status::invalid, "replay node '" + node_ + "' has no shards");
  round_robin_ = caller_.replica % shards_.size();
}

Client::~Client() = default;

std::uint64_t Client::next_seq() {
  std::lock_guard lock(mutex_);
  return ++seq_;
}

std::size_t Client::next_shard() {
  std::lock_guard lock(mutex_);
  return round_robin_++ % shards_.size();
}

std::future<Bytes> Client::send(std::size_t shard, const std::string& method, Bytes body, Milliseconds wait) const {
  return shards_.at(shard).call_async(method, std::move(body), wait + options_.call_margin);
}

std::optional<Bytes> Client::call(std::size_t shard, const std::string& method, const Bytes& body, Milliseconds wait,
                                  SteadyTime deadline) const {
  while (true) {
    try {
      return send(shard, method, body, wait).get();
    } catch (const ChannelError& error) {
      if (!retriable(error.code())) throw;
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(Milliseconds(20));
    }
  }
}

std::optional<Bytes> Client::try_once(std::size_t shard, const std::string& method, const Bytes& body,
                                      Milliseconds wait, SteadyTime deadline) const {
  try {
    return send(shard, method, body, wait).get();
  } catch (const ChannelError& error) {
    if (!retriable(error.code())) throw;
    if (std::chrono::steady_clock::now() >= deadline) deadline_passed(method);
    std::this_thread::sleep_for(Milliseconds(20));
    return std::nullopt;
  }
}

Key Client::insert(channels::ByteView data, const std::map<std::string, double>& priorities,
                   std::optional<Milliseconds> timeout) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout.value_or(options_.default_timeout);
  const std::uint64_t seq = next_seq();
  const std::vector<std::pair<std::string, double>> tables(priorities.begin(), priorities.end());
  std::size_t shard = next_shard();
  while (true) {
    const Milliseconds wait = std::min(left(deadline), shards_.size() > 1 ? options_.spread_wait : options_.max_wait);
    const Bytes body = wire::encode_insert(caller_, seq, static_cast<std::uint32_t>(wait.count()), {{data, tables}});
    const auto reply = call(shard, "insert", body, wait, deadline);
    if (!reply) deadline_passed("insert");
    const InsertReply decoded = wire::decode_insert_reply(*reply);
    if (accepted(decoded, "insert")) return decoded.keys.at(0);
    if (left(deadline).count() == 0) deadline_passed("insert");
    shard = (shard + 1) % shards_.size();  // not stored there: another shard may take it
  }
}

std::vector<Sample> Client::sample(const std::string& table, std::uint32_t n, std::optional<Milliseconds> timeout) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout.value_or(options_.default_timeout);
  while (true) {
    const std::size_t shard = next_shard();
    const Milliseconds wait = std::min(left(deadline), shards_.size() > 1 ? options_.spread_wait : options_.max_wait);
    const Bytes body = wire::encode_sample(caller_, {table, n, n, static_cast<std::uint32_t>(wait.count())});
    const auto reply = try_once(shard, "sample", body, wait, deadline);
    if (!reply) continue;  // that shard is gone for now: ask the next one
    wire::SampleResult decoded = wire::decode_sample_reply(*reply);
    if (accepted(decoded, "sample from '" + table + "'")) return std::move(decoded.items);
    if (left(deadline).count() == 0) deadline_passed("sample from '" + table + "'");
  }
}

std::vector<Lease> Client::lease(const std::string& table, std::uint32_t n, std::optional<Milliseconds> timeout) {
  std::call_once(predecessors_, [this] { return_predecessors_leases(); });
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout.value_or(options_.default_timeout);
  while (true) {
    const std::size_t shard = next_shard();
    const Milliseconds wait = std::min(left(deadline), shards_.size() > 1 ? options_.spread_wait : options_.max_wait);
    const Bytes body = wire::encode_lease(caller_, {table, n, static_cast<std::uint32_t>(wait.count())});
    const auto reply = try_once(shard, "lease", body, wait, deadline);
    if (!reply) continue;  // that shard is gone for now: ask the next one
    wire::LeaseResult decoded = wire::decode_lease_reply(*reply);
    if (accepted(decoded, "lease from '" + table + "'")) {
      if (journal_) {
        std::vector<LeaseJournal::Entry> held;
        for (const auto& item : decoded.items) held.push_back({static_cast<std::uint32_t>(shard), table, item.ref()});
        journal_->add(held);
      }
      return std::move(decoded.items);
    }
    if (left(deadline).count() == 0) deadline_passed("lease from '" + table + "'");
  }
}

std::vector<std::vector<Key>> Client::by_shard(const std::vector<Key>& keys) const {
  std::vector<std::vector<Key>> groups(shards_.size());
  for (Key key : keys) {
    const std::uint32_t shard = shard_of(key);
    if (shard >= shards_.size()) {
      throw ReplayError(Status::invalid, "key " + std::to_string(key) + " names shard " + std::to_string(shard) +
                                             "; node '" + node_ + "' has " + std::to_string(shards_.size()));
    }
    groups[shard].push_back(key);
  }
  return groups;
}

void Client::update_priorities(const std::string& table, const std::vector<std::pair<Key, double>>& updates) {
  std::vector<Key> keys;
  for (const auto& update : updates) keys.push_back(update.first);
  by_shard(keys);  // checks every key's shard
  std::vector<MutateRequest> requests(shards_.size());
  for (const auto& update : updates) requests[shard_of(update.first)].updates.push_back(update);
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    if (requests[shard].updates.empty()) continue;
    requests[shard].table = table;
    shards_[shard].send("mutate", wire::encode_mutate(caller_, requests[shard]));
  }
}

void Client::remove(const std::string& table, const std::vector<Key>& keys) {
  const auto groups = by_shard(keys);
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    if (groups[shard].empty()) continue;
    shards_[shard].send("mutate", wire::encode_mutate(caller_, {table, {}, groups[shard]}));
  }
}

void Client::reset(const std::string& table) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + options_.default_timeout;
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    const auto reply = call(shard, "reset", wire::encode_table(caller_, table), Milliseconds(0), deadline);
    if (!reply) deadline_passed("reset");
    accepted(wire::decode_outcome(*reply), "reset '" + table + "'");
  }
}

std::vector<InfoReply> Client::info() {
  const SteadyTime deadline = std::chrono::steady_clock::now() + options_.default_timeout;
  std::vector<InfoReply> out;
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    const auto reply = call(shard, "info", wire::encode_caller_only(caller_), Milliseconds(0), deadline);
    if (!reply) deadline_passed("info");
    out.push_back(wire::decode_info_reply(*reply));
    accepted(out.back(), "info");
  }
  return out;
}

std::vector<std::string> Client::checkpoint() {
  const SteadyTime deadline = std::chrono::steady_clock::now() + options_.default_timeout;
  std::vector<std::string> paths;
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    const auto reply = call(shard, "checkpoint", wire::encode_caller_only(caller_), options_.max_wait, deadline);
    if (!reply) deadline_passed("checkpoint");
    const PathReply decoded = wire::decode_path_reply(*reply);
    accepted(decoded, "checkpoint");
    paths.push_back(decoded.path);
  }
  return paths;
}

std::uint32_t Client::leases_call(const std::string& method, const std::string& table,
                                  const std::vector<LeaseRef>& leases) {
  std::vector<Key> keys;
  for (const auto& lease : leases) keys.push_back(lease.key);
  by_shard(keys);  // checks every key's shard
  std::vector<std::vector<LeaseRef>> groups(shards_.size());
  for (const auto& lease : leases) groups[shard_of(lease.key)].push_back(lease);
  const SteadyTime deadline = std::chrono::steady_clock::now() + options_.default_timeout;
  std::uint32_t count = 0;
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    if (groups[shard].empty()) continue;
    const auto reply =
        call(shard, method, wire::encode_leases(caller_, {table, groups[shard]}), Milliseconds(0), deadline);
    if (!reply) deadline_passed(method);
    const CountReply decoded = wire::decode_count_reply(*reply);
    accepted(decoded, method + " on '" + table + "'");
    count += decoded.count;
    if (journal_) journal_->remove(groups[shard]);
  }
  return count;
}

std::uint32_t Client::ack(const std::string& table, const std::vector<LeaseRef>& leases) {
  return leases_call("ack", table, leases);
}

std::uint32_t Client::nack(const std::string& table, const std::vector<LeaseRef>& leases) {
  return leases_call("nack", table, leases);
}

namespace {
std::vector<LeaseRef> refs_of(const std::vector<Lease>& leases) {
  std::vector<LeaseRef> refs;
  for (const auto& lease : leases) refs.push_back(lease.ref());
  return refs;
}
}  // namespace

std::uint32_t Client::ack(const std::string& table, const std::vector<Lease>& leases) {
  return ack(table, refs_of(leases));
}

std::uint32_t Client::nack(const std::string& table, const std::vector<Lease>& leases) {
  return nack(table, refs_of(leases));
}

void Client::return_predecessors_leases() {
  journal_ = LeaseJournal::open(node_, caller_);
  if (!journal_) return;
  // Best effort: a lease that cannot be returned now comes back when it expires.
  std::map<std::pair<std::uint32_t, std::string>, std::vector<LeaseRef>> groups;
  for (const auto& entry : journal_->take_predecessors()) groups[{entry.shard, entry.table}].push_back(entry.lease);
  for (const auto& [where, leases] : groups) {
    if (where.first >= shards_.size()) continue;
    try {
      const auto deadline = std::chrono::steady_clock::now() + options_.call_margin;
      const auto reply = call(where.first, "nack", wire::encode_leases(caller_, {where.second, leases}),
                              Milliseconds(0), deadline);
      if (reply) wire::decode_count_reply(*reply);
    } catch (const std::exception&) {
    }
  }
}

Writer Client::writer(const std::string& table, std::size_t max_in_flight, std::size_t batch) {
  return Writer(*this, table, max_in_flight, batch);
}

Sampler Client::sampler(const std::string& table, std::uint32_t batch, std::size_t prefetch) {
  return Sampler(*this, table, batch, prefetch);
}

Writer::Writer(Client& client, std::string table, std::size_t max_in_flight, std::size_t batch)
    : client_(&client),
      table_(std::move(table)),
      max_in_flight_(std::max<std::size_t>(1, max_in_flight)),
      batch_(std::clamp<std::size_t>(batch, 1, wire::kMaxItemsPerCall)),
      pending_(client.caller(), table_, static_cast<std::uint32_t>(client.options().max_wait.count())) {}

Writer::~Writer() {
  if (client_ == nullptr) return;  // moved from
  try {
    flush();
  } catch (const std::exception&) {
    // Documented: call flush() to see errors.
  }
}

void Writer::append(channels::ByteView data, double priority) {
  pending_.add(data, priority);
  if (pending_.items() >= batch_) send_pending(std::chrono::steady_clock::now() + client_->options().default_timeout);
}

void Writer::send_pending(SteadyTime deadline) {
  if (pending_.items() == 0) return;
  while (in_flight_.size() >= max_in_flight_) settle_oldest(deadline);
  const Milliseconds wait = client_->options().max_wait;
  Bytes body = pending_.finish(client_->next_seq());
  const std::size_t shard = client_->next_shard();
  auto reply = client_->send(shard, "insert", body, wait);
  in_flight_.push_back({shard, std::move(body), std::move(reply)});
}

void Writer::settle_oldest(SteadyTime deadline) {
  InFlight& oldest = in_flight_.front();
  const Milliseconds wait = client_->options().max_wait;
  while (true) {
    try {
      const Bytes reply = oldest.reply.get();
      const InsertReply decoded = wire::decode_insert_reply(reply);
      if (accepted(decoded, "insert into '" + table_ + "'")) {
        keys_.insert(keys_.end(), decoded.keys.begin(), decoded.keys.end());
        pending_.reuse(std::move(oldest.body));
        in_flight_.pop_front();
        return;
      }
    } catch (const ChannelError& error) {
      if (!retriable(error.code())) throw;
    }
    // Parked past its wait, or the shard restarted: the same insert again
    // (same seq: a shard that has it answers with its keys).
    if (std::chrono::steady_clock::now() >= deadline) deadline_passed("insert into '" + table_ + "'");
    oldest.reply = client_->send(oldest.shard, "insert", oldest.body, wait);
  }
}

std::vector<Key> Writer::flush(std::optional<Milliseconds> timeout) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout.value_or(client_->options().default_timeout);
  send_pending(deadline);
  while (!in_flight_.empty()) settle_oldest(deadline);
  return std::exchange(keys_, {});
}

Sampler::Sampler(Client& client, std::string table, std::uint32_t batch, std::size_t prefetch)
    : client_(&client), table_(std::move(table)), batch_(batch), prefetch_(std::max<std::size_t>(1, prefetch)) {}

void Sampler::refill() {
  const Milliseconds wait = client_->options().max_wait;
  while (in_flight_.size() < prefetch_) {
    const std::size_t shard = client_->next_shard();
    Bytes body = wire::encode_sample(client_->caller(), {table_, batch_, batch_, static_cast<std::uint32_t>(wait.count())});
    auto reply = client_->send(shard, "sample", body, wait);
    in_flight_.push_back({shard, std::move(body), std::move(reply)});
  }
}

bool Sampler::takes_items_out(SteadyTime deadline) {
  if (!takes_out_) {
    const auto reply = client_->call(0, "info", wire::encode_caller_only(client_->caller()), Milliseconds(0), deadline);
    if (!reply) deadline_passed("sample from '" + table_ + "' (asking the table's kind)");
    const InfoReply info = wire::decode_info_reply(*reply);
    accepted(info, "info");
    takes_out_ = false;  // a table unknown there: the samples say so
    for (const auto& t : info.tables) {
      if (t.name == table_) takes_out_ = t.kind == TableKind::queue || t.kind == TableKind::stack;
    }
  }
  return *takes_out_;
}

std::vector<Sample> Sampler::next(std::optional<Milliseconds> timeout) {
  const SteadyTime deadline = std::chrono::steady_clock::now() + timeout.value_or(client_->options().default_timeout);
  if (in_flight_.empty() && takes_items_out(deadline)) return client_->sample(table_, batch_, left(deadline));
  const Milliseconds wait = client_->options().max_wait;
  refill();
  while (true) {
    // The first of the calls in flight to answer (several shards answer at
    // their own pace).
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
      if (it->reply.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
      Client::Call call = std::move(*it);
      in_flight_.erase(it);
      try {
        wire::SampleResult decoded = wire::decode_sample_reply(call.reply.get());
        if (accepted(decoded, "sample from '" + table_ + "'")) {
          refill();
          return std::move(decoded.items);
        }
      } catch (const ChannelError& error) {
        if (!retriable(error.code())) throw;
      }
      call.shard = client_->next_shard();  // not_ready, or that shard is gone for now: the next one
      call.reply = client_->send(call.shard, "sample", call.body, wait);
      in_flight_.push_back(std::move(call));
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) deadline_passed("sample from '" + table_ + "'");
    in_flight_.front().reply.wait_for(std::min(left(deadline), Milliseconds(5)));
  }
}

}  // namespace slipway::replay
