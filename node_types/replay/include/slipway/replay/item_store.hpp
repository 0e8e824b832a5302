// Where item data lives: a blob is stored once and shared by the items of
// every table it was inserted into; its memory is freed when the last item
// that refers to it goes (the last reference drops). A blob has its bytes
// to itself (add), or shares one buffer with the other blobs of the insert
// request it came in (add_shared: the request kept, not copied; one
// allocation and one reference count for all of them), which is freed with
// the last of them. The store counts the blobs and bytes alive: a blob
// counts until its memory is freed (a shared one, with the last of its
// buffer), for info and for the shard's memory bound.
//
// Contract: counts are exact at any time, from any thread (a checkpoint
// writer may drop the last reference on its own thread). A blob's bytes
// never change.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace slipway::replay {

using Bytes = std::vector<std::byte>;

// A request's bytes, shared by the items that are parts of it.
using Buffer = std::shared_ptr<const Bytes>;

// An item's bytes on their way into the store: its own, or a part of the
// Buffer of the request it came in (which whoever holds it keeps alive; a
// copy is the same part).
class ItemBytes {
 public:
  ItemBytes() = default;
  ItemBytes(Bytes own) : own_(std::move(own)), view_(own_) {}  // NOLINT(google-explicit-constructor)
  static ItemBytes part_of(std::span<const std::byte> part) {
    ItemBytes out;
    out.view_ = part;
    return out;
  }
  ItemBytes(ItemBytes&& other) noexcept;
  ItemBytes& operator=(ItemBytes&& other) noexcept;
  ItemBytes(const ItemBytes& other);
  ItemBytes& operator=(const ItemBytes& other);

  std::span<const std::byte> view() const noexcept { return view_; }
  std::size_t size() const noexcept { return view_.size(); }
  // Its own bytes: moved out, or a copy of the part.
  Bytes take();

 private:
  bool owned() const noexcept { return !own_.empty() && view_.data() == own_.data(); }
  Bytes own_;
  std::span<const std::byte> view_;  // of own_, or of the request
};

class ItemStore {
 public:
  struct Counters {
    std::atomic<std::uint64_t> blobs{0};
    std::atomic<std::uint64_t> bytes{0};
  };

  // One item's bytes, in memory that the Data's owner keeps.
  class Blob {
   public:
    explicit Blob(std::span<const std::byte> bytes) : bytes_(bytes) {}
    std::span<const std::byte> bytes() const noexcept { return bytes_; }

   private:
    std::span<const std::byte> bytes_;
  };
  using Data = std::shared_ptr<const Blob>;

  ItemStore() : counters_(std::make_shared<Counters>()) {}
  // A blob of its own.
  Data add(Bytes bytes);
  // Blobs for `parts`, each a part of `buffer` (which they keep).
  std::vector<Data> add_shared(Buffer buffer, const std::vector<std::span<const std::byte>>& parts);
  std::uint64_t blobs() const noexcept { return counters_->blobs.load(); }
  std::uint64_t bytes() const noexcept { return counters_->bytes.load(); }

 private:
  std::shared_ptr<Counters> counters_;
};

}  // namespace slipway::replay
