// Directories that hold the program's secret (a run root and the run
// directories in it; the directory of a --token-out file), and every
// directory above them: whoever can replace one of them can read the
// secret, so each must be beyond other users' reach.
//
// Contract:
// - make_private_directory(path, what): creates PATH and its missing
//   parents (each new one with mode 0700; existing ones are left as they
//   are), then check_private_directory().
// - check_private_directory(path, what): PATH (with its links resolved)
//   must be a directory owned by this user that neither group nor others
//   may write; every directory above it must belong to this user or to
//   root, and must not be writable by group or others unless it has the
//   sticky bit (as /tmp: no one else may rename or remove what is ours
//   there). Throws DirectoryRefused otherwise, naming the directory, its
//   owner and mode, and what to do; std::runtime_error when PATH cannot
//   be examined.
// - check_directories_above(path, what): the rule for the directories
//   above, applied to PATH and those above it (for a file's directory).
// - make_private_subdirectory(parent, name): mkdir PARENT/NAME with mode
//   0700 (it must not exist), then checks, on the directory it opened
//   without following a link, that it is ours and private. Throws
//   std::runtime_error otherwise.
// `what` names the directory in messages ("run root").
#pragma once

#include <stdexcept>
#include <string>

namespace slipway::launch {

class DirectoryRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void make_private_directory(const std::string& path, const std::string& what);
void check_private_directory(const std::string& path, const std::string& what);
void check_directories_above(const std::string& path, const std::string& what);
void make_private_subdirectory(const std::string& parent, const std::string& name);

}  // namespace slipway::launch
