// A shard's checkpoint directory: numbered checkpoint files written
// atomically (a temporary file, fsync, rename, fsync of the directory; the
// last `keep` kept) and the newest complete one found again at start.
//
// Contract: a crash at any moment leaves either the previous checkpoints or
// the new one, never a partial file under a checkpoint's name. Nothing is
// written through a symbolic link: the temporary file is created with
// O_EXCL|O_NOFOLLOW, and whatever has its name already is unlinked (named
// in `notes`). load_newest skips files that do not parse and anything that
// is not a regular file of at most limits.max_file_bytes (named, with why,
// in `skipped`), never following a link nor waiting on a FIFO. Errors of
// the file system throw std::runtime_error naming the path and errno's text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "slipway/replay/checkpoint.hpp"

namespace slipway::replay {

class CheckpointDirectory {
 public:
  explicit CheckpointDirectory(std::filesystem::path directory, std::size_t keep = 2);

  const std::filesystem::path& directory() const noexcept { return directory_; }
  std::filesystem::path write(const Snapshot& snapshot, std::vector<std::string>& notes);

  struct Loaded {
    std::filesystem::path file;
    Snapshot snapshot;
  };
  std::optional<Loaded> load_newest(ItemStore& store, const CheckpointLimits& limits,
                                    std::vector<std::string>& skipped);

 private:
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> existing() const;
  std::filesystem::path directory_;
  std::size_t keep_;
  std::uint64_t next_ = 1;
};

}  // namespace slipway::replay
