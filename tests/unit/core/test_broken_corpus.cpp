// The corpus of broken topologies (broken/*.toml): each file opens with the
// diagnostics it must produce, `# expect: LINE:COL: message substring`, and
// must produce exactly those (line, column and message) and no others.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "slipway/core/topology.hpp"

namespace fs = std::filesystem;
using namespace slipway::core;

namespace {

struct Expectation {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string substring;
};

std::vector<Expectation> read_expectations(const fs::path& file) {
  std::vector<Expectation> out;
  std::ifstream in(file);
  std::string text;
  const std::string prefix = "# expect: ";
  while (std::getline(in, text) && text.rfind(prefix, 0) == 0) {
    const std::string rest = text.substr(prefix.size());
    const std::size_t c1 = rest.find(':');
    const std::size_t c2 = rest.find(':', c1 + 1);
    REQUIRE(c2 != std::string::npos);
    out.push_back({static_cast<std::uint32_t>(std::stoul(rest.substr(0, c1))),
                   static_cast<std::uint32_t>(std::stoul(rest.substr(c1 + 1, c2 - c1 - 1))),
                   rest.substr(c2 + 2)});
  }
  return out;
}

}  // namespace

TEST_CASE("every broken topology gives exactly its expected diagnostics", "[core][validate][corpus]") {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(SLIPWAY_CORE_BROKEN_DIR)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  for (const fs::path& file : files) {
    DYNAMIC_SECTION(file.filename().string()) {
      const auto expected = read_expectations(file);
      REQUIRE_FALSE(expected.empty());
      const TopologyResult result = load_topology(file.string());
      CHECK_FALSE(result.ok());
      std::string actual;
      for (const auto& d : result.diagnostics) actual += format_diagnostic(d) + "\n";
      INFO("diagnostics:\n" << actual);
      CHECK(result.diagnostics.size() == expected.size());
      for (const Expectation& e : expected) {
        INFO("expected " << e.line << ":" << e.column << ": " << e.substring);
        const bool found = std::any_of(result.diagnostics.begin(), result.diagnostics.end(), [&](const Diagnostic& d) {
          return d.where.line == e.line && d.where.column == e.column &&
                 d.message.find(e.substring) != std::string::npos && d.file == file.string();
        });
        CHECK(found);
      }
    }
  }
}
