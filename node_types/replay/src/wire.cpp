// Encoding and decoding of the replay wire protocol (docs/replay.md).
// Over 500 lines, one concern: the protocol's codec, every request and reply
// over the same bounded readers and writers; a split would share those
// through a header used by its two halves only.
#include "slipway/replay/wire.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace slipway::replay::wire {

namespace {
constexpr std::uint64_t kAnyBlob = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kMaxMessage = 16384;

std::uint32_t count(ByteReader& r, const char* what, std::uint32_t max, std::size_t min_bytes_each) {
  const std::uint32_t n = r.u32(what);
  if (n > max) throw ByteError(std::string(what) + ": " + std::to_string(n) + ", at most " + std::to_string(max));
  if (static_cast<std::uint64_t>(n) * min_bytes_each > r.left()) {
    throw ByteError(std::string(what) + ": " + std::to_string(n) + " entries cannot fit in the " +
                    std::to_string(r.left()) + " bytes left");
  }
  return n;
}

// Reads the status; true when the body follows (ok), else fills `outcome`.
bool status_of(ByteReader& r, Outcome& outcome) {
  const std::uint8_t status = r.u8("status");
  if (status > static_cast<std::uint8_t>(Status::too_large)) {
    throw ByteError("unknown reply status " + std::to_string(status));
  }
  outcome.status = static_cast<Status>(status);
  if (outcome.status == Status::ok) return true;
  if (outcome.status != Status::not_ready) outcome.message = r.str("message", 0xFFFF);
  r.finish("reply");
  return false;
}

void put_outcome(ByteWriter& w, const Outcome& outcome) {
  w.u8(static_cast<std::uint8_t>(outcome.status));
  if (outcome.status == Status::invalid || outcome.status == Status::too_large) {
    w.str(outcome.message.size() > kMaxMessage ? outcome.message.substr(0, kMaxMessage) : outcome.message);
  }
}

// A request: the caller block, then what `fill` writes.
template <typename Fill>
Bytes request_of(const Caller& caller, Fill fill) {
  Bytes out;
  ByteWriter w(out);
  put_caller(w, caller);
  fill(w);
  return out;
}

// A reply: the status (and a refusal's message), then on ok what `fill` writes.
template <typename Fill>
Bytes reply_of(const Outcome& outcome, Fill fill) {
  Bytes out;
  ByteWriter w(out);
  put_outcome(w, outcome);
  if (outcome.status == Status::ok) fill(w);
  return out;
}

// A reply read: the status, then on ok what `fill` reads, then the end.
template <typename Reply, typename Fill>
Reply decode_of(View body, const char* what, Fill fill) {
  ByteReader r(body);
  Reply reply;
  if (!status_of(r, reply)) return reply;
  fill(r, reply);
  r.finish(what);
  return reply;
}

void put_selector(ByteWriter& w, const SelectorSpec& spec) {
  w.u8(static_cast<std::uint8_t>(spec.kind));
  w.f64(spec.kind == SelectorKind::prioritized ? spec.exponent : 0.0);
}

void put_token(ByteWriter& w, const LeaseToken& token) { w.raw(token); }

LeaseToken get_token(ByteReader& r) {
  LeaseToken token;
  const auto bytes = r.raw(token.size(), "token");
  std::memcpy(token.data(), bytes.data(), token.size());
  return token;
}

SelectorSpec get_selector(ByteReader& r) {
  const std::uint8_t kind = r.u8("selector");
  if (kind > static_cast<std::uint8_t>(SelectorKind::prioritized)) throw ByteError("unknown selector kind");
  return {static_cast<SelectorKind>(kind), r.f64("exponent")};
}
}  // namespace

void put_caller(ByteWriter& w, const Caller& caller) {
  w.u8(kVersion);
  w.u64(caller.client_id);
  w.u32(caller.replica);
  w.u32(caller.attempt);
  w.str(caller.node);
}

