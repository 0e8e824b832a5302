// Shared blobs and their accounting.
#include "slipway/replay/item_store.hpp"

#include <utility>

namespace slipway::replay {

ItemStore::Blob::Blob(Bytes bytes, std::shared_ptr<Counters> counters)
    : bytes_(std::move(bytes)), counters_(std::move(counters)) {
  counters_->blobs.fetch_add(1);
  counters_->bytes.fetch_add(bytes_.size());
}

ItemStore::Blob::~Blob() {
  counters_->blobs.fetch_sub(1);
  counters_->bytes.fetch_sub(bytes_.size());
}

ItemStore::Data ItemStore::add(Bytes bytes) {
  return std::make_shared<const Blob>(std::move(bytes), counters_);
}

}  // namespace slipway::replay
