// For tests of the launcher loop under a test launcher: a topology's plan
// on one local host of one CPU, and a run directory in a fresh root that
// goes away with the fixture.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "slipway/core/topology.hpp"
#include "slipway/launch/run_directory.hpp"

namespace slipway::testing {

class LoopFixture {
 public:
  // `name` is the program's name in `toml` (and of its file, for messages).
  LoopFixture(const char* toml, const std::string& name) : name_(name) {
    auto topology = core::parse_topology(toml, name + ".toml");
    REQUIRE(topology.ok());
    auto planned = core::make_plan(*topology.program, core::local_allocation({1, 1, 0, 1024}));
    REQUIRE(planned.ok());
    plan_ = std::move(*planned.plan);
    root_ = "/tmp/slipway-" + name + "-XXXXXX";
    REQUIRE(::mkdtemp(root_.data()));
  }
  ~LoopFixture() { std::filesystem::remove_all(root_); }
  LoopFixture(const LoopFixture&) = delete;
  LoopFixture& operator=(const LoopFixture&) = delete;

  core::Plan plan() const { return plan_; }
  launch::RunDirectory run_dir() const { return launch::RunDirectory::create(root_, name_); }

 private:
  std::string name_;
  core::Plan plan_;
  std::string root_;
};

}  // namespace slipway::testing
