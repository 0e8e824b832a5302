// Bounded, non-blocking reads of a run directory's small files (see
// run_file.hpp).
#include "slipway/launch/run_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {

std::optional<std::string> read_run_file(const std::string& path, std::size_t max_bytes) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::size_t>(st.st_size) > max_bytes) {
    return std::nullopt;
  }
  std::string text(max_bytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  if (size > max_bytes) return std::nullopt;  // it grew while we read
  text.resize(size);
  return text;
}

}  // namespace slipway::launch
