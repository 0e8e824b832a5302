// Checkpoint files: written atomically under numbered names, the last two
// kept, and the newest complete one loaded (a corrupted or truncated newer
// file is skipped and named); files tampered with before a restart (a
// symbolic link at the next temporary name, a directory, a FIFO or a link
// to /dev/zero under a checkpoint's name) refused, named, never followed
// nor waited on.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

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

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A directory with two checkpoints (1 and 2, of 1 and 2 items) written by
// a shard, for a restart to find tampered with.
struct Written {
  slipway::base::ScratchDir scratch{slipway::base::scratch_temp_base(), "slipway-test-replay",
                                    "a replay checkpoint test"};
  fs::path directory = fs::path(scratch.path()) / "replay.0";
  Written() {
    Engine engine({{table("t")}, {}}, 0);
    CheckpointDirectory files(directory);
    std::vector<std::string> notes;
    files.write(snapshot_with(engine, 1), notes);
    files.write(snapshot_with(engine, 1), notes);
  }
  fs::path numbered(int n) const {
    return directory / ("checkpoint-0000000000000000000" + std::to_string(n) + ".ckpt");
  }
  // Loads as a restart does; the newest loaded, what was skipped in `skipped`.
  std::optional<CheckpointDirectory::Loaded> load(std::vector<std::string>& skipped) const {
    ItemStore store;
    return CheckpointDirectory(directory).load_newest(store, {}, skipped);
  }
};

void loads_second_skipping(const Written& written, const fs::path& planted, const std::string& why) {
  std::vector<std::string> skipped;
  const auto loaded = written.load(skipped);
  REQUIRE(loaded);
  CHECK(loaded->file == written.numbered(2));
  CHECK(loaded->snapshot.item_count() == 2);
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0], Catch::Contains(planted.string()) && Catch::Contains(why));
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
  std::vector<std::string> notes;
  const fs::path first = files.write(snapshot_with(engine, 1), notes);
  const fs::path second = files.write(snapshot_with(engine, 1), notes);
  const fs::path third = files.write(snapshot_with(engine, 1), notes);
  CHECK(notes.empty());
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
  CHECK(reopened.write(snapshot_with(engine, 0), notes).filename() == "checkpoint-00000000000000000004.ckpt");
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

TEST_CASE("a symbolic link planted at the next checkpoint's temporary name is removed, never written through") {
  Written written;
  const fs::path target = written.directory.parent_path() / "victim";
  { std::ofstream(target) << "precious"; }
  const fs::path temporary = written.directory / ".checkpoint-00000000000000000003.ckpt.tmp";
  fs::create_symlink(target, temporary);
  Engine engine({{table("t")}, {}}, 0);
  CheckpointDirectory files(written.directory);
  std::vector<std::string> notes;
  const fs::path third = files.write(snapshot_with(engine, 1), notes);
  CHECK(third == written.numbered(3));
  CHECK(contents(target) == "precious");
  CHECK(fs::is_regular_file(fs::symlink_status(third)));
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("a symbolic link") && Catch::Contains(temporary.string()));
}

TEST_CASE("a directory at the next checkpoint's temporary name fails that checkpoint, naming it") {
  Written written;
  const fs::path temporary = written.directory / ".checkpoint-00000000000000000003.ckpt.tmp";
  fs::create_directories(temporary / "inside");
  Engine engine({{table("t")}, {}}, 0);
  CheckpointDirectory files(written.directory);
  std::vector<std::string> notes;
  CHECK_THROWS_WITH(files.write(snapshot_with(engine, 1), notes),
                    Catch::Contains("a directory") && Catch::Contains(temporary.string()));
  // The next one goes to the next name.
  CHECK(files.write(snapshot_with(engine, 1), notes) == written.numbered(4));
}

TEST_CASE("a directory named like the newest checkpoint is skipped, named, and the one before loaded") {
  Written written;
  const fs::path planted = written.numbered(3);
  fs::create_directories(planted / "inside");
  loads_second_skipping(written, planted, "is a directory");
  // Rotation keeps the shard's two newest files, and leaves the directory.
  Engine engine({{table("t")}, {}}, 0);
  CheckpointDirectory files(written.directory);
  std::vector<std::string> notes;
  const fs::path fourth = files.write(snapshot_with(engine, 1), notes);
  CHECK(fs::exists(written.numbered(2)));
  CHECK(fs::exists(fourth));
  CHECK(fs::is_directory(planted));
}

TEST_CASE("a FIFO named like the newest checkpoint is skipped at once, named") {
  Written written;
  const fs::path planted = written.numbered(3);
  REQUIRE(::mkfifo(planted.c_str(), 0600) == 0);
  auto done = std::async(std::launch::async, [&] { loads_second_skipping(written, planted, "is a FIFO"); });
  const bool in_time = done.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!in_time) ::close(::open(planted.c_str(), O_WRONLY | O_NONBLOCK));  // a blocked reader sees its end
  REQUIRE(in_time);
  done.get();
}

TEST_CASE("a symbolic link to /dev/zero named like the newest checkpoint is not read") {
  Written written;
  const fs::path planted = written.numbered(3);
  fs::create_symlink("/dev/zero", planted);
  auto done = std::async(std::launch::async, [&] { loads_second_skipping(written, planted, "a symbolic link"); });
  REQUIRE(done.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  done.get();
}

TEST_CASE("a checkpoint file larger than the shard could have written is not read") {
  Written written;
  const fs::path planted = written.numbered(3);
  { std::ofstream(planted) << "SLWREPLY"; }
  fs::resize_file(planted, 4096);
  CheckpointLimits limits;
  limits.max_file_bytes = 1024;
  std::vector<std::string> skipped;
  ItemStore store;
  const auto loaded = CheckpointDirectory(written.directory).load_newest(store, limits, skipped);
  REQUIRE(loaded);
  CHECK(loaded->file == written.numbered(2));
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0], Catch::Contains(planted.string()) && Catch::Contains("has 4096 bytes"));
}
