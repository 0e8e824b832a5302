// libFuzzer target for the checkpoint parser (what a shard reads back from
// its checkpoint directory at start, a file anyone with access to it could
// have changed: docs/replay.md, "Checkpoints"). Properties checked on every
// input: parsing never crashes, reads out of bounds or allocates past the
// limits (ASan/UBSan); a refusal is a CheckpointError that says why; what
// parses has its blobs in the store (each once) and re-encodes into a
// checkpoint that parses to the same items.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "slipway/replay/checkpoint.hpp"

using namespace slipway::replay;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CheckpointLimits limits;
  limits.max_blob_bytes = 4096;
  limits.max_tables = 8;
  ItemStore store;
  Snapshot snapshot;
  try {
    snapshot = parse_checkpoint(std::span(reinterpret_cast<const std::byte*>(data), size), store, limits);
  } catch (const CheckpointError& error) {
    if (std::strlen(error.what()) == 0) std::abort();
    return 0;
  }
  if (store.blobs() != snapshot.blobs.size()) std::abort();
  ItemStore again;
  const Snapshot back = parse_checkpoint(encode_checkpoint(snapshot), again, limits);
  if (back.item_count() != snapshot.item_count() || back.data_bytes() != snapshot.data_bytes()) std::abort();
  return 0;
}
