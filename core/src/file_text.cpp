// read_text_file (file_text.hpp).
#include "file_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "slipway/base/unique_fd.hpp"

namespace slipway::core {
namespace {

std::string errno_text(int error) { return std::error_code(error, std::generic_category()).message(); }

// What a non-regular file is, for the message refusing it.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Reads `fd` to its end, failing once more than `max_bytes` arrived.
std::optional<std::string> read_bounded(int fd, std::size_t max_bytes, std::string& error) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = "read error: " + errno_text(errno);
      return std::nullopt;
    }
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      error = "larger than " + std::to_string(max_bytes >> 20) + " MiB";
      return std::nullopt;
    }
  }
}

}  // namespace

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          std::string& error) {
  if (path == "-") return read_bounded(STDIN_FILENO, max_bytes, error);
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
  const base::UniqueFd owned(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  const int fd = owned.get();
  if (fd < 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = errno_text(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "is a directory";
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = std::string("is ") + kind_of(st.st_mode) +
            ", not a regular file; give a file, or - to read standard input";
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    error = "larger than " + std::to_string(max_bytes >> 20) + " MiB";
    return std::nullopt;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return read_bounded(fd, max_bytes, error);
}

}  // namespace slipway::core
