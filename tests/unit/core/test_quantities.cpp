// Memory sizes, Slurm time limits and replica ranges (quantities.hpp).
#include <catch2/catch.hpp>

#include "slipway/core/quantities.hpp"

using namespace slipway::core;

static std::optional<std::uint64_t> mem(std::string_view s) {
  std::string reason;
  return parse_memory_mb(s, reason);
}
static std::optional<std::uint32_t> minutes(std::string_view s) {
  std::string reason;
  return parse_time_minutes(s, reason);
}
static std::optional<ReplicaRange> replicas(std::string_view s) {
  std::string reason;
  return parse_replica_range(s, reason);
}

TEST_CASE("memory sizes use binary units; plain digits are MiB", "[core][quantities]") {
  CHECK(mem("512M") == 512u);
  CHECK(mem("16G") == 16384u);
  CHECK(mem("16g") == 16384u);
  CHECK(mem("1T") == 1048576u);
  CHECK(mem("2048K") == 2u);
  CHECK(mem("1K") == 1u);  // rounds up to a whole MiB
  CHECK(mem("1025K") == 2u);
  CHECK(mem("100") == 100u);
}

TEST_CASE("malformed or zero memory sizes are refused with a reason", "[core][quantities]") {
  for (const char* bad : {"", "16GB", "G", "-1", "1.5G", "0", "0G", " 16G", "16 G", "1P", "2000T"}) {
    INFO(bad);
    CHECK_FALSE(mem(bad).has_value());
  }
  std::string reason;
  parse_memory_mb("0", reason);
  CHECK_THAT(reason, Catch::Contains("more than 0"));
  parse_memory_mb("16GB", reason);
  CHECK_THAT(reason, Catch::Contains("\"16G\""));
}

TEST_CASE("time limits take Slurm's forms and round seconds up", "[core][quantities]") {
  CHECK(minutes("90") == 90u);
  CHECK(minutes("1:30") == 2u);     // M:S
  CHECK(minutes("5:00") == 5u);
  CHECK(minutes("1:30:00") == 90u);  // H:M:S
  CHECK(minutes("48:00:00") == 2880u);
  CHECK(minutes("2-12") == 3600u);   // D-H
  CHECK(minutes("1-00:30") == 1470u);  // D-H:M
  CHECK(minutes("1-00:00:01") == 1441u);  // D-H:M:S
}

TEST_CASE("malformed time limits are refused", "[core][quantities]") {
  for (const char* bad : {"", "abc", "0", "0:00:00", "1:60", "1:61:00", "1:00:60", "1-24", "2-25:00",
                          "1:2:3:4", "-5", "1-", "400-00", "1.5"}) {
    INFO(bad);
    CHECK_FALSE(minutes(bad).has_value());
  }
}

TEST_CASE("replica ranges are N or MIN:MAX with 1 <= MIN <= MAX", "[core][quantities]") {
  CHECK(replicas("3") == ReplicaRange{3, 3});
  CHECK(replicas("2:8") == ReplicaRange{2, 8});
  CHECK(replicas("4:4") == ReplicaRange{4, 4});
  CHECK_FALSE(replicas("4:4")->elastic());
  CHECK(replicas("1:2")->elastic());
  for (const char* bad : {"", "0", "0:4", "8:2", "a:b", "1:2:3", ":4", "4:", "1:100001", "-1"}) {
    INFO(bad);
    CHECK_FALSE(replicas(bad).has_value());
  }
}

TEST_CASE("quantities format back in Slurm's units", "[core][quantities]") {
  CHECK(format_memory_mb(16384) == "16G");
  CHECK(format_memory_mb(1536) == "1536M");
  CHECK(format_memory_mb(2 * 1048576) == "2T");
  CHECK(format_time_minutes(90) == "1:30:00");
  CHECK(format_time_minutes(2160) == "1-12:00:00");
  CHECK(format_time_minutes(5) == "0:05:00");
  for (std::uint32_t m : {1u, 59u, 61u, 1439u, 1441u, 100000u}) {
    CHECK(minutes(format_time_minutes(m)) == m);
  }
}