Caller get_caller(ByteReader& r) {
  const std::uint8_t version = r.u8("version");
  if (version != kVersion) {
    throw ByteError("protocol version " + std::to_string(version) + "; this server speaks version " +
                    std::to_string(kVersion) + " (run the same slipway on both sides)");
  }
  Caller caller;
  caller.client_id = r.u64("client_id");
  caller.replica = r.u32("replica");
  caller.attempt = r.u32("attempt");
  caller.node = r.str("node", 255);
  return caller;
}

Bytes encode_caller_only(const Caller& caller) {
  return request_of(caller, [](ByteWriter&) {});
}

namespace {

// An insert request's head: the caller block, seq, wait and item count.
void put_insert_head(ByteWriter& w, const Caller& caller, std::uint64_t seq, std::uint32_t wait_ms,
                     std::uint32_t items) {
  put_caller(w, caller);
  w.u64(seq);
  w.u32(wait_ms);
  w.u32(items);
}

// One item's part of an insert request, after its data: its table count,
// then each table and priority (put_insert_table).
void put_insert_table(ByteWriter& w, std::string_view table, double priority) {
  w.str(table);
  w.f64(priority);
}

}  // namespace

Bytes encode_insert(const Caller& caller, std::uint64_t seq, std::uint32_t wait_ms,
                    const std::vector<std::pair<View, std::vector<std::pair<std::string, double>>>>& items) {
  Bytes out;
  std::size_t size = 64;
  for (const auto& item : items) size += item.first.size() + 8 + item.second.size() * 32;
  out.reserve(size);
  ByteWriter w(out);
  put_insert_head(w, caller, seq, wait_ms, static_cast<std::uint32_t>(items.size()));
  for (const auto& [data, tables] : items) {
    w.blob(data);
    w.u16(static_cast<std::uint16_t>(tables.size()));
    for (const auto& [table, priority] : tables) put_insert_table(w, table, priority);
  }
  return out;
}

InsertEncoder::InsertEncoder(const Caller& caller, std::string table, std::uint32_t wait_ms)
    : caller_(caller), table_(std::move(table)), wait_ms_(wait_ms) {}

void InsertEncoder::start() {
  // Room for a batch like the last one, so that add() does not regrow the
  // buffer item by item: an acknowledged batch's buffer when there is one.
  if (spare_.capacity() >= last_size_ && spare_.capacity() > out_.capacity()) {
    spare_.clear();
    out_ = std::move(spare_);
    spare_ = Bytes();
  }
  out_.reserve(last_size_);
  ByteWriter w(out_);
  put_insert_head(w, caller_, 0, wait_ms_, 0);
  count_at_ = out_.size() - sizeof(std::uint32_t);
  seq_at_ = count_at_ - sizeof(std::uint32_t) - sizeof(std::uint64_t);
}

void InsertEncoder::add(View data, double priority) {
  if (items_ == 0) start();
  const std::size_t needed = out_.size() + data.size() + 16 + table_.size();
  if (needed > out_.capacity()) out_.reserve(std::max(needed, 2 * out_.capacity()));
  ByteWriter w(out_);
  w.blob(data);
  w.u16(1);
  put_insert_table(w, table_, priority);
  ++items_;
}

Bytes InsertEncoder::finish(std::uint64_t seq) {
  if (items_ == 0) start();
  const auto count = static_cast<std::uint32_t>(items_);
  std::memcpy(out_.data() + seq_at_, &seq, sizeof seq);
  std::memcpy(out_.data() + count_at_, &count, sizeof count);
  items_ = 0;
  Bytes body = std::move(out_);
  out_ = Bytes();
  last_size_ = body.size();
  return body;
}

void InsertEncoder::reuse(Bytes&& acknowledged) {
  if (acknowledged.capacity() > spare_.capacity()) spare_ = std::move(acknowledged);
}

Bytes encode_sample(const Caller& caller, const SampleRequest& request) {
  return request_of(caller, [&](ByteWriter& w) {
    w.str(request.table);
    w.u32(request.n);
    w.u32(request.min_n);
    w.u32(request.wait_ms);
  });
}

