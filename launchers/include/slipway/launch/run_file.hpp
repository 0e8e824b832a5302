// Reading a small file of a run directory (the exit status, the rendezvous
// contact) without trusting what is there: another process may have put a
// FIFO, a device or a link where the file should be.
//
// Contract: read_run_file(path, max_bytes) returns the file's bytes, or
// nothing when PATH is absent, is not a regular file (a FIFO, a device, a
// directory, a symbolic link: never followed, never waited on), holds more
// than `max_bytes`, or cannot be read. It never blocks on what it opens
// (O_NONBLOCK) and reads at most `max_bytes` + 1 bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace slipway::launch {

std::optional<std::string> read_run_file(const std::string& path, std::size_t max_bytes);

}  // namespace slipway::launch
