// The replica a task of a shared Slurm step runs (slipway-exec --node).
#include <stdlib.h>

#include <catch2/catch.hpp>

#include "slipway/exec/agent_entry.hpp"

namespace {

// Sets (or, with nullptr, unsets) the three variables for one check.
void set_replica_env(const char* replica, const char* base, const char* procid) {
  for (auto [name, value] : {std::pair{"SLIPWAY_REPLICA", replica},
                             {"SLIPWAY_REPLICA_BASE", base},
                             {"SLURM_PROCID", procid}}) {
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
}

}  // namespace

TEST_CASE("a shared step's task takes SLIPWAY_REPLICA, else base + SLURM_PROCID") {
  using slipway::exec::replica_from_environment;
  set_replica_env("7", "4", "1");
  CHECK(replica_from_environment() == std::optional<std::string>("7"));
  set_replica_env(nullptr, "4", "1");
  CHECK(replica_from_environment() == std::optional<std::string>("5"));
  set_replica_env(nullptr, "4", nullptr);
  CHECK_FALSE(replica_from_environment());
  set_replica_env("x", "4", "1");  // set but not a number: no fallback
  CHECK_FALSE(replica_from_environment());
  set_replica_env(nullptr, "4", "1x");
  CHECK_FALSE(replica_from_environment());
  set_replica_env(nullptr, "999999999", "2");  // above the plugin's bound
  CHECK_FALSE(replica_from_environment());
  set_replica_env(nullptr, nullptr, nullptr);
}