Bytes encode_lease(const Caller& caller, const LeaseRequest& request) {
  return request_of(caller, [&](ByteWriter& w) {
    w.str(request.table);
    w.u32(request.n);
    w.u32(request.wait_ms);
  });
}

Bytes encode_mutate(const Caller& caller, const MutateRequest& request) {
  return request_of(caller, [&](ByteWriter& w) {
    w.str(request.table);
    w.u32(static_cast<std::uint32_t>(request.updates.size()));
    for (const auto& [key, priority] : request.updates) {
      w.u64(key);
      w.f64(priority);
    }
    w.u32(static_cast<std::uint32_t>(request.deletes.size()));
    for (Key key : request.deletes) w.u64(key);
  });
}

Bytes encode_table(const Caller& caller, const std::string& table) {
  return request_of(caller, [&](ByteWriter& w) {
    w.str(table);
  });
}

Bytes encode_leases(const Caller& caller, const LeasesRequest& request) {
  return request_of(caller, [&](ByteWriter& w) {
    w.str(request.table);
    w.u32(static_cast<std::uint32_t>(request.leases.size()));
    for (const auto& lease : request.leases) {
      w.u64(lease.key);
      put_token(w, lease.token);
    }
  });
}

namespace {

// An insert request; each item's data copied out (`keep` false) or left
// where it is in what `r` reads.
InsertRequest decode_insert_items(ByteReader& r, bool keep) {
  InsertRequest request;
  request.seq = r.u64("seq");
  request.wait_ms = r.u32("wait_ms");
  const std::uint32_t n = count(r, "item_count", kMaxItemsPerCall, 4 + 2);
  request.items.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    InsertItem item;
    const auto data = r.blob("item data", kAnyBlob);
    item.data = keep ? ItemBytes::part_of(data) : ItemBytes(Bytes(data.begin(), data.end()));
    const std::uint16_t tables = r.u16("table_count");
    if (tables > 64) throw ByteError("table_count: " + std::to_string(tables) + ", at most 64");
    for (std::uint16_t t = 0; t < tables; ++t) {
      std::string table = r.str("table");
      const double priority = r.f64("priority");
      item.priorities.emplace_back(std::move(table), priority);
    }
    request.items.push_back(std::move(item));
  }
  r.finish("insert request");
  return request;
}

}  // namespace

InsertRequest decode_insert(ByteReader& r) { return decode_insert_items(r, false); }

InsertRequest decode_insert(ByteReader& r, Bytes&& body) {
  if (r.data() != body.data() || r.size() != body.size()) {
    throw std::invalid_argument("decode_insert: the reader does not read the body it keeps");
  }
  InsertRequest request = decode_insert_items(r, true);
  request.buffer = std::make_shared<const Bytes>(std::move(body));  // the heap block moves: the parts stay valid
  return request;
}

SampleRequest decode_sample(ByteReader& r) {
  SampleRequest request;
  request.table = r.str("table");
  request.n = r.u32("n");
  request.min_n = r.u32("min_n");
  request.wait_ms = r.u32("wait_ms");
  r.finish("sample request");
  return request;
}

LeaseRequest decode_lease(ByteReader& r) {
  LeaseRequest request;
  request.table = r.str("table");
  request.n = r.u32("n");
  request.wait_ms = r.u32("wait_ms");
  r.finish("lease request");
  return request;
}

MutateRequest decode_mutate(ByteReader& r) {
  MutateRequest request;
  request.table = r.str("table");
  const std::uint32_t updates = count(r, "update_count", kMaxKeysPerCall, 16);
  request.updates.reserve(updates);
  for (std::uint32_t i = 0; i < updates; ++i) {
    const Key key = r.u64("key");
    request.updates.emplace_back(key, r.f64("priority"));
  }
  const std::uint32_t deletes = count(r, "delete_count", kMaxKeysPerCall, 8);
  request.deletes.reserve(deletes);
  for (std::uint32_t i = 0; i < deletes; ++i) request.deletes.push_back(r.u64("key"));
  r.finish("mutate request");
  return request;
}

