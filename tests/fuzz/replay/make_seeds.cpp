// Writes the replay fuzzers' starting corpus into the directory given as
// argv[1]: one request of each method (seed-request-*, the method byte
// first) and a checkpoint of a small engine (seed-checkpoint-*).
#include <cstdio>
#include <string>

#include "slipway/replay/checkpoint.hpp"
#include "slipway/replay/engine.hpp"
#include "slipway/replay/wire.hpp"

using namespace slipway::replay;

namespace {
bool write(const std::string& path, std::uint8_t first, const Bytes& bytes, bool with_first = true) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  if (with_first) std::fputc(first, f);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  return std::fclose(f) == 0;
}

Bytes text(const std::string& s) {
  Bytes out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<std::byte>(s[i]);
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const Caller caller{7, 1, 0, "actor"};
  const Bytes data = text("payload");
  LeaseToken token{};
  token[3] = std::byte{9};
  const Bytes requests[] = {
      wire::encode_insert(caller, 1, 100, {{data, {{"t", 1.0}, {"q", 2.0}}}}),
      wire::encode_sample(caller, {"t", 4, 1, 100}),
      wire::encode_lease(caller, {"jobs", 2, 100}),
      wire::encode_mutate(caller, {"t", {{1, 0.5}}, {2, 3}}),
      wire::encode_table(caller, "t"),
      wire::encode_leases(caller, {"jobs", {{5, token}}}),
      wire::encode_caller_only(caller),
  };
  for (std::uint8_t i = 0; i < 7; ++i) {
    if (!write(dir + "/seed-request-" + std::to_string(i), i, requests[i])) return 1;
  }

  TableConfig table;
  table.name = "t";
  TableConfig queue;
  queue.name = "q";
  queue.kind = TableKind::queue;
  queue.max_size = 10;
  queue.rate_limiter = RateLimiterConfig::queue(10);
  Engine engine({{table, queue}, {}}, 0);
  for (int i = 0; i < 3; ++i) {
    InsertRequest insert;
    insert.seq = static_cast<std::uint64_t>(i + 1);
    insert.items.push_back({text("item" + std::to_string(i)), {{"t", 1.0 + i}, {"q", 1.0}}});
    engine.insert(caller, insert, Time{}, [](InsertReply) {});
  }
  return write(dir + "/seed-checkpoint-0", 0, encode_checkpoint(engine.snapshot()), false) ? 0 : 1;
}
