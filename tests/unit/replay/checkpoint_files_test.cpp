// Checkpoint files: written atomically under numbered names, the last two
// kept, and the newest complete one loaded (a corrupted or truncated newer
// file is skipped and named).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "checkpoint_files.hpp"
#include "engine_fixture.hpp"
#include "slipway/base/scratch_dir.hpp"

using namespace replay_test;
namespace fs = std::filesystem;

namespace {
Snapshot snapshot_with(Engine& engine, int items) {
  for (int i = 0; i < items; ++i) {
    Answer<InsertReply> inserted;
    engine.insert(caller(), one_item("item" + std::to_string(i), "t"), t0(), inserted.done());
  }
  return engine.snapshot();
}

std::size_t files_in(const fs::path& directory) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(directory)) {
    (void)entry;
    ++count;
  }
  return count;
}
}  // namespace

TEST_CASE("checkpoints rotate and the newest complete one is loaded") {
  slipway::base::ScratchDir scratch(slipway::base::scratch_temp_base(), "slipway-test-replay", "a replay checkpoint test");
  const fs::path directory = fs::path(scratch.path()) / "replay.0";
  Engine engine({{table("t")}, {}}, 0);
  CheckpointDirectory files(directory);
  const fs::path first = files.write(snapshot_with(engine, 1));
  const fs::path second = files.write(snapshot_with(engine, 1));
  const fs::path third = files.write(snapshot_with(engine, 1));
  CHECK(first.filename() == "checkpoint-00000000000000000001.ckpt");
  CHECK_FALSE(fs::exists(first));  // only the last two are kept
  CHECK(fs::exists(second));
  CHECK(fs::exists(third));
  CHECK(files_in(directory) == 2);  // no temporary left

  std::vector<std::string> skipped;
  ItemStore store;
  auto loaded = CheckpointDirectory(directory).load_newest(store, {}, skipped);
  REQUIRE(loaded);
  CHECK(loaded->file == third);
  CHECK(loaded->snapshot.item_count() == 3);
  CHECK(skipped.empty());

  // Cut the newest short: the one before it is loaded, the newest named.
  fs::resize_file(third, fs::file_size(third) - 3);
  ItemStore again;
  loaded = CheckpointDirectory(directory).load_newest(again, {}, skipped);
  REQUIRE(loaded);
  CHECK(loaded->file == second);
  CHECK(loaded->snapshot.item_count() == 2);
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0], Catch::Contains(third.filename().string()));

  // A new directory object numbers after the files there.
  CheckpointDirectory reopened(directory);
  CHECK(reopened.write(snapshot_with(engine, 0)).filename() == "checkpoint-00000000000000000004.ckpt");
}

TEST_CASE("an empty checkpoint directory loads nothing") {
  slipway::base::ScratchDir scratch(slipway::base::scratch_temp_base(), "slipway-test-replay", "a replay checkpoint test");
  std::vector<std::string> skipped;
  ItemStore store;
  CHECK_FALSE(CheckpointDirectory(fs::path(scratch.path()) / "none").load_newest(store, {}, skipped));
}

TEST_CASE("a restored table above its new max_size is named and evicts down on the next insert") {
  Engine big({{table("t")}, {}}, 0);
  Snapshot saved = snapshot_with(big, 5);
  auto smaller = table("t");
  smaller.max_size = 3;
  Engine engine({{smaller}, {}}, 0);
  const auto notes = engine.restore(std::move(saved));
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("max_size 3"));
  Answer<InsertReply> inserted;
  engine.insert(caller(), one_item("new", "t"), t0(), inserted.done());
  CHECK(engine.item_count() == 3);
}