std::string decode_table(ByteReader& r) {
  std::string table = r.str("table");
  r.finish("request");
  return table;
}

LeasesRequest decode_leases(ByteReader& r) {
  LeasesRequest request;
  request.table = r.str("table");
  const std::uint32_t n = count(r, "lease_count", kMaxKeysPerCall, 8 + sizeof(LeaseToken));
  request.leases.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    LeaseRef lease;
    lease.key = r.u64("key");
    lease.token = get_token(r);
    request.leases.push_back(lease);
  }
  r.finish("request");
  return request;
}

Bytes encode_outcome(const Outcome& outcome) {
  Bytes out;
  ByteWriter w(out);
  put_outcome(w, outcome);
  return out;
}

Bytes encode_reply(const InsertReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) {
    w.u32(static_cast<std::uint32_t>(reply.keys.size()));
    for (Key key : reply.keys) w.u64(key);
  });
}

Bytes encode_reply(const SampleReply& reply) {
  Bytes out;
  if (reply.status == Status::ok) {
    std::size_t size = 5;
    for (const auto& item : reply.items) size += 40 + item.data->bytes().size();
    out.reserve(size);
  }
  ByteWriter w(out);
  put_outcome(w, reply);
  if (reply.status != Status::ok) return out;
  w.u32(static_cast<std::uint32_t>(reply.items.size()));
  for (const auto& item : reply.items) {
    w.u64(item.key);
    w.f64(item.priority);
    w.f64(item.probability);
    w.u64(item.table_size);
    w.u32(item.times_sampled);
    w.blob(item.data->bytes());
  }
  return out;
}

Bytes encode_reply(const LeaseReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) {
    w.u32(static_cast<std::uint32_t>(reply.items.size()));
    for (const auto& item : reply.items) {
      w.u64(item.key);
      w.u32(item.times_leased);
      put_token(w, item.token);
      w.blob(item.data->bytes());
    }
  });
}

Bytes encode_reply(const MutateReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) {
    w.u32(reply.updated);
    w.u32(reply.deleted);
  });
}

Bytes encode_reply(const CountReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) { w.u32(reply.count); });
}

Bytes encode_reply(const PathReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) { w.str(reply.path); });
}

Bytes encode_reply(const InfoReply& reply) {
  return reply_of(reply, [&](ByteWriter& w) {
    w.u32(reply.shard);
    w.u32(reply.server_attempt);
    w.u64(reply.data_bytes);
    w.u64(reply.max_data_bytes);
    w.u64(reply.max_item_bytes);
    w.str(reply.checkpoint_path);
    w.u32(static_cast<std::uint32_t>(reply.tables.size()));
    for (const auto& table : reply.tables) {
      w.str(table.name);
      w.u8(static_cast<std::uint8_t>(table.kind));
      put_selector(w, table.sampler);
      put_selector(w, table.remover);
      w.u64(table.max_size);
      w.u32(table.max_times_sampled);
      w.u64(table.size);
      w.u64(table.leased);
      w.f64(table.limiter.samples_per_insert);
      w.i64(table.limiter.min_size_to_sample);
      w.f64(table.limiter.min_diff);
      w.f64(table.limiter.max_diff);
      w.i64(table.counters.inserts);
      w.i64(table.counters.samples);
      w.i64(table.counters.deletes);
      w.u32(table.parked_inserts);
      w.u32(table.parked_samples);
      w.u64(table.lease_ms);
    }
  });
}

Outcome decode_outcome(View body) {
  ByteReader r(body);
  Outcome outcome;
  if (status_of(r, outcome)) r.finish("reply");
  return outcome;
}

