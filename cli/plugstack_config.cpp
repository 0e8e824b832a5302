// Reading Slurm's plugstack.conf (see header).
#include "plugstack_config.hpp"

#include <glob.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace slipway::cli {
namespace {

constexpr int kMaxDepth = 8;
constexpr std::size_t kMaxFiles = 256;
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void read_into(const std::string& path, int depth, PlugstackReading& reading) {
  if (reading.files.size() >= kMaxFiles) {
    reading.problems.push_back(path + ": more than " + std::to_string(kMaxFiles) + " plugstack files; not read");
    return;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    reading.problems.push_back(path + ": cannot read: " + ec.message());
    return;
  }
  if (size > kMaxFileBytes) {
    reading.problems.push_back(path + ": larger than 1 MiB; not read");
    return;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) {
    reading.problems.push_back(path + ": cannot read");
    return;
  }
  reading.files.push_back(path);
  PlugstackReading one = parse_plugstack(text.str(), path);
  reading.problems.insert(reading.problems.end(), one.problems.begin(), one.problems.end());
  // This file's own lines, then what its includes hold (order matters to
  // no check: a second slipway.so line is a problem wherever it is).
  reading.entries.insert(reading.entries.end(), one.entries.begin(), one.entries.end());
  for (std::string pattern : one.includes) {
    if (depth >= kMaxDepth) {
      reading.problems.push_back(path + ": includes nested more than " + std::to_string(kMaxDepth) + " deep");
      continue;
    }
    if (!pattern.empty() && pattern.front() != '/') {
      pattern = (std::filesystem::path(path).parent_path() / pattern).string();
    }
    glob_t matches{};
    if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) read_into(matches.gl_pathv[i], depth + 1, reading);
    }
    ::globfree(&matches);
  }
}

}  // namespace

PlugstackReading parse_plugstack(std::string_view text, const std::string& file) {
  PlugstackReading reading;
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    const std::vector<std::string> w = words(line);
    if (w.empty()) {
      if (end == text.size()) break;
      continue;
    }
    const std::string where = file + ":" + std::to_string(number);
    if (w[0] == "include") {
      if (w.size() != 2) {
        reading.problems.push_back(where + ": include takes one path or pattern");
      } else {
        reading.includes.push_back(w[1]);
      }
    } else if (w[0] == "required" || w[0] == "optional") {
      if (w.size() < 2) {
        reading.problems.push_back(where + ": " + w[0] + " without a plugin path");
      } else {
        PlugstackEntry e{file, number, w[0] == "required", w[1], {w.begin() + 2, w.end()}};
        reading.entries.push_back(std::move(e));
      }
    } else {
      reading.problems.push_back(where + ": '" + w[0] + "' is neither required, optional nor include");
    }
    if (end == text.size()) break;
  }
  return reading;
}

PlugstackReading read_plugstack(const std::string& path) {
  PlugstackReading reading;
  read_into(path, 0, reading);
  return reading;
}

std::vector<PlugstackEntry> slipway_entries(const PlugstackReading& reading) {
  std::vector<PlugstackEntry> out;
  for (const auto& e : reading.entries) {
    if (std::filesystem::path(e.path).filename() == "slipway.so") out.push_back(e);
  }
  return out;
}

}  // namespace slipway::cli
