// Checkpoint files on disk: atomic writes, rotation, loading the newest.
#include "checkpoint_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
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

fs::path CheckpointDirectory::write(const Snapshot& snapshot) {
  const fs::path final_path = directory_ / file_name(next_);
  const fs::path temporary = directory_ / ("." + file_name(next_) + ".tmp");
  ++next_;
  {
    base::UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd) fail("cannot create", temporary);
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
  auto files = existing();
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
    std::ifstream in(it->second, std::ios::binary);
    if (!in) {
      skipped.push_back(it->second.string() + ": cannot be read");
      continue;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      Snapshot snapshot = parse_checkpoint(std::as_bytes(std::span(text.data(), text.size())), store, limits);
      return Loaded{it->second, std::move(snapshot)};
    } catch (const CheckpointError& error) {
      skipped.push_back(it->second.string() + ": " + error.what());
    }
  }
  return std::nullopt;
}

}  // namespace slipway::replay
