// Checking and making the directories that hold the program's secret (see
// private_directory.hpp).
#include "slipway/launch/private_directory.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {
namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string user_name(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(4096);
  std::string id = "uid " + std::to_string(uid);
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    return std::string(found->pw_name) + " (" + id + ")";
  }
  return id;
}

std::string writers(mode_t mode) {
  if ((mode & S_IWGRP) && (mode & S_IWOTH)) return "its group and other users";
  return (mode & S_IWGRP) ? "its group" : "other users";
}

[[noreturn]] void refuse(const std::string& path, const std::string& what, const std::string& dir,
                         const std::string& problem, const std::string& fix) {
  const std::string where = dir == path || dir + "/" == path ? "it" : dir;
  throw DirectoryRefused("the " + what + " " + path + " is not private: " + where + " " + problem +
                         ", so another user could replace what slipway writes there and read the "
                         "program's secret; " + fix + ", or use a directory of your own");
}

std::string real_path(const std::string& path, const std::string& what) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) {
    throw std::runtime_error("cannot examine the " + what + " " + path + ": " + std::strerror(errno));
  }
  std::string out(real);
  std::free(real);
  return out;
}

// The rule for a directory above a secret (see the header).
void check_above(const std::string& path, const std::string& what, const std::string& dir,
                 const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) {
    throw std::runtime_error("cannot use the " + what + " " + path + ": " + dir + " is not a directory");
  }
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    refuse(path, what, dir, "belongs to " + user_name(st.st_uid) + ", not to you",
           "have its owner or root remove it");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    refuse(path, what, dir, "can be written by " + writers(st.st_mode) + " (mode " + octal_mode(st.st_mode) + ")",
           "run chmod go-w " + dir);
  }
}

// Every directory above `real` (a path without links), up to /.
void check_parents(const std::string& path, const std::string& what, const std::string& real) {
  std::string dir = real;
  while (dir.size() > 1) {
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    struct stat st{};
    if (::lstat(dir.c_str(), &st) != 0) {
      throw std::runtime_error("cannot examine " + dir + " above the " + what + " " + path + ": " +
                               std::strerror(errno));
    }
    check_above(path, what, dir, st);
  }
}

}  // namespace

void check_directories_above(const std::string& path, const std::string& what) {
  const std::string real = real_path(path, what);
  struct stat st{};
  if (::stat(real.c_str(), &st) != 0) {
    throw std::runtime_error("cannot examine the " + what + " " + path + ": " + std::strerror(errno));
  }
  check_above(path, what, real, st);
  check_parents(path, what, real);
}

void check_private_directory(const std::string& path, const std::string& what) {
  const std::string real = real_path(path, what);
  base::UniqueFd fd(::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    throw std::runtime_error("cannot open the " + what + " " + path + ": " + std::strerror(errno));
  }
  if (st.st_uid != ::geteuid()) {
    refuse(path, what, real, "belongs to " + user_name(st.st_uid) + ", not to you",
           "have its owner or root remove it");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refuse(path, what, real, "can be written by " + writers(st.st_mode) + " (mode " + octal_mode(st.st_mode) + ")",
           "run chmod go-w " + real);
  }
  check_parents(path, what, real);
}

void make_private_directory(const std::string& path, const std::string& what) {
  // Top down from /: each directory that exists is checked before anything
  // is made inside it, so nothing is created where another user rules.
  const std::string absolute =
      !path.empty() && path.front() == '/' ? path : std::filesystem::absolute(path).string();
  std::size_t end = 0;
  while ((end = absolute.find('/', end + 1)) != std::string::npos) {
    const std::string dir = absolute.substr(0, end);
    if (::mkdir(dir.c_str(), 0700) == 0) continue;
    if (errno != EEXIST) {
      throw std::runtime_error("cannot create the " + what + " " + path + ": " + dir + ": " + std::strerror(errno));
    }
    struct stat st{};
    if (::lstat(dir.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
      check_above(path, what, dir, st);
    } else {  // a link: where it leads, and everything above that
      const std::string real = real_path(dir, what);
      if (::stat(real.c_str(), &st) != 0) {
        throw std::runtime_error("cannot examine " + real + " above the " + what + " " + path + ": " +
                                 std::strerror(errno));
      }
      check_above(path, what, real, st);
      check_parents(path, what, real);
    }
  }
  if (::mkdir(absolute.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error("cannot create the " + what + " " + path + ": " + std::strerror(errno));
  }
  check_private_directory(path, what);
}

void make_private_subdirectory(const std::string& parent, const std::string& name) {
  const std::string path = parent + "/" + name;
  if (::mkdir(path.c_str(), 0700) != 0) {
    throw std::runtime_error("cannot create run directory '" + path + "': " + std::strerror(errno));
  }
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    throw std::runtime_error("cannot open run directory '" + path + "': " + std::strerror(errno));
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    throw DirectoryRefused("run directory '" + path + "' is not the private directory slipway made (owner " +
                           user_name(st.st_uid) + ", mode " + octal_mode(st.st_mode) + ")");
  }
}

}  // namespace slipway::launch