InsertReply decode_insert_reply(View body) {
  return decode_of<InsertReply>(body, "insert reply", [](ByteReader& r, InsertReply& reply) {
    const std::uint32_t n = count(r, "item_count", kMaxItemsPerCall, 8);
    reply.keys.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) reply.keys.push_back(r.u64("key"));
  });
}

SampleResult decode_sample_reply(View body) {
  return decode_of<SampleResult>(body, "sample reply", [](ByteReader& r, SampleResult& reply) {
    const std::uint32_t n = count(r, "k", kMaxItemsPerCall, 40);
    reply.items.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      SampleItem item;
      item.key = r.u64("key");
      item.priority = r.f64("priority");
      item.probability = r.f64("probability");
      item.table_size = r.u64("table_size");
      item.times_sampled = r.u32("times_sampled");
      const auto data = r.blob("data", kAnyBlob);
      item.data.assign(data.begin(), data.end());
      reply.items.push_back(std::move(item));
    }
  });
}

LeaseResult decode_lease_reply(View body) {
  return decode_of<LeaseResult>(body, "lease reply", [](ByteReader& r, LeaseResult& reply) {
    const std::uint32_t n = count(r, "k", kMaxItemsPerCall, 16 + sizeof(LeaseToken));
    reply.items.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      LeaseItem item;
      item.key = r.u64("key");
      item.times_leased = r.u32("times_leased");
      item.token = get_token(r);
      const auto data = r.blob("data", kAnyBlob);
      item.data.assign(data.begin(), data.end());
      reply.items.push_back(std::move(item));
    }
  });
}

MutateReply decode_mutate_reply(View body) {
  return decode_of<MutateReply>(body, "mutate reply", [](ByteReader& r, MutateReply& reply) {
    reply.updated = r.u32("updated");
    reply.deleted = r.u32("deleted");
  });
}

CountReply decode_count_reply(View body) {
  return decode_of<CountReply>(body, "reply", [](ByteReader& r, CountReply& reply) {
    reply.count = r.u32("count");
  });
}

PathReply decode_path_reply(View body) {
  return decode_of<PathReply>(body, "checkpoint reply", [](ByteReader& r, PathReply& reply) {
    reply.path = r.str("path", 0xFFFF);
  });
}

InfoReply decode_info_reply(View body) {
  return decode_of<InfoReply>(body, "info reply", [](ByteReader& r, InfoReply& reply) {
    reply.shard = r.u32("shard");
    reply.server_attempt = r.u32("server_attempt");
    reply.data_bytes = r.u64("data_bytes");
    reply.max_data_bytes = r.u64("max_data_bytes");
    reply.max_item_bytes = r.u64("max_item_bytes");
    reply.checkpoint_path = r.str("checkpoint_path", 0xFFFF);
    const std::uint32_t n = count(r, "table_count", 65536, 100);
    for (std::uint32_t i = 0; i < n; ++i) {
      TableInfo table;
      table.name = r.str("name");
      const std::uint8_t kind = r.u8("kind");
      if (kind > static_cast<std::uint8_t>(TableKind::work)) throw ByteError("unknown table kind");
      table.kind = static_cast<TableKind>(kind);
      table.sampler = get_selector(r);
      table.remover = get_selector(r);
      table.max_size = r.u64("max_size");
      table.max_times_sampled = r.u32("max_times_sampled");
      table.size = r.u64("size");
      table.leased = r.u64("leased");
      table.limiter.samples_per_insert = r.f64("samples_per_insert");
      table.limiter.min_size_to_sample = r.i64("min_size_to_sample");
      table.limiter.min_diff = r.f64("min_diff");
      table.limiter.max_diff = r.f64("max_diff");
      table.counters.inserts = r.i64("inserts");
      table.counters.samples = r.i64("samples");
      table.counters.deletes = r.i64("deletes");
      table.parked_inserts = r.u32("parked_inserts");
      table.parked_samples = r.u32("parked_samples");
      table.lease_ms = r.u64("lease_ms");
      reply.tables.push_back(std::move(table));
    }
  });
}

}  // namespace slipway::replay::wire
