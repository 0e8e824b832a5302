// base::this_environment, environment_without and environment_with over a
// given environ array.
#include <catch2/catch.hpp>

#include "slipway/base/environment.hpp"

using namespace slipway;

namespace {
struct Environ {
  std::vector<std::string> entries;
  std::vector<char*> pointers;
  explicit Environ(std::vector<std::string> e) : entries(std::move(e)) {
    for (auto& s : entries) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  char** get() { return pointers.data(); }
};
}  // namespace

TEST_CASE("this_environment copies every entry in order") {
  Environ env({"PATH=/bin", "HOME=/root"});
  CHECK(base::this_environment(env.get()) == std::vector<std::string>{"PATH=/bin", "HOME=/root"});
  CHECK(base::this_environment(nullptr).empty());
}

TEST_CASE("environment_without drops the entries the predicate names") {
  Environ env({"PATH=/bin", "SLIPWAY_TOKEN=secret", "HOME=/root", "SLIPWAY_TOKEN_FILE=x"});
  const auto kept = base::environment_without(
      [](std::string_view entry) { return base::entry_name(entry) == "SLIPWAY_TOKEN"; }, env.get());
  CHECK(kept == std::vector<std::string>{"PATH=/bin", "HOME=/root", "SLIPWAY_TOKEN_FILE=x"});
}

TEST_CASE("environment_with replaces an entry in place and appends new ones, never two of one name") {
  Environ env({"PATH=/bin", "A=1", "HOME=/root", "A=stale"});
  const auto env2 = base::environment_with({"A=2", "NEW=x=y", "PATH=/usr/bin"}, env.get());
  CHECK(env2 == std::vector<std::string>{"PATH=/usr/bin", "A=2", "HOME=/root", "NEW=x=y"});
}

TEST_CASE("entry_name is the part before the first '='") {
  CHECK(base::entry_name("X=1=2") == "X");
  CHECK(base::entry_name("NOEQUALS") == "NOEQUALS");
}
