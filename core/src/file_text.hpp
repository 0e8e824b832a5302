// Reading a whole text file with a size bound (topology and plan files).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace slipway::core {

// The file's bytes, or std::nullopt with `error` set to why not ("No such
// file or directory", "is a directory", "is a FIFO, not a regular file...",
// "larger than 16 MiB"). Only regular files are read, and opening one never
// blocks (a FIFO is refused, not waited on). The path "-" reads standard
// input, whatever it is, up to the same bound.
std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          std::string& error);

// The name messages give a file: "<stdin>" for "-", else the path itself.
std::string display_name(const std::string& path);

}  // namespace slipway::core
