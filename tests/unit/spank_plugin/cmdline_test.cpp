// Splitting and reading /proc/self/cmdline, with bounds.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "slipway/spank/cmdline.hpp"

using namespace slipway::spank;
using Words = std::vector<std::string>;
using namespace std::string_literals;

TEST_CASE("NUL-separated words are split, empty words kept", "[spank][cmdline]") {
  CHECK(split_cmdline("srun\0-N3\0\0--program=a b\0"s) == Words{"srun", "-N3", "", "--program=a b"});
  CHECK(split_cmdline("srun"s) == Words{"srun"});
  CHECK(split_cmdline(""s) == Words{});
}

TEST_CASE("command lines over the bounds are refused", "[spank][cmdline]") {
  CHECK_FALSE(split_cmdline(std::string(kMaxCmdlineBytes + 1, 'a')));
  std::string many;
  for (std::size_t i = 0; i <= kMaxCmdlineWords; ++i) {
    many += "x"s + '\0';
  }
  CHECK_FALSE(split_cmdline(many));
}

TEST_CASE("this process's command line can be read", "[spank][cmdline]") {
  std::string error;
  auto words = read_cmdline("/proc/self/cmdline", error);
  REQUIRE(words);
  CHECK(error.empty());
  REQUIRE_FALSE(words->empty());
  CHECK(words->front().find("slipway_unit_spank_plugin") != std::string::npos);
}

TEST_CASE("a missing file is an error that names it", "[spank][cmdline]") {
  std::string error;
  CHECK_FALSE(read_cmdline("/nonexistent/cmdline", error));
  CHECK(error.find("/nonexistent/cmdline") != std::string::npos);
}
