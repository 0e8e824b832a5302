// slipway doctor's pure parts: plugstack.conf lines, the host report's
// round trip and bounds, the findings for a host and against the
// reference host, and reading plugin_version from a real slipway.so.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "elf_symbol.hpp"
#include "host_facts.hpp"
#include "plugstack_config.hpp"

using namespace slipway::cli;

namespace {

HostFacts healthy(const std::string& host) {
  HostFacts f;
  f.host = host;
  f.slipway_version = "0.1.0";
  f.slurm_release = "22.05";
  f.plugstack = "/etc/slurm/plugstack.conf";
  f.slipway_lines = 1;
  f.plugin_line = "/etc/slurm/plugstack.conf.d/slipway.conf:1 optional /usr/lib/slurm/slipway.so";
  f.plugin_path = "/usr/lib/slurm/slipway.so";
  f.plugin_release = "22.05";
  f.munge = "ok";
  return f;
}

bool has(const std::vector<Finding>& findings, Finding::Kind kind, const std::string& check, const std::string& text) {
  for (const Finding& f : findings) {
    if (f.kind == kind && f.check == check && f.what.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("plugstack lines: required, optional, include, comments, and what is not understood") {
  auto r = parse_plugstack(
      "# a comment\n"
      "required /usr/lib/slurm/pyxis.so runtime_path=/run/pyxis\n"
      "\n"
      "optional slipway.so slipway_bin=/usr/bin/slipway # relative to PluginDir\n"
      "include /etc/slurm/plugstack.conf.d/*.conf\n"
      "bogus line\n"
      "optional\n",
      "p.conf");
  REQUIRE(r.entries.size() == 2);
  CHECK(r.entries[0].required);
  CHECK(r.entries[1].path == "slipway.so");
  CHECK(r.entries[1].line == 4);
  CHECK(r.entries[1].args == std::vector<std::string>{"slipway_bin=/usr/bin/slipway"});
  CHECK(r.includes == std::vector<std::string>{"/etc/slurm/plugstack.conf.d/*.conf"});
  REQUIRE(r.problems.size() == 2);
  CHECK(r.problems[0] == "p.conf:6: 'bogus' is neither required, optional nor include");
  CHECK(slipway_entries(r).size() == 1);
}

TEST_CASE("plugstack includes are followed, relative to the including file, and bounded") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("doctor-plugstack-" + std::to_string(::getpid()));
  fs::create_directories(dir / "d");
  std::ofstream(dir / "plugstack.conf") << "include d/*.conf\n";
  std::ofstream(dir / "d" / "slipway.conf") << "optional /usr/lib/slurm/slipway.so\n";
  std::ofstream(dir / "d" / "self.conf") << "include ../plugstack.conf\n";  // a loop, cut at 8 deep
  auto r = read_plugstack((dir / "plugstack.conf").string());
  CHECK(slipway_entries(r).size() >= 1);
  bool deep = false;
  for (const auto& p : r.problems) deep = deep || p.find("nested more than 8 deep") != std::string::npos;
  CHECK(deep);
  auto missing = read_plugstack((dir / "none.conf").string());
  REQUIRE(missing.problems.size() == 1);
  CHECK(missing.problems[0].find("cannot read") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a host report round-trips, and a bad one is refused") {
  HostFacts f = healthy("fn1");
  f.plugin_error = "line\nbreak";
  std::string error;
  auto back = facts_from_text("srun: warning: noise\n" + facts_to_text(f), error);
  REQUIRE(back);
  CHECK(back->host == "fn1");
  CHECK(back->slipway_lines == 1);
  CHECK(back->plugin_error == "line break");
  CHECK_FALSE(facts_from_text("plugin_path=/x\n", error));
  CHECK(error == "no host= line in the report");
  CHECK_FALSE(facts_from_text(std::string(70000, 'x'), error));
  std::string many;
  for (int i = 0; i < 70; ++i) many += "host=h\n";
  CHECK_FALSE(facts_from_text(many, error));
}

TEST_CASE("a host's own problems: no plugin line, plugin missing, built for another Slurm, munge") {
  CHECK(has(host_findings(healthy("fn1")), Finding::Kind::ok, "plugin", "built for Slurm 22.05"));
  HostFacts none = healthy("fn1");
  none.slipway_lines = 0;
  CHECK(has(host_findings(none), Finding::Kind::problem, "plugin", "no slipway.so line"));
  HostFacts missing = healthy("fn2");
  missing.plugin_error = "/usr/lib/slurm/slipway.so is missing or unreadable";
  auto m = host_findings(missing);
  CHECK(has(m, Finding::Kind::problem, "plugin", "is missing"));
  CHECK(m.front().host == "fn2");
  CHECK(m.front().fix.find("install the slipway-spank package on fn2") != std::string::npos);
  HostFacts old = healthy("fn3");
  old.plugin_release = "21.08";
  CHECK(has(host_findings(old), Finding::Kind::problem, "plugin", "built for Slurm 21.08 and fn3 runs Slurm 22.05"));
  HostFacts twice = healthy("fn1");
  twice.slipway_lines = 2;
  CHECK(has(host_findings(twice), Finding::Kind::problem, "plugin", "2 slipway.so lines"));
  HostFacts bad_args = healthy("fn1");
  bad_args.plugin_args_error = "plugstack.conf: unknown argument 'x=1'";
  CHECK(has(host_findings(bad_args), Finding::Kind::problem, "plugin", "unknown argument"));
  HostFacts munge = healthy("fn1");
  munge.munge = "munge cannot make a credential: socket";
  CHECK(has(host_findings(munge), Finding::Kind::problem, "munge", "cannot make a credential"));
  munge.munge = "absent";
  CHECK(has(host_findings(munge), Finding::Kind::skipped, "munge", "not installed"));
}

TEST_CASE("a host is judged against the reference host: versions and the plugin's path") {
  const HostFacts login = healthy("login1");
  auto same = compare_findings(login, healthy("fn1"));
  REQUIRE(same.size() == 1);
  CHECK(same[0].kind == Finding::Kind::ok);
  HostFacts other = healthy("fn2");
  other.slipway_version = "0.0.9";
  other.slurm_release = "23.02";
  other.plugin_path = "/opt/slurm/lib/slipway.so";
  auto diff = compare_findings(login, other);
  CHECK(has(diff, Finding::Kind::problem, "versions", "slipway 0.0.9 here, 0.1.0 on login1"));
  CHECK(has(diff, Finding::Kind::problem, "versions", "Slurm 23.02 here, 22.05 on login1"));
  CHECK(has(diff, Finding::Kind::problem, "plugin", "/opt/slurm/lib/slipway.so here"));
}

TEST_CASE("slurm_release_of reads Slurm's version number") {
  CHECK(slurm_release_of(0x160508) == "22.05");
  CHECK(slurm_release_of(0x170200) == "23.02");
}

#ifdef SLIPWAY_TEST_SPANK_PLUGIN
TEST_CASE("plugin_version is read from the built slipway.so without loading it") {
  std::string error;
  auto version = elf_u32_symbol(SLIPWAY_TEST_SPANK_PLUGIN, "plugin_version", error);
  INFO(error);
  REQUIRE(version);
  CHECK(((*version >> 16) & 0xff) >= 20);
  CHECK_FALSE(elf_u32_symbol(SLIPWAY_TEST_SPANK_PLUGIN, "no_such_symbol", error));
  CHECK(error.find("exports no no_such_symbol") != std::string::npos);
  CHECK_FALSE(elf_u32_symbol("/etc/hostname", "plugin_version", error));
  CHECK(error.find("not a 64-bit") != std::string::npos);
}
#endif
