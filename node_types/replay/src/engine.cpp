// The shard engine: validation of requests, parking and waking, leases,
// de-duplication, info, snapshot and restore.
// Over 500 lines, one concern: a shard's request admission (its tables,
// selectors, limiter, store and memories are files of their own); inserts,
// reads and leases share the parking rule that a split would spread out.
#include "slipway/replay/engine.hpp"

#include <algorithm>
#include <list>
#include <map>
#include <set>
#include <stdexcept>

#include "insert_memory.hpp"
#include "slipway/replay/checkpoint.hpp"

namespace slipway::replay {

namespace {
constexpr std::size_t kMaxTablesPerItem = 64;
constexpr std::size_t kRememberedClients = 4096;
constexpr std::size_t kInsertsPerClient = 256;
constexpr std::size_t kRememberedKeys = 4194304;
constexpr std::uint64_t kMaxCounter = (std::uint64_t{1} << kShardShift) - 1;

template <typename Reply>
Reply refusal(Status status, std::string message) {
  Reply reply;
  reply.status = status;
  reply.message = std::move(message);
  return reply;
}

template <typename Reply>
Reply not_ready() {
  Reply reply;
  reply.status = Status::not_ready;
  return reply;
}

// Why `table` could never take `count` items of one insert (it would park
// until its deadline and hold up the inserts behind it), if so.
std::optional<std::string> never_inserts(const Table& table, std::int64_t count) {
  const bool bounded_by_size = table.config().kind != TableKind::table;  // queue, stack, work
  if (bounded_by_size && static_cast<std::uint64_t>(count) > table.config().max_size) {
    return "table '" + table.name() + "' holds at most " + std::to_string(table.config().max_size) +
           " items; this insert brings " + std::to_string(count) + " (it could never go): send fewer at once";
  }
  const std::int64_t most = table.limiter().most_inserted_at_once();
  if (!table.is_work() && count > most) {
    return "the rate limiter of table '" + table.name() + "' lets at most " + std::to_string(most) +
           " items in at once; this insert brings " + std::to_string(count) + " (it could never go): send fewer at once";
  }
  return std::nullopt;
}

// Why a sample of at least `min_n` items of `table` could never be served, if so.
std::optional<std::string> never_samples(const Table& table, std::uint32_t min_n) {
  const std::int64_t most = table.limiter().most_sampled_at_once();
  if (static_cast<std::int64_t>(min_n) <= most) return std::nullopt;
  const bool queue = table.config().kind == TableKind::queue || table.config().kind == TableKind::stack;
  return "table '" + table.name() + "' can never give " + std::to_string(min_n) + " items at once (at most " +
         std::to_string(most) + (queue ? ", its max_size" : ", its rate limiter's max_diff - min_diff") +
         "): ask for min_n " + std::to_string(most) + " or fewer";
}
}  // namespace

struct Engine::ParkedInsert {
  Caller caller;
  std::uint64_t seq = 0;
  // Each item's bytes: parts of `buffer` when `shared`, else its own.
  std::vector<ItemBytes> data;
  Buffer buffer;
  bool shared = false;
  std::vector<std::vector<std::pair<std::size_t, double>>> targets;  // per item: slot, priority
  std::vector<std::pair<std::size_t, std::int64_t>> counts;          // slot, items going there
  std::uint64_t bytes = 0;
  Time since;  // parked on the slot it is in now
  Time deadline;
  Done<InsertReply> done;
  std::size_t refused_by = 0;  // the slot that refused it last
};

struct Engine::ParkedRead {
  bool lease = false;
  std::uint32_t n = 1;
  std::uint32_t min_n = 1;
  Time parked_at;  // when it came
  Time deadline;
  Done<SampleReply> sampled;
  Done<LeaseReply> leased;
};

struct Engine::Slot {
  Slot(TableConfig config, std::uint64_t seed) : table(std::move(config), seed) {}
  Table table;
  std::deque<std::unique_ptr<ParkedInsert>> inserts;
  std::list<ParkedRead> reads;  // samples, or leases of a work table; arrival order
  Clock::duration blocked{0};  // the waits of requests parked here that went or moved on
};

Engine::Engine(EngineConfig config, std::uint32_t shard, std::uint64_t seed)
    : shard_(shard),
      limits_(config.limits),
      inserts_(std::make_unique<detail::InsertMemory>(kRememberedClients, kInsertsPerClient,
                                                      kRememberedKeys)) {
  std::set<std::string> names;
  for (auto& table : config.tables) {
    if (!names.insert(table.name).second) {
      throw std::invalid_argument("table '" + table.name + "' is configured twice");
    }
    tables_.push_back(std::make_unique<Slot>(std::move(table), seed + tables_.size()));
  }
}

Engine::~Engine() = default;

Engine::Slot* Engine::find(const std::string& table) {
  for (auto& slot : tables_) {
    if (slot->table.name() == table) return slot.get();
  }
  return nullptr;
}

std::string Engine::unknown_table(const std::string& name) const {
  std::string message = "no table '" + name + "' on this shard (tables:";
  for (const auto& slot : tables_) message += " " + slot->table.name();
  return message + ")";
}

void Engine::insert(const Caller& caller, InsertRequest request, Time now, Done<InsertReply> done) {
  const auto refuse = [&](Status status, std::string message) {
    done(refusal<InsertReply>(status, std::move(message)));
  };
  if (request.items.empty() || request.items.size() > limits_.max_items_per_call) {
    return refuse(Status::invalid, "an insert carries 1 to " + std::to_string(limits_.max_items_per_call) +
                                       " items, not " + std::to_string(request.items.size()));
  }
  auto parked = std::make_unique<ParkedInsert>();
  std::map<std::size_t, std::int64_t> counts;
  // The items share the request's buffer (no copy, one allocation) when
  // every table they go to lets them go in order; else each is copied out.
  bool in_order = request.buffer != nullptr;
  for (std::size_t i = 0; i < request.items.size(); ++i) {
    auto& item = request.items[i];
    if (item.data.size() > limits_.max_item_bytes) {
      return refuse(Status::too_large, "item " + std::to_string(i) + " has " + std::to_string(item.data.size()) +
                                           " bytes; this shard takes at most " +
                                           std::to_string(limits_.max_item_bytes) +
                                           " (limits.max_item_bytes of the replay configuration)");
    }
    if (item.priorities.empty() || item.priorities.size() > kMaxTablesPerItem) {
      return refuse(Status::invalid, "item " + std::to_string(i) + " names " +
                                         std::to_string(item.priorities.size()) +
                                         " tables; an item goes into 1 to 64 tables");
    }
    std::vector<std::pair<std::size_t, double>> targets;
    for (const auto& [name, priority] : item.priorities) {
      std::size_t index = tables_.size();
      for (std::size_t t = 0; t < tables_.size(); ++t) {
        if (tables_[t]->table.name() == name) index = t;
      }
      if (index == tables_.size()) return refuse(Status::invalid, unknown_table(name));
      for (const auto& target : targets) {
        if (target.first == index) {
          return refuse(Status::invalid, "item " + std::to_string(i) + " names table '" + name + "' twice");
        }
      }
      if (const auto bad = tables_[index]->table.check_priority(priority)) return refuse(Status::invalid, *bad);
      in_order = in_order && tables_[index]->table.removes_in_order();
      targets.emplace_back(index, priority);
      ++counts[index];
    }
    parked->bytes += item.data.size();
    parked->targets.push_back(std::move(targets));
    parked->data.push_back(std::move(item.data));
  }
  for (const auto& [index, count] : counts) {
    if (const auto never = never_inserts(tables_[index]->table, count)) return refuse(Status::invalid, *never);
    parked->counts.emplace_back(index, count);
  }
  if (in_order) {
    parked->buffer = std::move(request.buffer);
    parked->shared = true;
  } else {
    for (auto& data : parked->data) data = ItemBytes(data.take());
  }
  if (parked->bytes > limits_.max_data_bytes) {
    return refuse(Status::too_large, "this insert brings " + std::to_string(parked->bytes) +
                                         " bytes; the shard holds at most " + std::to_string(limits_.max_data_bytes) +
                                         " (limits.max_data_bytes)");
  }
  parked->caller = caller;
  parked->seq = request.seq;
  parked->deadline = now + std::chrono::milliseconds(std::min(request.wait_ms, limits_.max_wait_ms));
  parked->done = std::move(done);

  parked->since = now;
  // No overtaking: behind the inserts already parked on any table it touches.
  for (const auto& entry : parked->counts) {
    Slot& slot = *tables_[entry.first];
    if (!slot.inserts.empty()) {
      if (request.wait_ms == 0) return parked->done(not_ready<InsertReply>());
      slot.inserts.push_back(std::move(parked));
      return;
    }
  }
  if (try_insert(*parked) == Try::done) {
    pump(now);
    return;
  }
  if (request.wait_ms == 0) return parked->done(not_ready<InsertReply>());
  Slot& refuser = *tables_[parked->refused_by];
  refuser.inserts.push_back(std::move(parked));
}

Engine::Try Engine::try_insert(ParkedInsert& p) {
  if (p.caller.client_id != 0 && p.seq != 0) {
    if (auto keys = inserts_->find(p.caller.client_id, p.seq)) {
      InsertReply reply;
      reply.keys = std::move(*keys);
      p.done(std::move(reply));
      return Try::done;
    }
  }
  for (const auto& [index, count] : p.counts) {
    if (!tables_[index]->table.can_insert(count)) {
      p.refused_by = index;
      return Try::wait;
    }
  }
  if (store_.bytes() + p.bytes > limits_.max_data_bytes) {
    p.done(refusal<InsertReply>(Status::too_large,
                                "the shard holds " + std::to_string(store_.bytes()) + " bytes of data and takes at most " +
                                    std::to_string(limits_.max_data_bytes) +
                                    " (limits.max_data_bytes): delete or reset, or add shards"));
    return Try::done;
  }
  if (next_counter_ + p.data.size() > kMaxCounter) {
    p.done(refusal<InsertReply>(Status::too_large, "this shard has used up its 2^48 keys"));
    return Try::done;
  }
  InsertReply reply;
  reply.keys.reserve(p.data.size());
  std::vector<ItemStore::Data> shared;
  if (p.shared) {
    std::vector<std::span<const std::byte>> parts;
    parts.reserve(p.data.size());
    for (const auto& data : p.data) parts.push_back(data.view());
    shared = store_.add_shared(std::move(p.buffer), parts);
  }
  for (std::size_t i = 0; i < p.data.size(); ++i) {
    const Key key = make_key(shard_, next_counter_++);
    ItemStore::Data data = p.shared ? std::move(shared[i]) : store_.add(p.data[i].take());
    for (const auto& [index, priority] : p.targets[i]) tables_[index]->table.insert(key, priority, data);
    reply.keys.push_back(key);
  }
  if (p.caller.client_id != 0 && p.seq != 0) inserts_->remember(p.caller.client_id, p.seq, reply.keys);
  p.done(std::move(reply));
  return Try::done;
}

bool Engine::try_read(Slot& slot, ParkedRead& parked, Time now) {
  Table& table = slot.table;
  std::uint64_t bytes = 0;
  if (parked.lease) {
    if (table.queued() == 0) return false;
    LeaseReply reply;
    const std::size_t k = std::min<std::size_t>(parked.n, table.queued());
    while (reply.items.size() < k && bytes < limits_.max_reply_bytes) {
      reply.items.push_back(table.lease_one(random_token(), now + table.config().lease));
      bytes += reply.items.back().data->bytes().size();
    }
    parked.leased(std::move(reply));
    return true;
  }
  const std::int64_t k = table.sample_count(parked.n);
  if (k < 1 || k < static_cast<std::int64_t>(parked.min_n)) return false;
  SampleReply reply;
  while (static_cast<std::int64_t>(reply.items.size()) < k && table.size() > 0 &&
         bytes < limits_.max_reply_bytes) {
    reply.items.push_back(table.sample_one());
    bytes += reply.items.back().data->bytes().size();
  }
  parked.sampled(std::move(reply));
  return true;
}

bool Engine::holds_reads(const ParkedRead& parked, Time now) const {
  return now - parked.parked_at >= limits_.overtake_window;
}

bool Engine::serve_reads(Slot& slot, Time now) {
  bool served = false;
  // Those that could not go in this pass: one that needs at least as many
  // items as one that could not cannot either (nor can anything once a
  // lease or a sample of min_n 1 could not).
  std::uint32_t least_refused = UINT32_MAX;
  for (auto it = slot.reads.begin(); it != slot.reads.end();) {
    if (it->min_n < least_refused && try_read(slot, *it, now)) {
      waited(slot, it->parked_at, now);
      it = slot.reads.erase(it);
      served = true;
      continue;
    }
    // It cannot go now. Those behind it may overtake it until it has
    // waited overtake_window; from then on it holds them, so it is not
    // starved by a stream of smaller requests.
    if (holds_reads(*it, now)) break;
    least_refused = std::min(least_refused, it->min_n);
    if (least_refused <= 1) break;
    ++it;
  }
  return served;
}

void Engine::pump(Time now) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t index = 0; index < tables_.size(); ++index) {
      Slot& slot = *tables_[index];
      if (serve_reads(slot, now)) progress = true;
      while (!slot.inserts.empty()) {
        ParkedInsert& head = *slot.inserts.front();
        if (try_insert(head) == Try::done) {
          waited(slot, head.since, now);
          slot.inserts.pop_front();
          progress = true;
          continue;
        }
        if (head.refused_by == index) break;
        // Another table holds it up now: wait at the back of that one's queue.
        auto moved = std::move(slot.inserts.front());
        slot.inserts.pop_front();
        waited(slot, moved->since, now);
        moved->since = now;
        tables_[moved->refused_by]->inserts.push_back(std::move(moved));
        progress = true;
      }
    }
  }
}

