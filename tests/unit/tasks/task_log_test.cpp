// TaskLog: the size bound (rotation after a whole line) and
// SLIPWAY_LOG_LIMIT's parsing.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

#include "slipway/tasks/task_log.hpp"

using slipway::tasks::TaskLog;

namespace {
std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("a log past its bound is rotated after a whole line, newest output last") {
  char dir_template[] = "/tmp/slipway-task-log-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string path = dir + "/w.0.log";
  {
    TaskLog log("w.0", path, "=== header ===\n", 4096);
    std::string line(99, 'a');
    line += '\n';
    for (int i = 0; i < 100; ++i) log.append(line);  // 10,000 bytes
    log.append("last\n");
  }
  struct stat st{};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(st.st_size <= 4096);
  REQUIRE(stat((path + ".1").c_str(), &st) == 0);
  CHECK(st.st_size <= 4096);
  std::string newest = contents(path);
  CHECK(newest.rfind("=== slipway: w.0 log continued: the earlier part is in w.0.log.1 ===\n", 0) == 0);
  CHECK(newest.size() >= 5);
  CHECK(newest.substr(newest.size() - 5) == "last\n");
  std::string older = contents(path + ".1");
  CHECK(older.back() == '\n');  // cut after a whole line
  unlink(path.c_str());
  unlink((path + ".1").c_str());
  rmdir(dir.c_str());
}

TEST_CASE("SLIPWAY_LOG_LIMIT takes bytes with K, M or G, and 0 for no bound") {
  using slipway::tasks::log_limit_from_environment;
  unsetenv("SLIPWAY_LOG_LIMIT");
  CHECK(log_limit_from_environment() == slipway::tasks::kDefaultLogLimit);
  setenv("SLIPWAY_LOG_LIMIT", "100K", 1);
  CHECK(log_limit_from_environment() == 100u * 1024);
  setenv("SLIPWAY_LOG_LIMIT", "2G", 1);
  CHECK(log_limit_from_environment() == 2ull << 30);
  setenv("SLIPWAY_LOG_LIMIT", "0", 1);
  CHECK(log_limit_from_environment() == 0u);
  for (const char* bad : {"ten", "10X", "-5", "99999999999999999999", "5000000000G"}) {
    setenv("SLIPWAY_LOG_LIMIT", bad, 1);
    CHECK_FALSE(log_limit_from_environment().has_value());
  }
  unsetenv("SLIPWAY_LOG_LIMIT");
}
