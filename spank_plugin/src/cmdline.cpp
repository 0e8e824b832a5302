// Reading /proc/self/cmdline with bounds (one fd, closed on every path).
#include "slipway/spank/cmdline.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "slipway/base/unique_fd.hpp"

namespace slipway::spank {

std::optional<std::vector<std::string>> split_cmdline(std::string_view raw) {
  if (raw.size() > kMaxCmdlineBytes) {
    return std::nullopt;
  }
  std::vector<std::string> words;
  if (raw.empty()) {
    return words;
  }
  if (raw.back() == '\0') {
    raw.remove_suffix(1);
  }
  std::size_t start = 0;
  while (true) {
    if (words.size() == kMaxCmdlineWords) {
      return std::nullopt;
    }
    const auto nul = raw.find('\0', start);
    words.emplace_back(raw.substr(start, nul == std::string_view::npos ? nul : nul - start));
    if (nul == std::string_view::npos) {
      break;
    }
    start = nul + 1;
  }
  return words;
}

std::optional<std::vector<std::string>> read_cmdline(const std::string& path, std::string& error) {
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::string raw;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = "cannot read " + path + ": " + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) {
      break;
    }
    raw.append(buf, static_cast<std::size_t>(n));
    if (raw.size() > kMaxCmdlineBytes) {
      error = path + " is longer than " + std::to_string(kMaxCmdlineBytes) + " bytes";
      return std::nullopt;
    }
  }
  auto words = split_cmdline(raw);
  if (!words) {
    error = path + " has more than " + std::to_string(kMaxCmdlineWords) + " words";
  }
  return words;
}

}  // namespace slipway::spank