void Engine::read(ParkedRead parked, const std::string& table, std::uint32_t wait_ms, Time now) {
  const auto refuse = [&](std::string message) {
    if (parked.lease) {
      parked.leased(refusal<LeaseReply>(Status::invalid, std::move(message)));
    } else {
      parked.sampled(refusal<SampleReply>(Status::invalid, std::move(message)));
    }
  };
  Slot* slot = find(table);
  if (slot == nullptr) return refuse(unknown_table(table));
  if (parked.lease != slot->table.is_work()) {
    return refuse(parked.lease ? "table '" + table + "' is not a work table: use sample"
                               : "table '" + table + "' is a work table: use lease, ack and nack");
  }
  if (parked.n < 1 || parked.n > limits_.max_items_per_call || parked.min_n < 1 || parked.min_n > parked.n) {
    return refuse("n must be 1 to " + std::to_string(limits_.max_items_per_call) + " and min_n 1 to n (n " +
                  std::to_string(parked.n) + ", min_n " + std::to_string(parked.min_n) + ")");
  }
  if (!parked.lease) {
    if (const auto never = never_samples(slot->table, parked.min_n)) return refuse(*never);
  }
  parked.parked_at = now;
  parked.deadline = now + std::chrono::milliseconds(std::min(wait_ms, limits_.max_wait_ms));
  // Every parked read that could go has gone (pump), so only one that has
  // waited overtake_window holds this one back.
  const bool held = !slot->reads.empty() && holds_reads(slot->reads.front(), now);
  if (!held && try_read(*slot, parked, now)) {
    pump(now);
    return;
  }
  if (wait_ms == 0) {
    if (parked.lease) return parked.leased(not_ready<LeaseReply>());
    return parked.sampled(not_ready<SampleReply>());
  }
  slot->reads.push_back(std::move(parked));
}

