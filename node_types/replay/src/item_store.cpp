// Shared blobs and their accounting.
#include "slipway/replay/item_store.hpp"

#include <utility>

namespace slipway::replay {

namespace {

// Counts `blobs` blobs of `bytes` bytes in all while it lives.
class Counted {
 public:
  Counted(std::shared_ptr<ItemStore::Counters> counters, std::uint64_t blobs, std::uint64_t bytes)
      : counters_(std::move(counters)), blobs_(blobs), bytes_(bytes) {
    counters_->blobs.fetch_add(blobs_);
    counters_->bytes.fetch_add(bytes_);
  }
  ~Counted() {
    counters_->blobs.fetch_sub(blobs_);
    counters_->bytes.fetch_sub(bytes_);
  }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::shared_ptr<ItemStore::Counters> counters_;
  std::uint64_t blobs_;
  std::uint64_t bytes_;
};

// A blob's own bytes (one allocation with its reference count).
struct Own {
  Own(Bytes data, std::shared_ptr<ItemStore::Counters> counters)
      : bytes(std::move(data)), blob(bytes), counted(std::move(counters), 1, bytes.size()) {}
  Bytes bytes;
  ItemStore::Blob blob;
  Counted counted;
};

// A request's bytes and the blobs in it (one allocation, one reference
// count for all of them).
struct Shared {
  Shared(Buffer data, const std::vector<std::span<const std::byte>>& parts, std::uint64_t part_bytes,
         std::shared_ptr<ItemStore::Counters> counters)
      : buffer(std::move(data)), counted(std::move(counters), parts.size(), part_bytes) {
    blobs.reserve(parts.size());
    for (const auto& part : parts) blobs.emplace_back(part);
  }
  Buffer buffer;
  std::vector<ItemStore::Blob> blobs;
  Counted counted;
};

}  // namespace

ItemBytes::ItemBytes(ItemBytes&& other) noexcept { *this = std::move(other); }

ItemBytes& ItemBytes::operator=(ItemBytes&& other) noexcept {
  if (this == &other) return *this;
  const bool owns = other.owned();
  own_ = std::move(other.own_);  // the heap block moves with it: a view of it stays valid
  view_ = owns ? std::span<const std::byte>(own_) : other.view_;
  other.own_.clear();
  other.view_ = {};
  return *this;
}

ItemBytes::ItemBytes(const ItemBytes& other) { *this = other; }

ItemBytes& ItemBytes::operator=(const ItemBytes& other) {
  if (this == &other) return *this;
  if (other.owned()) {
    own_ = other.own_;
    view_ = own_;
  } else {
    own_.clear();
    view_ = other.view_;
  }
  return *this;
}

Bytes ItemBytes::take() {
  Bytes out = owned() ? std::move(own_) : Bytes(view_.begin(), view_.end());
  own_.clear();
  view_ = {};
  return out;
}

ItemStore::Data ItemStore::add(Bytes bytes) {
  auto own = std::make_shared<const Own>(std::move(bytes), counters_);
  return Data(own, &own->blob);
}

std::vector<ItemStore::Data> ItemStore::add_shared(Buffer buffer, const std::vector<std::span<const std::byte>>& parts) {
  std::uint64_t part_bytes = 0;
  for (const auto& part : parts) part_bytes += part.size();
  auto shared = std::make_shared<const Shared>(std::move(buffer), parts, part_bytes, counters_);
  std::vector<Data> out;
  out.reserve(parts.size());
  for (const auto& blob : shared->blobs) out.emplace_back(shared, &blob);
  return out;
}

}  // namespace slipway::replay
