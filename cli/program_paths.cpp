// Locating slipway's own programs (see program_paths.hpp).
#include "program_paths.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "slipway/core/contract.hpp"

namespace slipway::cli {

std::string self_program() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "slipway";
  self[n] = '\0';
  return self;
}

std::string sibling_program(const std::string& name) {
  if (name == "slipway-exec") {
    if (const char* path = std::getenv(core::env::kExec); path && *path) return path;
  }
  auto beside = std::filesystem::path(self_program()).parent_path() / name;
  if (access(beside.c_str(), X_OK) == 0) return beside.string();
  return name;
}

}  // namespace slipway::cli
