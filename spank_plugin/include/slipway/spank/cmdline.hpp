// The command line of the running process, from /proc/self/cmdline: the
// SPANK option callback sees only its own option, the hand-over needs all.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::spank {

// Bounds on what is read: longer command lines are refused, not truncated.
inline constexpr std::size_t kMaxCmdlineBytes = 1U << 20;
inline constexpr std::size_t kMaxCmdlineWords = 8192;

// Splits the NUL-separated words of a cmdline buffer (a trailing NUL ends
// the last word; empty words are kept). nullopt when `raw` is over the
// bounds above.
std::optional<std::vector<std::string>> split_cmdline(std::string_view raw);

// Reads and splits `path` (normally /proc/self/cmdline). nullopt, with
// `error` set, when it cannot be read or is over the bounds.
std::optional<std::vector<std::string>> read_cmdline(const std::string& path, std::string& error);

}  // namespace slipway::spank
