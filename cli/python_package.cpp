// Finding slipway's Python package for the tasks (see python_package.hpp).
#include "python_package.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "program_paths.hpp"
#include "slipway/core/contract.hpp"

namespace slipway::cli {
namespace {

namespace fs = std::filesystem;

bool holds_package(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "slipway" / "__init__.py", ec);
}

// The directory of this program (read from /proc/self/exe once).
const fs::path& bin_dir() {
  static const fs::path dir = fs::path(self_program()).parent_path();
  return dir;
}

}  // namespace

std::string python_package_dir() {
  const fs::path installed = bin_dir() / ".." / SLIPWAY_INSTALL_LIBDIR / "slipway" / "python";
  if (holds_package(installed)) return fs::weakly_canonical(installed).string();
  // A build tree (its CMakeCache.txt above bin/): the sources' package.
  std::error_code ec;
  const fs::path source = SLIPWAY_SOURCE_PYTHON_DIR;
  if (fs::exists(bin_dir() / ".." / "CMakeCache.txt", ec) && holds_package(source)) {
    return source.string();
  }
  return "";
}

void export_python_package() {
  const std::string dir = python_package_dir();
  if (dir.empty()) return;
  const char* current = std::getenv("PYTHONPATH");
  const std::string path = current ? current : "";
  const std::string padded = ":" + path + ":";
  if (padded.find(":" + dir + ":") == std::string::npos) {
    ::setenv("PYTHONPATH", (path.empty() ? dir : dir + ":" + path).c_str(), 1);
  }
  const char* library = std::getenv(core::env::kCourierLibrary);
  if (library && *library) return;
  for (const fs::path& candidate : {bin_dir() / ".." / SLIPWAY_INSTALL_LIBDIR / "slipway" / "libslipway-courier.so",
                                    bin_dir() / ".." / SLIPWAY_INSTALL_LIBDIR / "libslipway-courier.so",
                                    bin_dir() / ".." / "lib" / "libslipway-courier.so"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      ::setenv(core::env::kCourierLibrary, fs::weakly_canonical(candidate).c_str(), 1);
      return;
    }
  }
}

}  // namespace slipway::cli
