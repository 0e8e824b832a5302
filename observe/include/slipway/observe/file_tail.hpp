// Reading the end of a file, bounded: event records and task logs.
#pragma once

#include <cstdint>
#include <string>

namespace slipway::observe {

// The last `tail_bytes` of the regular file `path` (not followed through a
// symbolic link); empty when it cannot be read. `whole_lines`: a partial
// first line is dropped when the file is longer.
std::string read_file_tail(const std::string& path, std::uint64_t tail_bytes, bool whole_lines);

}  // namespace slipway::observe