void Engine::sample(const Caller& /*caller*/, SampleRequest request, Time now, Done<SampleReply> done) {
  ParkedRead parked;
  parked.n = request.n;
  parked.min_n = request.min_n;
  parked.sampled = std::move(done);
  read(std::move(parked), request.table, request.wait_ms, now);
}

void Engine::lease(const Caller& /*caller*/, LeaseRequest request, Time now, Done<LeaseReply> done) {
  ParkedRead parked;
  parked.lease = true;
  parked.n = request.n;
  parked.min_n = 1;
  parked.leased = std::move(done);
  read(std::move(parked), request.table, request.wait_ms, now);
}

MutateReply Engine::mutate(const Caller& /*caller*/, const MutateRequest& request, Time now) {
  Slot* slot = find(request.table);
  if (slot == nullptr) return refusal<MutateReply>(Status::invalid, unknown_table(request.table));
  for (const auto& update : request.updates) {
    if (const auto bad = slot->table.check_priority(update.second)) return refusal<MutateReply>(Status::invalid, *bad);
  }
  MutateReply reply;
  for (const auto& [key, priority] : request.updates) reply.updated += slot->table.update(key, priority) ? 1 : 0;
  for (Key key : request.deletes) reply.deleted += slot->table.remove(key) ? 1 : 0;
  pump(now);
  return reply;
}

