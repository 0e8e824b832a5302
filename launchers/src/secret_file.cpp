// Secret files: mode checks on reading, no links followed on writing (see
// secret_file.hpp).
#include "slipway/launch/secret_file.hpp"
#include "slipway/launch/private_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "slipway/base/write_all.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {
namespace {

constexpr std::size_t kMaxSecretFile = 4096;

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

std::string read_secret_file(const std::string& path) {
  // O_NONBLOCK: a FIFO there is refused below, not waited on.
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) throw std::runtime_error("cannot read the secret from " + path + ": " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) {
    throw std::runtime_error("cannot read the secret from " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw SecretFileRefused(path + ": the secret file is not a regular file");
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    throw SecretFileRefused(path + ": the secret file can be read or written by other users (mode " +
                            octal_mode(st.st_mode) + "); run chmod 600 " + path);
  }
  char buffer[kMaxSecretFile];
  std::size_t size = 0;
  while (size < sizeof buffer) {
    ssize_t n = ::read(fd.get(), buffer + size, sizeof buffer - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw std::runtime_error("cannot read the secret from " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  std::string token(buffer, size);
  token = token.substr(0, token.find('\n'));
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) throw SecretFileRefused(path + ":1:1: the secret file is empty");
  return token;
}

void write_secret_file(const std::string& path, const std::string& content) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    throw SecretFileRefused(path + " is a symbolic link: slipway does not write the secret where "
                            "a link points; give the path of a file");
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  // No other user may rename the file away, nor replace a directory above.
  try {
    check_directories_above(dir, "secret file's directory");
  } catch (const DirectoryRefused& e) {
    throw SecretFileRefused(e.what());
  }
  std::string pattern = (slash == std::string::npos ? std::string("./") : dir) + ".slipway-secret-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  base::UniqueFd fd(::mkostemp(name.data(), O_CLOEXEC));  // mode 0600
  if (!fd) {
    throw std::runtime_error("cannot write the secret to " + path + ": " + std::strerror(errno));
  }
  bool written = base::write_all(fd.get(), content);
  int error = errno;
  if (written && ::close(fd.release()) != 0) {
    written = false;
    error = errno;
  }
  // rename() replaces what is at PATH, a link included, without following it.
  if (!written || ::rename(name.data(), path.c_str()) != 0) {
    if (written) error = errno;
    ::unlink(name.data());
    throw std::runtime_error("cannot write the secret to " + path + ": " + std::strerror(error));
  }
}

}  // namespace slipway::launch
