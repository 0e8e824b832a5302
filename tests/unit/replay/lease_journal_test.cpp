// A client's lease journal: the leases it holds written to a private file
// of the run directory, read back (and removed) by a later attempt of the
// same task only, never through a symbolic link; a torn last line ignored.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lease_journal.hpp"
#include "slipway/base/scratch_dir.hpp"

using namespace slipway::replay;
namespace fs = std::filesystem;

namespace {
// SLIPWAY_RUN_DIR set to a scratch directory for the test's length.
struct RunDir {
  slipway::base::ScratchDir scratch{slipway::base::scratch_temp_base(), "slipway-test-journal", "a lease journal test"};
  fs::path path = scratch.path();
  RunDir() { ::setenv("SLIPWAY_RUN_DIR", path.c_str(), 1); }
  ~RunDir() { ::unsetenv("SLIPWAY_RUN_DIR"); }
  fs::path journals() const { return path / "replay-leases" / "replay"; }
};

LeaseJournal::Entry entry(std::uint32_t shard, const std::string& table, Key key, unsigned char fill) {
  LeaseJournal::Entry e;
  e.shard = shard;
  e.table = table;
  e.lease.key = key;
  e.lease.token.fill(std::byte{fill});
  return e;
}

Caller task(std::uint32_t replica, std::uint32_t attempt, std::uint64_t client) {
  return Caller{client, replica, attempt, "worker"};
}
}  // namespace

TEST_CASE("lease journal lines round-trip - a line cut short is ignored") {
  const std::vector<LeaseJournal::Entry> entries{entry(0, "jobs", 7, 0xab), entry(3, "a table\nname", 9, 0x01)};
  const std::string text = LeaseJournal::format(entries);
  CHECK(text.starts_with("slipway-replay-leases 1\n"));
  const auto back = LeaseJournal::parse(text);
  REQUIRE(back.size() == 2);
  CHECK(back[1].shard == 3);
  CHECK(back[1].table == "a table\nname");
  CHECK(back[1].lease.key == 9);
  CHECK(same_token(back[0].lease.token, entries[0].lease.token));
  CHECK(LeaseJournal::parse(text.substr(0, text.size() - 1)).size() == 1);  // torn by a crash
  CHECK(LeaseJournal::parse("not a journal\n0 1 00 00\n").empty());
}

TEST_CASE("a relaunched task takes the leases its earlier attempts journaled - only those") {
  RunDir run;
  auto first = LeaseJournal::open("replay", task(2, 0, 11));
  auto other_replica = LeaseJournal::open("replay", task(1, 0, 12));
  REQUIRE(first);
  REQUIRE(other_replica);
  first->add({entry(0, "jobs", 5, 0x11), entry(1, "jobs", (Key{1} << 48) | 6, 0x22)});
  first->remove({{5, {}}});
  first->add({entry(0, "jobs", 8, 0x33)});
  other_replica->add({entry(0, "jobs", 9, 0x44)});
  const fs::path file = run.journals() / "worker.2.0.000000000000000b";
  REQUIRE(fs::is_regular_file(fs::symlink_status(file)));
  CHECK((fs::status(file).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK((fs::status(run.journals()).permissions() & fs::perms::all) == fs::perms::owner_all);

  // Attempt 0 itself, or a client of it, has no predecessors.
  CHECK(LeaseJournal::open("replay", task(2, 0, 13))->take_predecessors().empty());
  auto relaunched = LeaseJournal::open("replay", task(2, 1, 14));
  const auto taken = relaunched->take_predecessors();
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].lease.key == 8);
  CHECK(taken[1].shard == 1);
  CHECK(taken[1].lease.key == ((Key{1} << 48) | 6));
  CHECK_FALSE(fs::exists(file));
  CHECK(relaunched->take_predecessors().empty());
  CHECK(fs::exists(run.journals() / "worker.1.0.000000000000000c"));  // another replica's: left alone
}

TEST_CASE("a client that ends holding no lease removes its journal - none is kept outside slipway") {
  {
    RunDir run;
    const fs::path file = run.journals() / "worker.0.0.0000000000000001";
    {
      auto journal = LeaseJournal::open("replay", task(0, 0, 1));
      journal->add({entry(0, "jobs", 5, 0x11)});
      CHECK(fs::exists(file));
    }
    CHECK(fs::exists(file));  // ended holding a lease: the next attempt returns it
    fs::remove(file);
    {
      auto journal = LeaseJournal::open("replay", task(0, 0, 1));
      journal->add({entry(0, "jobs", 5, 0x11)});
      journal->remove({{5, {}}});
    }
    CHECK_FALSE(fs::exists(file));
  }
  CHECK(LeaseJournal::open("replay", task(0, 0, 1)) == nullptr);  // no SLIPWAY_RUN_DIR
}

TEST_CASE("a lease journal is never kept through a symbolic link") {
  RunDir run;
  const fs::path elsewhere = run.path / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_symlink(elsewhere, run.path / "replay-leases");
  CHECK(LeaseJournal::open("replay", task(0, 0, 1)) == nullptr);
  CHECK(fs::is_empty(elsewhere));
}
