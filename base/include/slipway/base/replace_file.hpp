// replace_file: puts a whole new file at a path, atomically (readers see the
// old content or the new, never a part).
#pragma once

#include <string>
#include <string_view>

namespace slipway::base {

// Writes `content` to PATH.tmp (a new file, mode `mode`, never through a
// link: whatever has that name is unlinked first), closes it, and renames
// it over `path`. On failure nothing is left at PATH.tmp and the error
// ("cannot write 'PATH': ...") is returned; empty on success.
std::string replace_file(const std::string& path, std::string_view content, int mode = 0644);

}  // namespace slipway::base
