// Atomic whole-file replacement (replace_file.hpp).
#include "slipway/base/replace_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"

namespace slipway::base {

std::string replace_file(const std::string& path, std::string_view content, int mode) {
  const std::string tmp = path + ".tmp";
  // A new file, never one that is there (nor where a link there points):
  // what is at the temporary name is removed first.
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  UniqueFd fd(::open(tmp.c_str(), kFlags, mode));
  if (!fd && errno == EEXIST && ::unlink(tmp.c_str()) == 0) fd.reset(::open(tmp.c_str(), kFlags, mode));
  bool written = fd && write_all(fd.get(), content);
  int error = errno;
  if (written && ::close(fd.release()) != 0) {  // NFS may report a full disk only here
    written = false;
    error = errno;
  }
  fd.reset();
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    if (written) error = errno;
    ::unlink(tmp.c_str());  // no half-written file is left behind
    return "cannot write '" + path + "': " + std::strerror(error);
  }
  return {};
}

}  // namespace slipway::base
