// Reading a whole text file with a size bound (topology and plan files).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace slipway::core {

// The file's bytes, or std::nullopt with `error` set to why not ("No such
// file or directory", "is a directory", "larger than 16 MiB").
std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          std::string& error);

}  // namespace slipway::core
