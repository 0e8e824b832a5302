// Checkpoint files on disk: atomic writes, rotation, loading the newest.
#include "checkpoint_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"

namespace slipway::replay {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kPrefix = "checkpoint-";
constexpr std::string_view kSuffix = ".ckpt";
constexpr std::size_t kWriteBuffer = std::size_t{1} << 20;

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

std::string file_name(std::uint64_t number) {
  std::string digits = std::to_string(number);
  return std::string(kPrefix) + std::string(20 - std::min<std::size_t>(20, digits.size()), '0') + digits +
         std::string(kSuffix);
}

std::optional<std::uint64_t> number_of(const std::string& name) {
  if (name.size() != kPrefix.size() + 20 + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix)) {
    return std::nullopt;
  }
  const std::string digits = name.substr(kPrefix.size(), 20);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return std::stoull(digits);
}

void sync_directory(const fs::path& directory) {
  base::UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::fsync(fd.get()) != 0) fail("cannot sync the directory", directory);
}

// What a file that is not a regular one is, for the message refusing it.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& why) {
  throw CheckpointError(why + ": the shard writes its checkpoints as regular files; move it away");
}

// Opens a new temporary file for a checkpoint without following a symbolic
// link. Whatever already has its name (a temporary left by a crash, or
// something planted there) is unlinked, never followed (a directory
// cannot be, and the write fails naming it); each removal is named in
// `notes`.
base::UniqueFd create_temporary(const fs::path& temporary, std::vector<std::string>& notes) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  base::UniqueFd fd(::open(temporary.c_str(), kFlags, 0600));
  if (fd) return fd;
  if (errno != EEXIST) fail("cannot create", temporary);
  struct stat st {};
  const std::string what = ::lstat(temporary.c_str(), &st) != 0 ? std::string("a file")
                           : S_ISREG(st.st_mode)              ? std::string("a regular file")
                                                              : kind_of(st.st_mode);
  if (::unlink(temporary.c_str()) != 0) {
    fail("checkpoint not written: " + what + " is in the way, and cannot be removed:", temporary);
  }
  notes.push_back("removed " + what + " found at " + temporary.string() +
                  " (a temporary left by a crash, or put there): nothing was written through it");
  fd.reset(::open(temporary.c_str(), kFlags, 0600));
  if (!fd) fail("cannot create", temporary);
  return fd;
}

// The bytes of one checkpoint file. Refuses, with CheckpointError, anything
// but a regular file (a symbolic link, a directory, a FIFO, a device: never
// followed, never waited on) and a file larger than `max_bytes`; reads
// exactly the size it had when opened.
std::string read_file(const fs::path& file, std::uint64_t max_bytes) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) throw CheckpointError(std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse("is " + kind_of(st.st_mode));
  // Checked again on what was opened: it may have been swapped since.
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  if (!fd) {
    if (errno == ELOOP) refuse("is a symbolic link");
    throw CheckpointError(std::string("cannot be opened: ") + std::strerror(errno));
  }
  if (::fstat(fd.get(), &st) != 0) throw CheckpointError(std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse("is " + kind_of(st.st_mode));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throw CheckpointError("has " + std::to_string(size) + " bytes, more than a checkpoint of this shard can have (" +
                          std::to_string(max_bytes) + ": limits.max_data_bytes and the tables' records)");
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw CheckpointError(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;  // shorter than when opened: the parse names what is missing
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}
}  // namespace

CheckpointDirectory::CheckpointDirectory(fs::path directory, std::size_t keep)
    : directory_(std::move(directory)), keep_(std::max<std::size_t>(1, keep)) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) throw std::runtime_error("cannot create " + directory_.string() + ": " + error.message());
  const auto files = existing();
  if (!files.empty()) next_ = files.back().first + 1;
}

std::vector<std::pair<std::uint64_t, fs::path>> CheckpointDirectory::existing() const {
  std::vector<std::pair<std::uint64_t, fs::path>> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    if (const auto number = number_of(entry.path().filename().string())) files.emplace_back(*number, entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

fs::path CheckpointDirectory::write(const Snapshot& snapshot, std::vector<std::string>& notes) {
  const fs::path final_path = directory_ / file_name(next_);
  const fs::path temporary = directory_ / ("." + file_name(next_) + ".tmp");
  ++next_;
  {
    base::UniqueFd fd = create_temporary(temporary, notes);
    std::string buffer;
    buffer.reserve(kWriteBuffer);
    const auto flush = [&] {
      if (!base::write_all(fd.get(), buffer)) fail("cannot write", temporary);
      buffer.clear();
    };
    try {
      write_checkpoint(snapshot, [&](std::span<const std::byte> part) {
        if (buffer.size() + part.size() > kWriteBuffer) flush();
        if (part.size() > kWriteBuffer) {
          if (!base::write_all(fd.get(), std::string_view(reinterpret_cast<const char*>(part.data()), part.size()))) {
            fail("cannot write", temporary);
          }
          return;
        }
        buffer.append(reinterpret_cast<const char*>(part.data()), part.size());
      });
      flush();
      if (::fsync(fd.get()) != 0) fail("cannot sync", temporary);
    } catch (...) {
      ::unlink(temporary.c_str());
      throw;
    }
  }
  if (::rename(temporary.c_str(), final_path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    fail("cannot rename to", final_path);
  }
  sync_directory(directory_);
  // Only regular files count (and go): anything else under a checkpoint's
  // name is not the shard's, and is skipped, named, at the next start.
  auto files = existing();
  std::erase_if(files, [](const auto& file) {
    std::error_code error;
    return !fs::is_regular_file(fs::symlink_status(file.second, error));
  });
  while (files.size() > keep_) {
    std::error_code ignored;
    fs::remove(files.front().second, ignored);
    files.erase(files.begin());
  }
  return final_path;
}

std::optional<CheckpointDirectory::Loaded> CheckpointDirectory::load_newest(ItemStore& store,
                                                                            const CheckpointLimits& limits,
                                                                            std::vector<std::string>& skipped) {
  auto files = existing();
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    try {
      const std::string text = read_file(it->second, limits.max_file_bytes);
      Snapshot snapshot = parse_checkpoint(std::as_bytes(std::span(text.data(), text.size())), store, limits);
      return Loaded{it->second, std::move(snapshot)};
    } catch (const CheckpointError& error) {
      skipped.push_back(it->second.string() + ": " + error.what());
    }
  }
  return std::nullopt;
}

}  // namespace slipway::replay