Outcome Engine::reset(const Caller& /*caller*/, const std::string& table, Time now) {
  Slot* slot = find(table);
  if (slot == nullptr) return refusal<Outcome>(Status::invalid, unknown_table(table));
  slot->table.reset();
  pump(now);
  return {};
}

CountReply Engine::ack(const Caller& /*caller*/, const std::string& table, const std::vector<LeaseRef>& leases,
                       Time now) {
  return settle(table, leases, now, true);
}

CountReply Engine::nack(const Caller& /*caller*/, const std::string& table, const std::vector<LeaseRef>& leases,
                        Time now) {
  return settle(table, leases, now, false);
}

CountReply Engine::settle(const std::string& table, const std::vector<LeaseRef>& leases, Time now, bool done) {
  const char* method = done ? "ack" : "nack";
  Slot* slot = find(table);
  if (slot == nullptr || !slot->table.is_work()) {
    return refusal<CountReply>(Status::invalid,
                               std::string(method) + " needs a work table; '" + table + "' is not one on this shard");
  }
  // Only the holder of a lease has its token: a key with another token
  // (a forged or stale one) is not counted and changes nothing.
  CountReply reply;
  for (const auto& lease : leases) reply.count += (done ? slot->table.ack(lease) : slot->table.nack(lease)) ? 1 : 0;
  pump(now);
  return reply;
}

