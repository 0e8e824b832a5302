// Reading Slurm's plugstack.conf as slurmstepd and srun do: lines
// `required|optional PATH [ARGS...]` and `include GLOB`, '#' comments, a
// relative PATH taken from PluginDir; for slipway doctor's checks of where
// slipway.so is configured and with which arguments.
//
// Contract: parse_plugstack() is pure: it returns the plugin lines of one
// file's text and the include patterns, in order, with file:line, and a
// problem for each line it cannot read. read_plugstack() follows includes
// (globs, relative to the including file's directory), at most 8 deep, 256
// files and 1 MiB per file; a file it cannot read is a problem, not an
// exception.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace slipway::cli {

struct PlugstackEntry {
  std::string file;
  int line = 0;
  bool required = false;  // required, else optional
  std::string path;       // as written (relative to PluginDir when not absolute)
  std::vector<std::string> args;
};

struct PlugstackReading {
  std::vector<PlugstackEntry> entries;
  std::vector<std::string> includes;  // patterns, for parse_plugstack
  std::vector<std::string> problems;  // "FILE:LINE: what"
  std::vector<std::string> files;     // every file read
};

PlugstackReading parse_plugstack(std::string_view text, const std::string& file);
PlugstackReading read_plugstack(const std::string& path);

// The entries whose plugin file is slipway.so.
std::vector<PlugstackEntry> slipway_entries(const PlugstackReading& reading);

}  // namespace slipway::cli
