// Files that hold the program's secret (the rendezvous token): read only
// when no other user can read them, written without following links.
//
// Contract:
// - read_secret_file(): the first line of PATH (at most 4 KiB read),
//   trailing spaces and CR removed. Refuses (SecretFileRefused) a file that
//   group or others may read or write ("PATH: the secret file can be read or
//   written by other users (mode 644); run chmod 600 PATH"), one that is
//   not a regular file (a FIFO is refused, never waited on) and an empty
//   one; std::runtime_error when it cannot be read.
// - write_secret_file(): writes CONTENT to PATH with mode 0600 from the
//   start (a temporary file in the same directory, renamed over PATH).
//   Refuses (SecretFileRefused) a PATH that is a symbolic link: the secret
//   is never written where a link points; and a directory that another
//   user could change (check_directories_above, private_directory.hpp).
//   std::runtime_error on I/O errors.
#pragma once

#include <stdexcept>
#include <string>

namespace slipway::launch {

// A secret file slipway will not use; what() says why and what to do.
class SecretFileRefused : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::string read_secret_file(const std::string& path);
void write_secret_file(const std::string& path, const std::string& content);

}  // namespace slipway::launch