InfoReply Engine::info(const Caller& /*caller*/, Time /*now*/) {
  InfoReply reply;
  reply.shard = shard_;
  reply.server_attempt = server_attempt_;
  reply.data_bytes = store_.bytes();
  reply.max_data_bytes = limits_.max_data_bytes;
  reply.max_item_bytes = limits_.max_item_bytes;
  reply.checkpoint_path = checkpoint_path_;
  for (const auto& slot : tables_) {
    const Table& table = slot->table;
    TableInfo info;
    info.name = table.name();
    info.kind = table.config().kind;
    info.sampler = table.config().sampler;
    info.remover = table.config().remover;
    info.max_size = table.config().max_size;
    info.max_times_sampled = table.config().max_times_sampled;
    info.size = table.size();
    info.leased = table.leased();
    info.limiter = table.limiter().config();
    info.counters = table.limiter().counters();
    info.parked_inserts = static_cast<std::uint32_t>(slot->inserts.size());
    info.parked_samples = static_cast<std::uint32_t>(slot->reads.size());
    info.lease_ms = table.is_work() ? static_cast<std::uint64_t>(table.config().lease.count()) : 0;
    reply.tables.push_back(std::move(info));
  }
  return reply;
}

void Engine::drain(Time now) {
  // Every parked request waited until now (expire_parked answers them all).
  for (auto& slot : tables_) {
    for (const auto& parked : slot->reads) waited(*slot, parked.parked_at, now);
    for (const auto& parked : slot->inserts) waited(*slot, parked->since, now);
  }
  expire_parked(std::nullopt);
}

void Engine::waited(Slot& slot, Time since, Time now) {
  if (now > since) slot.blocked += now - since;
}

void Engine::tick(Time now) {
  for (auto& slot : tables_) slot->table.expire(now);
  pump(now);
  expire_parked(now);
  // A request that timed out at the head may have held others up.
  pump(now);
}

void Engine::expire_parked(std::optional<Time> now) {
  for (auto& slot : tables_) {
    std::list<ParkedRead> reads;
    for (auto& parked : slot->reads) {
      if (now && parked.deadline > *now) {
        reads.push_back(std::move(parked));
        continue;
      }
      if (now) waited(*slot, parked.parked_at, *now);
      if (parked.lease) {
        parked.leased(not_ready<LeaseReply>());
      } else {
        parked.sampled(not_ready<SampleReply>());
      }
    }
    slot->reads = std::move(reads);
    std::deque<std::unique_ptr<ParkedInsert>> inserts;
    for (auto& parked : slot->inserts) {
      if (now && parked->deadline > *now) {
        inserts.push_back(std::move(parked));
      } else {
        if (now) waited(*slot, parked->since, *now);
        parked->done(not_ready<InsertReply>());
      }
    }
    slot->inserts = std::move(inserts);
  }
}

