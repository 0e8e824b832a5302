// Bounded reads of a file's end (file_tail.hpp).
#include "slipway/observe/file_tail.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace slipway::observe {

std::string read_file_tail(const std::string& path, std::uint64_t tail_bytes, bool whole_lines) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st{};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    const std::uint64_t from = size > tail_bytes ? size - tail_bytes : 0;
    text.resize(size - from);
    std::size_t got = 0;
    while (got < text.size()) {
      ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(from + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (from > 0 && whole_lines) {
      const auto newline = text.find('\n');
      text.erase(0, newline == std::string::npos ? text.size() : newline + 1);
    }
  }
  ::close(fd);
  return text;
}

}  // namespace slipway::observe
