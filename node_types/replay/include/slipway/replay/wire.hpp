// The replay service's wire codec: the request and reply bodies of
// docs/replay.md ("Wire protocol"), encoded and decoded. The server decodes
// requests and encodes replies; the C++ client the other way round.
//
// Contract: decoders read exactly one body (bytes left over or missing throw
// ByteError naming the field); every count is checked against its bound
// before anything is reserved, so a hostile body cannot make them allocate
// more than its own size. Encoders throw ByteError for values the format
// cannot carry (a string over 65,535 bytes).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "slipway/replay/byte_io.hpp"
#include "slipway/replay/requests.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay::wire {

constexpr std::uint8_t kVersion = 2;  // 2: leases carry tokens
constexpr std::uint32_t kMaxItemsPerCall = 65536;
constexpr std::uint32_t kMaxKeysPerCall = 1048576;

using View = std::span<const std::byte>;

// A sampled or leased item as a client receives it (its own copy of the data).
struct SampleItem {
  Key key = 0;
  double priority = 0.0;
  double probability = 0.0;
  std::uint64_t table_size = 0;
  std::uint32_t times_sampled = 0;
  Bytes data;
};
struct LeaseItem {
  Key key = 0;
  std::uint32_t times_leased = 0;
  Bytes data;
  LeaseToken token{};  // what ack and nack of it must bring
  LeaseRef ref() const { return {key, token}; }
};
struct SampleResult : Outcome {
  std::vector<SampleItem> items;
};
struct LeaseResult : Outcome {
  std::vector<LeaseItem> items;
};
struct LeasesRequest {  // ack, nack
  std::string table;
  std::vector<LeaseRef> leases;
};

// Requests: the caller block first.
void put_caller(ByteWriter& w, const Caller& caller);
Caller get_caller(ByteReader& r);  // throws ByteError for another version

Bytes encode_caller_only(const Caller& caller);  // info, checkpoint
Bytes encode_insert(const Caller& caller, std::uint64_t seq, std::uint32_t wait_ms,
                    const std::vector<std::pair<View, std::vector<std::pair<std::string, double>>>>& items);
// An insert request of items into one table, built as they come (a
// Writer's batch): the same bytes as encode_insert, without a copy of each
// item on the way. finish() sets the seq and the item count, returns the
// request and leaves the encoder empty.
class InsertEncoder {
 public:
  InsertEncoder(const Caller& caller, std::string table, std::uint32_t wait_ms);
  void add(View data, double priority);
  std::size_t items() const noexcept { return items_; }
  Bytes finish(std::uint64_t seq);
  // Gives back a finished batch's buffer once its insert is acknowledged:
  // the next batch is encoded into it (its capacity kept, its bytes
  // overwritten) instead of into fresh memory the kernel must fault in.
  void reuse(Bytes&& acknowledged);

 private:
  void start();
  Caller caller_;
  std::string table_;
  std::uint32_t wait_ms_;
  Bytes out_;
  Bytes spare_;                // an acknowledged batch's buffer (reuse())
  std::size_t last_size_ = 0;  // the last batch's size: the next one's likely
  std::size_t items_ = 0;
  std::size_t seq_at_ = 0;  // offsets of the fields finish() sets
  std::size_t count_at_ = 0;
};
Bytes encode_sample(const Caller& caller, const SampleRequest& request);
Bytes encode_lease(const Caller& caller, const LeaseRequest& request);
Bytes encode_mutate(const Caller& caller, const MutateRequest& request);
Bytes encode_table(const Caller& caller, const std::string& table);  // reset
Bytes encode_leases(const Caller& caller, const LeasesRequest& request);  // ack, nack

InsertRequest decode_insert(ByteReader& r);
// The same, its items' data left in `body` (the bytes `r` reads), which
// the request takes over as its buffer: no copy of them. Throws
// std::invalid_argument when `r` does not read `body`.
InsertRequest decode_insert(ByteReader& r, Bytes&& body);
SampleRequest decode_sample(ByteReader& r);
LeaseRequest decode_lease(ByteReader& r);
MutateRequest decode_mutate(ByteReader& r);
std::string decode_table(ByteReader& r);
LeasesRequest decode_leases(ByteReader& r);

// Replies: u8 status, then a message (invalid, too_large) or the body (ok).
Bytes encode_outcome(const Outcome& outcome);  // reset, and any refusal
Bytes encode_reply(const InsertReply& reply);
Bytes encode_reply(const SampleReply& reply);
Bytes encode_reply(const LeaseReply& reply);
Bytes encode_reply(const MutateReply& reply);
Bytes encode_reply(const CountReply& reply);
Bytes encode_reply(const PathReply& reply);
Bytes encode_reply(const InfoReply& reply);

Outcome decode_outcome(View body);
InsertReply decode_insert_reply(View body);
SampleResult decode_sample_reply(View body);
LeaseResult decode_lease_reply(View body);
MutateReply decode_mutate_reply(View body);
CountReply decode_count_reply(View body);
PathReply decode_path_reply(View body);
InfoReply decode_info_reply(View body);

}  // namespace slipway::replay::wire
