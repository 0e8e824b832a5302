// Where item data lives: a blob is stored once and shared by the items of
// every table it was inserted into; it is freed when the last item that
// refers to it goes (the last reference drops). The store counts the blobs
// and bytes alive, for info and for the shard's memory bound.
//
// Contract: counts are exact at any time, from any thread (a checkpoint
// writer may drop the last reference on its own thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace slipway::replay {

using Bytes = std::vector<std::byte>;

class ItemStore {
 public:
  struct Counters {
    std::atomic<std::uint64_t> blobs{0};
    std::atomic<std::uint64_t> bytes{0};
  };

  class Blob {
   public:
    Blob(Bytes bytes, std::shared_ptr<Counters> counters);
    ~Blob();
    Blob(const Blob&) = delete;
    Blob& operator=(const Blob&) = delete;
    const Bytes& bytes() const noexcept { return bytes_; }

   private:
    Bytes bytes_;
    std::shared_ptr<Counters> counters_;
  };
  using Data = std::shared_ptr<const Blob>;

  ItemStore() : counters_(std::make_shared<Counters>()) {}
  Data add(Bytes bytes);
  std::uint64_t blobs() const noexcept { return counters_->blobs.load(); }
  std::uint64_t bytes() const noexcept { return counters_->bytes.load(); }

 private:
  std::shared_ptr<Counters> counters_;
};

}  // namespace slipway::replay