std::optional<Time> Engine::next_deadline() const {
  std::optional<Time> next;
  const auto consider = [&](Time at) {
    if (!next || at < *next) next = at;
  };
  for (const auto& slot : tables_) {
    for (const auto& parked : slot->reads) consider(parked.deadline);
    for (const auto& parked : slot->inserts) consider(parked->deadline);
    if (const auto expiry = slot->table.next_expiry()) consider(*expiry);
  }
  return next;
}

std::size_t Engine::parked() const {
  std::size_t count = 0;
  for (const auto& slot : tables_) count += slot->reads.size() + slot->inserts.size();
  return count;
}

std::vector<TableStats> Engine::stats(Time now) const {
  std::vector<TableStats> out;
  out.reserve(tables_.size());
  for (const auto& slot : tables_) {
    const Table& table = slot->table;
    Clock::duration blocked = slot->blocked;
    for (const auto& parked : slot->reads) blocked += std::max(Clock::duration(0), now - parked.parked_at);
    for (const auto& parked : slot->inserts) blocked += std::max(Clock::duration(0), now - parked->since);
    TableStats stats;
    stats.name = table.name();
    stats.size = table.size();
    stats.max_size = table.config().max_size;
    stats.inserted_total = table.totals().inserted;
    stats.sampled_total = table.totals().sampled;
    stats.parked_inserts = slot->inserts.size();
    stats.parked_samples = slot->reads.size();
    stats.limiter_blocked_seconds_total = std::chrono::duration<double>(blocked).count();
    out.push_back(std::move(stats));
  }
  return out;
}

std::uint64_t Engine::item_count() const {
  std::uint64_t count = 0;
  for (const auto& slot : tables_) count += slot->table.size();
  return count;
}

Snapshot Engine::snapshot() const {
  Snapshot snapshot;
  snapshot.shard = shard_;
  snapshot.next_counter = next_counter_;
  std::map<Key, ItemStore::Data> blobs;
  for (const auto& slot : tables_) {
    SnapshotTable table;
    table.name = slot->table.name();
    table.counters = slot->table.limiter().counters();
    slot->table.for_each_item([&](Key key, double priority, std::uint32_t times, const ItemStore::Data& data) {
      table.items.push_back({key, priority, times});
      blobs.emplace(key, data);
    });
    snapshot.tables.push_back(std::move(table));
  }
  snapshot.blobs.assign(blobs.begin(), blobs.end());
  inserts_->for_each([&](std::uint64_t client, std::uint64_t seq, const std::vector<Key>& keys) {
    snapshot.inserts.push_back({client, seq, keys});
  });
  return snapshot;
}

std::vector<std::string> Engine::restore(Snapshot snapshot) {
  std::vector<std::string> notes;
  std::map<Key, ItemStore::Data> blobs(snapshot.blobs.begin(), snapshot.blobs.end());
  std::uint64_t highest = 0;
  for (auto& saved : snapshot.tables) {
    Slot* slot = find(saved.name);
    if (slot == nullptr) {
      notes.push_back("table '" + saved.name + "' (" + std::to_string(saved.items.size()) +
                      " items) is no longer configured: not restored");
      continue;
    }
    for (const auto& item : saved.items) {
      const auto blob = blobs.find(item.key);
      if (blob == blobs.end()) {
        throw std::invalid_argument("checkpoint: item " + std::to_string(item.key) + " of table '" + saved.name +
                                    "' has no data");
      }
      slot->table.restore_item(item.key, item.priority, item.times, blob->second);
      highest = std::max<std::uint64_t>(highest, item.key & kMaxCounter);
    }
    slot->table.limiter().restore(saved.counters);
    if (slot->table.size() > slot->table.config().max_size) {
      notes.push_back("table '" + saved.name + "' came back with " + std::to_string(slot->table.size()) +
                      " items, above its max_size " + std::to_string(slot->table.config().max_size) +
                      ": the next inserts evict down to it");
    }
  }
  // Inserts acknowledged before the checkpoint and re-sent to this shard
  // get their keys back, as from the shard that stored them.
  for (const auto& insert : snapshot.inserts) inserts_->remember(insert.client, insert.seq, insert.keys);
  next_counter_ = std::max({next_counter_, snapshot.next_counter, highest + 1});
  return notes;
}

}  // namespace slipway::replay
